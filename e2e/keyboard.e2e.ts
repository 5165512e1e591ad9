import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { COPY, THEME_STORAGE_KEY, TOASTS } from '../src/common/spec';
import type { Task } from '../src/common/tasks';
import {
  apiFromPage,
  browserSuite,
  createTaskFromPage,
  deleteAllTasks,
  describeBrowser,
  expectAccessible,
  framesDrawn,
  screenshot,
  signIn,
} from './harness';

/**
 * Issue 13, 'Act from the keyboard' and 'Quick add': the command palette creates a task and jumps
 * to one; the single-key shortcuts do their work and stay quiet in fields; quick add reads the date.
 */
describeBrowser('keyboard: palette, shortcuts and quick add', () => {
  const suite = browserSuite();
  const { opened } = suite;

  /** Signed in as the admin on a list holding just `titles`, first on top. */
  async function listOf(titles: string[], theme: 'light' | 'dark' = 'light') {
    const context = await suite.browser.newContext({
      baseURL: suite.server.url,
      viewport: { width: 1280, height: 900 },
    });
    await context.addInitScript(
      ([key, value]) => localStorage.setItem(key!, value!),
      [THEME_STORAGE_KEY, theme],
    );
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) errors.push(message.text());
    });
    opened.push({ context, page, errors });
    await page.goto('/');
    await signIn(page);
    await deleteAllTasks(page);
    for (const title of [...titles].reverse()) await createTaskFromPage(page, title);
    await page.reload();
    await page.getByRole('heading', { name: COPY.yourTasks }).waitFor();
    if (titles.length > 0) await card(page, titles[0]!).waitFor();
    return page;
  }

  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const toast = (page: Page, text: string) =>
    page.getByRole('region', { name: /Notifications/ }).getByText(text, { exact: true });
  const palette = (page: Page) => page.getByRole('dialog', { name: 'Command palette' });
  const tasks = (page: Page) => apiFromPage<Task[]>(page, 'GET', '/api/tasks');

  function focused(page: Page): Promise<string> {
    return page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return 'body';
      const name = el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '';
      return `${el.tagName.toLowerCase()}:${name}`;
    });
  }
  const expectFocus = (page: Page, expected: string) => expect.poll(() => focused(page)).toBe(expected);

  async function openPalette(page: Page) {
    await page.keyboard.press('Control+k');
    await palette(page).waitFor();
    await expectFocus(page, 'input:');
  }

  it('creates a task from the palette, through the Add Task dialog', async () => {
    const page = await listOf(['Existing']);
    await openPalette(page);
    await page.keyboard.type('new task');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: COPY.addNewTask });
    await dialog.waitFor();
    await palette(page).waitFor({ state: 'detached' });
    await dialog.getByLabel('Title').fill('From the palette');
    await dialog.getByRole('button', { name: COPY.addTask }).click();
    await toast(page, TOASTS.taskCreated).waitFor();
    await card(page, 'From the palette').waitFor();
    expect((await tasks(page)).map((t) => t.title)).toEqual(['From the palette', 'Existing']);
  });

  it('jumps to a task by a fuzzy title: the card is scrolled into view and focused', async () => {
    const many = Array.from({ length: 40 }, (_, i) => `Filler task ${i + 1}`);
    const page = await listOf([...many, 'Quarterly budget review']);
    await openPalette(page);
    await page.keyboard.type('qrtly bdgt');
    const option = palette(page).getByRole('option', { name: 'Quarterly budget review' });
    await option.waitFor();
    await page.keyboard.press('Enter');
    await palette(page).waitFor({ state: 'detached' });
    await expectFocus(page, 'article:Quarterly budget review');
    expect(await card(page, 'Quarterly budget review').isVisible()).toBe(true);
    const inView = await card(page, 'Quarterly budget review').evaluate((el) => {
      const box = el.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= window.innerHeight;
    });
    expect(inView).toBe(true);

    // From the archive page, the palette brings the person back to the list and the card.
    await page.goto('/archive');
    await page.getByRole('heading', { name: COPY.archiveOverview }).waitFor();
    await openPalette(page);
    await page.keyboard.type('Filler task 7');
    await palette(page).getByRole('option', { name: 'Filler task 7', exact: true }).waitFor();
    await page.keyboard.press('Enter');
    await expectFocus(page, 'article:Filler task 7');

    // From the main screen's Archived tab, it brings the active list back.
    await page.getByRole('tab', { name: new RegExp(COPY.archived) }).click();
    await openPalette(page);
    await page.keyboard.type('Filler task 9');
    await palette(page).getByRole('option', { name: 'Filler task 9', exact: true }).waitFor();
    await page.keyboard.press('Enter');
    await expectFocus(page, 'article:Filler task 9');
  });

  it('opens the account dialogs the menu opens; the menu still hands focus back', async () => {
    const page = await listOf(['Somewhere']);
    await openPalette(page);
    await page.keyboard.type('change password');
    await page.keyboard.press('Enter');
    const password = page.getByRole('dialog', { name: COPY.changePassword });
    await password.waitFor();
    await page.keyboard.press('Escape');
    await password.waitFor({ state: 'detached' });

    await openPalette(page);
    await page.keyboard.type('manage users');
    await page.keyboard.press('Enter');
    const users = page.getByRole('dialog', { name: COPY.userManagement });
    await users.waitFor();
    await page.keyboard.press('Escape');
    await users.waitFor({ state: 'detached' });

    const menu = page.getByRole('button', { name: /^Settings for/ });
    await menu.click();
    await page.getByRole('menuitem', { name: COPY.aiAgents }).click();
    const agents = page.getByRole('dialog', { name: COPY.aiAgents });
    await agents.waitFor();
    await page.keyboard.press('Escape');
    await agents.waitFor({ state: 'detached' });
    await expectFocus(page, `button:${await menu.getAttribute('aria-label')}`);

    // Theme from the palette; Ctrl+K again closes it.
    await openPalette(page);
    await page.keyboard.type('dark mode');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.evaluate(() => document.documentElement.classList.contains('dark')))
      .toBe(true);
    await openPalette(page);
    await page.keyboard.press('Control+k');
    await palette(page).waitFor({ state: 'detached' });
  });

  it('does the work of each single-key shortcut on the focused card', async () => {
    const page = await listOf(['One', 'Two', 'Three', 'Four']);

    await page.keyboard.press('n');
    const addDialog = page.getByRole('dialog', { name: COPY.addNewTask });
    await addDialog.waitFor();
    await page.keyboard.press('Escape');
    await addDialog.waitFor({ state: 'detached' });
    // Radix hands focus back a task after the dialog unmounts: a 'j' pressed before then moves focus to
    // a card, and the hand-back takes it away again (seen once in CI).
    await expectFocus(page, `h1:${COPY.yourTasks}`);

    await page.keyboard.press('j');
    await expectFocus(page, 'article:One');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await expectFocus(page, 'article:Three');
    await page.keyboard.press('k');
    await expectFocus(page, 'article:Two');

    // Enter expands and collapses; the card keeps its identity (no remount) throughout.
    const two = card(page, 'Two');
    await two.evaluate((el) => {
      (window as unknown as { kept: Element }).kept = el;
    });
    await page.keyboard.press('Enter');
    await two.getByRole('textbox', { name: 'Notes' }).waitFor();
    await page.keyboard.press('Enter');
    await two.getByRole('textbox', { name: 'Notes' }).waitFor({ state: 'detached' });
    expect(await two.evaluate((el) => (window as unknown as { kept: Element }).kept === el)).toBe(true);

    // e edits the title.
    await page.keyboard.press('e');
    await expectFocus(page, 'input:Title');
    await page.keyboard.press('End');
    await page.keyboard.type(' edited');
    await page.keyboard.press('Enter');
    await card(page, 'Two edited').waitFor();

    // x completes: same toast, focus goes to the next card.
    await card(page, 'Two edited').focus();
    await page.keyboard.press('x');
    await toast(page, TOASTS.taskCompleted[0]).waitFor();
    await card(page, 'Two edited').waitFor({ state: 'detached' });
    await expectFocus(page, 'article:Three');

    // Delete alone does nothing; Shift+Delete deletes like the Delete Task button.
    await page.keyboard.press('Delete');
    await framesDrawn(page);
    await card(page, 'Three').waitFor();
    await page.keyboard.press('Shift+Delete');
    await toast(page, TOASTS.taskDeleted[0]).waitFor();
    await card(page, 'Three').waitFor({ state: 'detached' });
    await expectFocus(page, 'article:Four');
    expect((await tasks(page)).filter((t) => !t.archived).map((t) => t.title)).toEqual(['One', 'Four']);

    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    await help.getByText('Focus the next task').waitFor();
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    await expectFocus(page, 'article:Four');

    // '/' focuses search.
    await page.keyboard.press('/');
    await expectFocus(page, `input:${COPY.searchTasks}`);
  });

  it('stays quiet in text fields and with a modifier held', async () => {
    const page = await listOf(['Alpha', 'Beta']);
    const search = page.getByRole('searchbox', { name: COPY.searchTasks });
    await search.click();
    await page.keyboard.type('nejkx?/');
    expect(await search.inputValue()).toBe('nejkx?/');
    await expectFocus(page, `input:${COPY.searchTasks}`);
    await search.fill('');
    await card(page, 'Alpha').waitFor();

    const quick = page.getByRole('textbox', { name: 'Add a task' });
    await quick.click();
    await page.keyboard.type('n j');
    expect(await quick.inputValue()).toBe('n j');
    expect(await page.getByRole('dialog').count()).toBe(0);

    // Inline title editing: e and x are letters there.
    await card(page, 'Alpha').getByRole('button', { name: 'Alpha', exact: true }).click();
    await page.keyboard.press('End');
    await page.keyboard.type('x');
    await page.keyboard.press('Enter');
    await card(page, 'Alphax').waitFor();

    // A modifier held: nothing happens.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Alt+n');
    await page.keyboard.press('Control+j');
    await framesDrawn(page);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await focused(page)).not.toMatch(/^article/);
    expect((await tasks(page)).length).toBe(2);
  });

  it('quick add reads the due date, shows it as a chip, and keeps the words when the chip goes', async () => {
    const page = await listOf([]);
    const quick = page.getByRole('textbox', { name: 'Add a task' });
    await quick.fill('Report due 2027-03-01');
    const chip = page.getByRole('button', {
      name: `Remove due date ${await page.evaluate(() => new Date(2027, 2, 1).toLocaleDateString())}`,
    });
    await chip.waitFor();
    await screenshot(page, 'keyboard-quick-add-chip');
    await quick.press('Enter');
    await toast(page, TOASTS.taskCreated).waitFor();
    await card(page, 'Report').waitFor();
    expect(await quick.inputValue()).toBe('');
    let [task] = await tasks(page);
    expect(task).toMatchObject({ title: 'Report', dueDate: '2027-03-01' });

    await quick.fill('Pay rent tomorrow');
    const tomorrow = await page.evaluate(() => {
      const day = new Date();
      day.setDate(day.getDate() + 1);
      return day.toLocaleDateString();
    });
    await page.getByRole('button', { name: `Remove due date ${tomorrow}` }).click();
    await page.getByRole('button', { name: /^Remove due date/ }).waitFor({ state: 'detached' });
    await expectFocus(page, 'input:Add a task');
    await quick.press('Enter');
    await card(page, 'Pay rent tomorrow').waitFor();
    [task] = await tasks(page);
    expect(task).toMatchObject({ title: 'Pay rent tomorrow', dueDate: null });
    // New tasks go to the top.
    expect((await tasks(page)).map((t) => t.title)).toEqual(['Pay rent tomorrow', 'Report']);
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`has no serious accessibility violations in the palette and the help dialog (${theme})`, async () => {
      const page = await listOf(['Write the report', 'Plan the trip'], theme);
      const audit = async (name: string) => {
        await expectAccessible(page, `${name} [${theme}]`);
        await screenshot(page, `keyboard-${name}-${theme}`);
      };
      await openPalette(page);
      await page.keyboard.type('re');
      await palette(page).getByRole('option', { name: 'Write the report' }).waitFor();
      await audit('palette');
      await page.keyboard.press('Escape');
      await palette(page).waitFor({ state: 'detached' });
      await page.keyboard.press('?');
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
      await audit('shortcuts');
      await page.keyboard.press('Escape');
      await page.getByRole('textbox', { name: 'Add a task' }).fill('Call Ana next fri');
      await page.getByRole('button', { name: /^Remove due date/ }).waitFor();
      await audit('quick-add');
    });
  }
});
