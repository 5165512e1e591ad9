import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { PublicUser } from '../src/common/auth';
import { THEME_STORAGE_KEY } from '../src/common/spec';
import type { Task } from '../src/common/tasks';
import {
  apiFromPage,
  budget,
  deleteAllTasks,
  describeBrowser,
  expectAccessible,
  launchBrowser,
  type OpenPage,
  openContext,
  type RunningServer,
  screenshot,
  signIn,
  startServer,
} from './harness';

/**
 * Recurring tasks and due times in the browser (issue 22): quick add reads 'every monday at 9am',
 * the card shows the time and the rule in words, completing it rolls it on to the next Monday, and
 * 'Complete forever' archives it. The browser's time zone becomes the account's at sign-in.
 */
describeBrowser('due times and recurring tasks in the browser', () => {
  let server: RunningServer;
  let browser: Browser;
  const opened: OpenPage[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  }, budget(60_000));
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(({ context }) => context.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(
    viewport = { width: 1280, height: 900 },
    theme: 'light' | 'dark' = 'light',
  ): Promise<Page> {
    const context = await openContext(browser, {
      baseURL: server.url,
      viewport,
      timezoneId: 'Europe/Berlin',
      locale: 'en-GB',
    });
    await context.addInitScript(
      ([key, value]) => localStorage.setItem(key!, value!),
      [THEME_STORAGE_KEY, theme],
    );
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    opened.push({ context, page, errors });
    await page.goto('/');
    await signIn(page);
    return page;
  }
  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  /** The date the page itself writes for a YYYY-MM-DD (the card's own format). */
  const shown = (page: Page, date: string) =>
    page.evaluate((iso) => {
      const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
      return new Date(y, m - 1, d).toLocaleDateString();
    }, date);

  it(
    'a browser in Kolkata gives a new account Asia/Kolkata, which the time zone dialog shows selected (issue 28)',
    async () => {
      const admin = await open();
      const created = await apiFromPage<{ user: PublicUser; password: string }>(
        admin,
        'POST',
        '/api/admin/users',
        {
          firstName: 'Kavya',
          email: 'kavya@example.com',
        },
      );
      // Every account has a zone, the server's until the person or their browser sets one.
      expect(created.user).toMatchObject({ timeZone: expect.any(String), timeZoneChosen: false });
      const context = await openContext(browser, {
        baseURL: server.url,
        viewport: { width: 1280, height: 900 },
        timezoneId: 'Asia/Kolkata',
        locale: 'en-GB',
      });
      const page = await context.newPage();
      opened.push({ context, page, errors: [] });
      await page.goto('/');
      await signIn(page, created.user.username, created.password);
      // The browser calls it 'Asia/Calcutta' (ICU's old name): the account keeps the IANA name.
      expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe(
        'Asia/Calcutta',
      );
      await expect
        .poll(
          async () => (await apiFromPage<{ user: PublicUser }>(page, 'GET', '/api/auth/me')).user.timeZone,
        )
        .toBe('Asia/Kolkata');
      await page.getByRole('button', { name: /^Settings for/ }).click();
      await page
        .getByRole('menuitem', { name: /^Time zone/ })
        .getByText('Asia/Kolkata')
        .waitFor();
      await page.getByRole('menuitem', { name: /^Time zone/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Time zone' });
      const list = dialog.getByLabel('Time zones', { exact: true });
      await expect.poll(() => list.inputValue()).toBe('Asia/Kolkata');
      const values = await list
        .locator('option')
        .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
      expect(values).toEqual(
        expect.arrayContaining(['Asia/Kolkata', 'Europe/Kyiv', 'Asia/Ho_Chi_Minh', 'America/Nuuk']),
      );
      for (const old of ['Asia/Calcutta', 'Europe/Kiev', 'Asia/Saigon', 'America/Godthab'])
        expect(values).not.toContain(old);
      // Choosing one keeps its name, and the browser's zone no longer replaces it.
      await dialog.getByRole('searchbox', { name: 'Search time zones' }).fill('kyiv');
      await list.selectOption('Europe/Kyiv');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
      await expect
        .poll(async () => (await apiFromPage<{ user: PublicUser }>(page, 'GET', '/api/auth/me')).user)
        .toMatchObject({ timeZone: 'Europe/Kyiv', timeZoneChosen: true });
      await page.reload();
      await page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
      await page.getByRole('button', { name: /^Settings for/ }).click();
      await page
        .getByRole('menuitem', { name: /^Time zone/ })
        .getByText('Europe/Kyiv')
        .waitFor();
    },
    budget(60_000),
  );

  it(
    "quick add 'every monday at 9am'; the card shows 09:00 and 'Every Monday'; completing rolls it on; Complete forever archives it",
    async () => {
      const page = await open();
      await deleteAllTasks(page);
      // The browser's zone became the account's at sign-in.
      await expect
        .poll(
          async () => (await apiFromPage<{ user: PublicUser }>(page, 'GET', '/api/auth/me')).user.timeZone,
        )
        .toBe('Europe/Berlin');

      const quick = page.getByRole('textbox', { name: 'Add a task' });
      await quick.fill('Team stand-up every monday at 9am');
      const chip = page.getByRole('button', { name: 'Remove repeat Every Monday' });
      await chip.waitFor();
      await quick.press('Enter');
      const scope = card(page, 'Team stand-up');
      await scope.waitFor();
      const [task] = await apiFromPage<Task[]>(page, 'GET', '/api/tasks');
      expect(task).toMatchObject({
        title: 'Team stand-up',
        dueTime: '09:00',
        dueTimeZone: 'Europe/Berlin',
        recurrence: 'FREQ=WEEKLY;BYDAY=MO',
        recurrenceFrom: 'due',
      });
      expect(new Date(`${task!.dueDate}T12:00:00Z`).getUTCDay()).toBe(1);
      await scope.getByText('09:00').waitFor();
      await scope.getByText('Every Monday').waitFor();
      await screenshot(page, 'recurrence-card');

      // Completing moves it on a week: still on the list, a week later, at 09:00.
      const first = task!.dueDate!;
      const next = new Date(Date.parse(`${first}T00:00:00Z`) + 7 * 86_400_000).toISOString().slice(0, 10);
      await scope.getByRole('checkbox', { name: 'Mark as complete' }).click();
      await scope.getByText(await shown(page, next)).waitFor();
      await expect
        .poll(async () => (await apiFromPage<Task>(page, 'GET', `/api/tasks/${task!.id}`)).dueDate)
        .toBe(next);
      await expect(scope.getByText('09:00').isVisible()).resolves.toBe(true);
      await expect(scope.getByRole('checkbox', { name: 'Mark as complete' }).isChecked()).resolves.toBe(
        false,
      );

      // The expanded card says so in its activity and offers Complete forever.
      await scope.getByRole('button', { name: 'Expand task' }).click();
      await scope.getByText(/completed \(next: Mon \d{1,2} \w{3}\)/).waitFor();
      await expect(scope.getByLabel('Repeat').inputValue()).resolves.toBe('FREQ=WEEKLY;BYDAY=MO');
      await scope.getByRole('button', { name: 'Complete forever' }).click();
      await scope.waitFor({ state: 'detached' });
      const archived = await apiFromPage<Task[]>(page, 'GET', '/api/tasks/archived');
      expect(archived.find((each) => each.id === task!.id)).toMatchObject({
        archived: true,
        recurrence: null,
      });
    },
    budget(90_000),
  );

  it(
    'the card editors set and clear a due time and a repeat',
    async () => {
      const page = await open();
      await deleteAllTasks(page);
      const task = await apiFromPage<Task>(page, 'POST', '/api/tasks', {
        title: 'Water the plants',
        dueDate: '2030-01-10',
      });
      await page.reload();
      const scope = card(page, 'Water the plants');
      await scope.getByRole('button', { name: 'Expand task' }).click();
      const time = scope.getByLabel('Due time');
      await time.fill('14:30');
      await time.blur();
      await scope.getByText('14:30').first().waitFor();
      await scope.getByLabel('Repeat').selectOption('FREQ=WEEKLY;INTERVAL=2');
      await scope.getByText('Every 2 weeks').first().waitFor();
      await scope.getByRole('checkbox', { name: 'From completion' }).check();
      await expect
        .poll(async () => apiFromPage<Task>(page, 'GET', `/api/tasks/${task.id}`))
        .toMatchObject({
          dueTime: '14:30',
          recurrence: 'FREQ=WEEKLY;INTERVAL=2',
          recurrenceFrom: 'completion',
        });
      await scope.getByLabel('Repeat').selectOption('');
      await expect
        .poll(async () => (await apiFromPage<Task>(page, 'GET', `/api/tasks/${task.id}`)).recurrence)
        .toBeNull();
    },
    budget(60_000),
  );

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 800 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    for (const theme of ['light', 'dark'] as const) {
      it(
        `passes axe on a recurring timed task, its editors and the time zone dialog: ${viewport.name}-${theme}`,
        async () => {
          const page = await open(viewport, theme);
          const title = `Pay rent ${viewport.name} ${theme}`;
          await apiFromPage(page, 'POST', '/api/tasks', {
            title,
            dueDate: '2020-01-01',
            dueTime: '08:00',
            recurrence: 'FREQ=MONTHLY;BYMONTHDAY=1',
          });
          await page.reload();
          const scope = card(page, title);
          // A date-time in the past: Overdue, in words.
          await scope.getByText('Overdue:').waitFor();
          await scope.getByRole('button', { name: 'Expand task' }).click();
          await scope.getByRole('button', { name: 'Complete forever' }).waitFor();
          await expectAccessible(page, `recurring card [${viewport.name}-${theme}]`, 'article');
          const quick = page.getByRole('textbox', { name: 'Add a task' });
          await quick.fill('Stretch every! 3 days at 7am remind me 30 min before');
          await page.getByRole('button', { name: 'Remove repeat Every 3 days' }).waitFor();
          await expectAccessible(page, `quick add chips [${viewport.name}-${theme}]`, 'form');
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          expect(overflow).toBeLessThanOrEqual(0);
          await screenshot(page, `recurrence-${viewport.name}-${theme}`);
          await quick.fill('');
          await page.getByRole('button', { name: /^Settings for/ }).click();
          await page.getByRole('menuitem', { name: /^Time zone/ }).click();
          const dialog = page.getByRole('dialog', { name: 'Time zone' });
          await dialog.waitFor();
          await dialog.getByRole('searchbox', { name: 'Search time zones' }).fill('new york');
          await dialog.getByLabel('Time zones', { exact: true }).selectOption('America/New_York');
          await expectAccessible(page, `time zone dialog [${viewport.name}-${theme}]`);
          await dialog.getByRole('button', { name: 'Save' }).click();
          await dialog.waitFor({ state: 'detached' });
          await expect
            .poll(
              async () =>
                (await apiFromPage<{ user: PublicUser }>(page, 'GET', '/api/auth/me')).user.timeZone,
            )
            .toBe('America/New_York');
          await apiFromPage(page, 'PATCH', '/api/auth/me', { timeZone: 'Europe/Berlin' });
        },
        budget(90_000),
      );
    }
  }
});
