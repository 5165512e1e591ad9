import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createTaskFromPage,
  deleteAllTasks,
  describeBrowser,
  launchBrowser,
  openPage,
  type RunningServer,
  signIn,
  startServer,
} from './harness';

describeBrowser('calendar feed and import', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const openMenuItem = async (page: import('playwright-core').Page, name: string) => {
    await page.getByRole('button', { name: /^Settings for / }).click();
    await page.getByRole('menuitem', { name }).click();
    await page.getByRole('dialog', { name }).waitFor();
  };

  it('makes a calendar feed address in the dialog, and the address serves the tasks', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await signIn(page);
    await deleteAllTasks(page);
    await createTaskFromPage(page, 'Dentist appointment', { dueDate: '2027-04-05' });
    await openMenuItem(page, 'Calendar feed');
    await page.getByRole('button', { name: 'Create new address' }).click();
    const address = page.getByLabel('Calendar feed address');
    await address.waitFor();
    const url = await address.inputValue();
    expect(url).toMatch(/\/api\/calendar\/[A-Za-z0-9_-]+\.ics$/);
    // Fetched with no session at all, as a calendar app would.
    const feed = await fetch(new URL(new URL(url).pathname, server.url));
    expect(feed.status).toBe(200);
    const ics = await feed.text();
    expect(ics).toContain('SUMMARY:Dentist appointment');
    expect(ics).toContain('DTSTART;VALUE=DATE:20270405');
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.getByText('Your feed is off.').waitFor();
    expect((await fetch(new URL(new URL(url).pathname, server.url))).status).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('imports a small CSV through the menu, after a preview', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await signIn(page);
    await deleteAllTasks(page);
    await openMenuItem(page, 'Import tasks');
    await page.getByLabel('File to import').setInputFiles({
      name: 'tasks.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'title,description,dueDate\n"Buy milk, oat",From the corner shop,\nCall Ana,,2027-01-02\n,,\n',
      ),
    });
    await page.getByText('2 tasks to import, 0 rows skipped.').waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const cards = page.locator('article[data-task-id]');
    await expect.poll(() => cards.count()).toBe(2);
    expect(await cards.first().getAttribute('aria-label')).toBe('Buy milk, oat');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('imports a Todoist repeating date as a rule, and names in the preview one it cannot read', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await signIn(page);
    await deleteAllTasks(page);
    await openMenuItem(page, 'Import tasks');
    await page.getByLabel('File to import').setInputFiles({
      name: 'Chores.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        [
          'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,DURATION,DURATION_UNIT',
          'meta,view_style=list,,,,,,,,,,',
          'task,Take the bins out,,2,1,Ana (12345678),,every monday,en,Europe/Lisbon,,',
          'note,Recycling on Thursdays,,,,Ana (12345678),,2026-11-02T18:00:00.000000Z,,,,',
          'task,Pay the club,,1,1,Ana (12345678),,every 3rd tuesday of the month,en,Europe/Lisbon,,',
        ].join('\r\n'),
      ),
    });
    const preview = page.getByRole('status').filter({ hasText: 'to import' });
    await preview.getByText('2 tasks to import, 0 rows skipped.').waitFor();
    await preview
      .getByText(/^Line 5: recurrence not imported: every 3rd tuesday of the month \(due once, on \d+ \w+/)
      .waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const cards = page.locator('article[data-task-id]');
    await expect.poll(() => cards.count()).toBe(2);
    await page.getByRole('article', { name: 'Take the bins out' }).getByText('Every Monday').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
