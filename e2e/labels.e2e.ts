import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { LABEL_COPY } from '../src/client/labels/copy';
import { PROJECT_COPY } from '../src/client/projects/copy';
import type { Label, SavedFilter } from '../src/common/labels';
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
  unnamedFormFields,
} from './harness';

/**
 * Priorities, labels and saved filters in the browser (issue 23): quick add reads 'p1' and
 * '@label' as chips (a label not made yet asks first); the expanded card sets both from the
 * keyboard; a saved filter opens from the sidebar; axe in both themes at 1280 and 390 px.
 */
describeBrowser('priorities, labels and saved filters in the browser', () => {
  let server: RunningServer;
  let browser: Browser;
  const opened: OpenPage[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  }, budget(60_000));
  afterEach(async () => {
    for (const { errors } of opened) expect(errors).toEqual([]);
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
    const context = await openContext(browser, { baseURL: server.url, viewport, locale: 'en-GB' });
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
    // Each test starts from nothing of the admin's: no tasks, labels or saved filters.
    await deleteAllTasks(page);
    for (const label of await apiFromPage<Label[]>(page, 'GET', '/api/labels')) {
      await apiFromPage(page, 'DELETE', `/api/labels/${label.id}`);
    }
    for (const filter of await apiFromPage<SavedFilter[]>(page, 'GET', '/api/filters')) {
      await apiFromPage(page, 'DELETE', `/api/filters/${filter.id}`);
    }
    await page.reload();
    return page;
  }
  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const newLabel = (page: Page, name: string, color = 'teal') =>
    apiFromPage<Label>(page, 'POST', '/api/labels', { name, color });
  const focusedName = (page: Page) =>
    page.evaluate(() => {
      const element = document.activeElement as HTMLInputElement | null;
      return element ? `${element.tagName.toLowerCase()}:${element.getAttribute('name') ?? ''}` : '';
    });

  it(
    "quick add: 'p1' and '@work' become chips; a new '@label' is made after its confirmation chip",
    async () => {
      const page = await open();
      await newLabel(page, 'work', 'blue');
      await page.reload();
      const quick = page.getByRole('textbox', { name: 'Add a task' });
      await quick.fill('Call Ana p1 @Work @garden');
      await page.getByRole('button', { name: LABEL_COPY.removePriority('P1') }).waitFor();
      await page.getByRole('button', { name: LABEL_COPY.removeLabel('work') }).waitFor();
      // '@garden' is no label yet: nothing is made until the person says so, from the keyboard.
      const confirm = page.getByRole('button', { name: LABEL_COPY.createLabel('garden') });
      await confirm.focus();
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: LABEL_COPY.removeLabel('garden') }).waitFor();
      await expect.poll(() => focusedName(page)).toBe('input:quickAdd');
      await screenshot(page, 'labels-quick-add');
      await page.keyboard.press('Enter');
      const created = card(page, 'Call Ana');
      await created.waitFor();
      await created.getByText('P1', { exact: true }).waitFor();
      const chips = created.getByRole('list', { name: 'Labels' });
      expect(await chips.getByRole('listitem').allTextContents()).toEqual(['Label garden', 'Label work']);
      const [task] = await apiFromPage<Task[]>(page, 'GET', '/api/tasks');
      expect(task).toMatchObject({ title: 'Call Ana', priority: 1 });
      expect(task!.labels.map((label) => label.name)).toEqual(['garden', 'work']);

      // A chip taken off leaves its words in the title.
      await quick.fill('Water plants !2 @work');
      await page.getByRole('button', { name: LABEL_COPY.removeLabel('work') }).click();
      await page.keyboard.press('Enter');
      await card(page, 'Water plants @work').getByText('P2', { exact: true }).waitFor();
    },
    budget(60_000),
  );

  it(
    'sets priority and labels in the expanded card with the keyboard alone',
    async () => {
      const page = await open();
      await newLabel(page, 'errands', 'green');
      await newLabel(page, 'home', 'orange');
      await apiFromPage(page, 'POST', '/api/tasks', { title: 'Buy bulbs' });
      await page.reload();
      const scope = card(page, 'Buy bulbs');
      await scope.getByRole('button', { name: 'Expand task' }).focus();
      await page.keyboard.press('Enter');
      const priority = scope.getByRole('combobox', { name: LABEL_COPY.priority });
      await priority.waitFor();
      // Tab reaches it from the card's own controls.
      for (let i = 0; i < 20 && (await focusedName(page)) !== 'select:priority'; i++) {
        await page.keyboard.press('Tab');
      }
      expect(await focusedName(page)).toBe('select:priority');
      await page.keyboard.press('ArrowUp');
      await expect
        .poll(async () => (await apiFromPage<Task[]>(page, 'GET', '/api/tasks'))[0]!.priority)
        .toBe(3);
      await scope.getByText('P3', { exact: true }).waitFor();
      await page.keyboard.press('Tab');
      expect(await focusedName(page)).toBe('input:labelIds');
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Space');
      await expect
        .poll(async () =>
          (await apiFromPage<Task[]>(page, 'GET', '/api/tasks'))[0]!.labels.map((l) => l.name),
        )
        .toEqual(['errands', 'home']);
      await page.keyboard.press('Space');
      await expect
        .poll(async () =>
          (await apiFromPage<Task[]>(page, 'GET', '/api/tasks'))[0]!.labels.map((l) => l.name),
        )
        .toEqual(['errands']);
      await expect
        .poll(() => scope.getByRole('list', { name: 'Labels' }).getByRole('listitem').allTextContents())
        .toEqual(['Label errands']);
    },
    budget(60_000),
  );

  it(
    'saves the filter in the address and opens it again from the sidebar and the command palette',
    async () => {
      const page = await open();
      const work = await newLabel(page, 'work', 'blue');
      await apiFromPage(page, 'POST', '/api/tasks', { title: 'Ship it', priority: 1, labelIds: [work.id] });
      await apiFromPage(page, 'POST', '/api/tasks', { title: 'Tidy desk', priority: 1 });
      await apiFromPage(page, 'POST', '/api/tasks', { title: 'Read memo', labelIds: [work.id] });
      await page.reload();
      await card(page, 'Read memo').waitFor();
      await page.getByRole('combobox', { name: LABEL_COPY.priority }).selectOption('1');
      await page.getByRole('combobox', { name: LABEL_COPY.labels }).selectOption('work');
      await page.getByRole('combobox', { name: LABEL_COPY.sort }).selectOption('title');
      await expect.poll(() => new URL(page.url()).search).toBe('?priority=1&label=work&sort=title');
      await card(page, 'Read memo').waitFor({ state: 'detached' });
      await card(page, 'Ship it').waitFor();
      await page.getByRole('button', { name: LABEL_COPY.saveFilter }).click();
      const dialog = page.getByRole('dialog', { name: LABEL_COPY.saveFilter });
      await dialog.getByRole('textbox', { name: LABEL_COPY.name }).fill('Urgent work');
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      expect(await apiFromPage<SavedFilter[]>(page, 'GET', '/api/filters')).toMatchObject([
        { name: 'Urgent work', query: 'priority=1&label=work&sort=title' },
      ]);

      await page.goto('/');
      await card(page, 'Read memo').waitFor();
      const sidebar = page.getByRole('navigation', { name: PROJECT_COPY.navigation });
      const link = sidebar.getByRole('link', { name: 'Urgent work' });
      await link.click();
      await expect.poll(() => new URL(page.url()).search).toBe('?priority=1&label=work&sort=title');
      expect(await link.getAttribute('aria-current')).toBe('page');
      await card(page, 'Read memo').waitFor({ state: 'detached' });
      await card(page, 'Ship it').waitFor();
      expect(await page.getByRole('article').count()).toBe(1);

      await page.goto('/');
      await card(page, 'Read memo').waitFor();
      await page.keyboard.press('Control+k');
      await page.getByRole('option', { name: LABEL_COPY.goToFilter('Urgent work') }).click();
      await expect.poll(() => new URL(page.url()).search).toBe('?priority=1&label=work&sort=title');
      await card(page, 'Read memo').waitFor({ state: 'detached' });

      // A label in the sidebar narrows the list shown to its tasks; deleting it takes it off them.
      await page.goto('/');
      await card(page, 'Tidy desk').waitFor();
      await sidebar.getByRole('link', { name: 'work', exact: true }).click();
      await expect.poll(() => new URL(page.url()).search).toBe('?label=work');
      await card(page, 'Tidy desk').waitFor({ state: 'detached' });
      await card(page, 'Read memo').waitFor();
      await sidebar.getByRole('button', { name: LABEL_COPY.deleteLabel('work') }).click();
      await sidebar.getByRole('link', { name: 'work', exact: true }).waitFor({ state: 'detached' });
      await card(page, 'Read memo').waitFor({ state: 'detached' });
      expect((await apiFromPage<Task[]>(page, 'GET', '/api/tasks')).flatMap((t) => t.labels)).toEqual([]);
    },
    budget(60_000),
  );

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 800 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    for (const theme of ['light', 'dark'] as const) {
      it(
        `passes axe on flags, label chips, the card's editors, quick add chips, Save filter and the sidebar: ${viewport.name}-${theme}`,
        async () => {
          const page = await open(viewport, theme);
          const phone = viewport.name === 'phone';
          const label = `${viewport.name}-${theme}`;
          const colors = ['red', 'yellow', 'cyan', 'violet', 'brown', 'grey'];
          const labels = [];
          for (const color of colors) labels.push(await newLabel(page, color, color));
          for (const priority of [1, 2, 3]) {
            await apiFromPage(page, 'POST', '/api/tasks', {
              title: `Task P${priority}`,
              priority,
              labelIds: labels.slice(priority - 1, priority + 2).map((l) => l.id),
            });
          }
          await apiFromPage(page, 'POST', '/api/filters', { name: 'Urgent', query: 'priority=1,2&sort=due' });
          await page.reload();
          const scope = card(page, 'Task P1');
          await scope.getByText('P1', { exact: true }).waitFor();
          await scope.getByRole('button', { name: 'Expand task' }).click();
          await scope.getByRole('combobox', { name: LABEL_COPY.priority }).waitFor();
          await expectAccessible(page, `cards with flags and labels [${label}]`, 'main');
          expect(await unnamedFormFields(page)).toEqual([]);
          await page.getByRole('textbox', { name: 'Add a task' }).fill('Plan p2 @red @brandnew');
          await page.getByRole('button', { name: LABEL_COPY.createLabel('brandnew') }).waitFor();
          await expectAccessible(page, `quick add chips [${label}]`, 'form');
          if (phone) {
            const overflow = await page.evaluate(
              () => document.documentElement.scrollWidth - window.innerWidth,
            );
            expect(overflow).toBeLessThanOrEqual(0);
          }
          await screenshot(page, `labels-${label}`);
          await page.getByRole('textbox', { name: 'Add a task' }).fill('');
          await page.getByRole('combobox', { name: LABEL_COPY.sort }).selectOption('priority');
          await page.getByRole('button', { name: LABEL_COPY.saveFilter }).click();
          await page.getByRole('dialog', { name: LABEL_COPY.saveFilter }).waitFor();
          await expectAccessible(page, `save filter dialog [${label}]`);
          await page.keyboard.press('Escape');
          if (phone) await page.getByRole('button', { name: PROJECT_COPY.openNavigation }).click();
          const sidebar = page.getByRole('navigation', { name: PROJECT_COPY.navigation });
          await sidebar.getByRole('link', { name: 'Urgent' }).waitFor();
          await expectAccessible(page, `sidebar with saved filters [${label}]`);
          // Rename and recolour a label from the sidebar: every card shows it.
          await sidebar.getByRole('button', { name: LABEL_COPY.editLabel('red') }).click();
          const edit = page.getByRole('dialog', { name: LABEL_COPY.editLabelTitle });
          await edit.getByRole('textbox', { name: LABEL_COPY.name }).fill('crimson');
          await edit.getByRole('radio', { name: 'Pink' }).check();
          await expectAccessible(page, `edit label dialog [${label}]`);
          await page.keyboard.press('Enter');
          await edit.waitFor({ state: 'detached' });
          await expect
            .poll(async () =>
              (await apiFromPage<Label[]>(page, 'GET', '/api/labels')).map((l) => [l.name, l.color]),
            )
            .toContainEqual(['crimson', 'pink']);
          if (phone) {
            // Escape closes the drawer once focus is back in it from the closed dialog; but the
            // 'Label saved' toast is a layer above the drawer, and while it shows, Escape dismisses
            // it first (Radix's layers). So Escape until the drawer has gone, with focus in it.
            await expect
              .poll(
                async () => {
                  if (await page.evaluate(() => Boolean(document.activeElement?.closest('nav')))) {
                    await page.keyboard.press('Escape');
                  }
                  return sidebar.isHidden();
                },
                { timeout: budget(20_000), interval: 500 },
              )
              .toBe(true);
          }
          await card(page, 'Task P1').getByText('crimson').waitFor();
        },
        budget(60_000),
      );
    }
  }
});
