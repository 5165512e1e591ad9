import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COPY } from '../src/common/spec';
import {
  createTaskFromPage,
  deleteAllTasks,
  describeBrowser,
  launchBrowser,
  openPage,
  type RunningServer,
  screenshot,
  signIn,
  startServer,
} from './harness';

describeBrowser('search and filters', () => {
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

  it('narrows the list as you type, keeps the filter in the address over a reload, and clears it', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await signIn(page);
    await deleteAllTasks(page);
    for (const title of ['Buy milk', 'Pay rent', 'Call the Café about rent'])
      await createTaskFromPage(page, title);
    await page.reload();
    const cards = page.locator('article[data-task-id]');
    await expect.poll(() => cards.count()).toBe(3);

    // '/' puts the cursor in the search field.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('/');
    const search = page.getByRole('searchbox', { name: COPY.searchTasks });
    await expect.poll(() => search.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('cafe rent');
    await expect.poll(() => cards.count()).toBe(1);
    await expect.poll(() => new URL(page.url()).search).toBe('?q=cafe+rent');
    await page.getByText(COPY.clearFilterToReorder).waitFor();
    expect(await page.getByRole('button', { name: 'Drag to reorder' }).count()).toBe(0);
    await screenshot(page, 'search-filtered');

    await page.reload();
    await expect.poll(() => cards.count()).toBe(1);
    expect(await search.inputValue()).toBe('cafe rent');

    await search.fill('nothing like this');
    await page.getByText(COPY.noTasksMatch).waitFor();
    await page.getByRole('button', { name: COPY.clearFilter }).last().click();
    await expect.poll(() => cards.count()).toBe(3);
    expect(new URL(page.url()).search).toBe('');
    expect(await search.inputValue()).toBe('');
    expect(await page.getByRole('button', { name: 'Drag to reorder' }).count()).toBe(3);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('opens with the filter a bookmark holds', async () => {
    const { page, context } = await openPage(browser, server);
    await signIn(page);
    await deleteAllTasks(page);
    await createTaskFromPage(page, 'Someday');
    await createTaskFromPage(page, 'Tomorrow', { dueDate: '2999-01-01' });
    await page.goto('/?due=none');
    await page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    const cards = page.locator('article[data-task-id]');
    await expect.poll(() => cards.count()).toBe(1);
    expect(await cards.first().getAttribute('aria-label')).toBe('Someday');
    expect(await page.getByLabel('Due date').inputValue()).toBe('none');
    await context.close();
  });
});
