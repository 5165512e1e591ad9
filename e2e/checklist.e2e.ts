import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { ChecklistItem } from '../src/common/checklist';
import { THEME_STORAGE_KEY } from '../src/common/spec';
import type { Task } from '../src/common/tasks';
import {
  apiFromPage,
  browserSuite,
  budget,
  createTaskFromPage,
  deleteAllTasks,
  describeBrowser,
  expectAccessible,
  type OpenPage,
  openContext,
  openPage,
  screenshot,
  signIn,
} from './harness';

/** Checklists in the expanded card, and their progress on the collapsed one (issue 13). */
describeBrowser('checklists in the browser', () => {
  const suite = browserSuite({ expectNoErrors: false });
  const { opened } = suite;

  async function session(): Promise<OpenPage> {
    const tab = await openPage(suite.browser, suite.server);
    opened.push(tab);
    await signIn(tab.page);
    return tab;
  }

  /** A fresh task, with the admin's others deleted, and the page showing it. */
  async function freshTask(page: Page, title: string, items: string[] = []): Promise<Task> {
    await deleteAllTasks(page);
    const task = await createTaskFromPage(page, title);
    for (const item of items)
      await apiFromPage(page, 'POST', `/api/tasks/${task.id}/checklist`, { title: item });
    await page.reload();
    await card(page, title).waitFor();
    return task;
  }

  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const checklist = (scope: Locator) => scope.getByRole('region', { name: 'Checklist' });
  const itemTitles = (scope: Locator) =>
    checklist(scope)
      .getByRole('listitem')
      .evaluateAll((rows) =>
        rows.map((row) => row.querySelector('[data-control="title"]')?.textContent ?? ''),
      );
  const focusedName = (page: Page) =>
    page.evaluate(() => {
      const el = document.activeElement;
      return el?.getAttribute('aria-label') ?? el?.textContent ?? '';
    });
  const serverItems = (page: Page, taskId: number) =>
    apiFromPage<ChecklistItem[]>(page, 'GET', `/api/tasks/${taskId}/checklist`);

  async function expand(scope: Locator) {
    await scope.getByRole('button', { name: 'Expand task' }).click();
    await checklist(scope).getByRole('textbox', { name: 'Add an item' }).waitFor();
    // The panel shows its add field at once and the items when they arrive: wait for them.
    await checklist(scope).getByText('Loading checklist…').waitFor({ state: 'detached' });
  }

  it('adds, ticks, edits, reorders by keyboard and deletes items; the card shows the progress; reload keeps them', async () => {
    const { page, errors } = await session();
    const task = await freshTask(page, 'Fix the shelf');
    const shelf = card(page, 'Fix the shelf');
    // No checklist yet: no progress on the card.
    expect(await shelf.getByText(/checklist items done/).count()).toBe(0);
    await expand(shelf);
    const list = checklist(shelf);

    // Enter adds and keeps the cursor in the field for the next one.
    const addField = list.getByRole('textbox', { name: 'Add an item' });
    await addField.click();
    for (const title of ['Buy screws', 'Find the drill', 'Mount the shelf']) {
      await page.keyboard.type(title);
      await page.keyboard.press('Enter');
      await list.getByRole('checkbox', { name: title, exact: true }).waitFor();
      expect(await focusedName(page)).toBe('Add an item');
    }
    expect(await addField.inputValue()).toBe('');
    await page.keyboard.press('Enter'); // blank: nothing added
    expect(await itemTitles(shelf)).toEqual(['Buy screws', 'Find the drill', 'Mount the shelf']);

    // Tick one: the progress in the panel, then on the collapsed card.
    // Not check(): it wants the box ticked the moment the click ends, and the tick comes with the
    // mutation's optimistic update a moment later (on a busy machine, later still).
    await list.getByRole('checkbox', { name: 'Buy screws' }).click();
    await list.getByRole('checkbox', { name: 'Buy screws', checked: true }).waitFor();
    await list.getByText('1 of 3 done').waitFor();
    await shelf.getByRole('button', { name: 'Collapse task' }).click();
    await list.waitFor({ state: 'detached' });
    await shelf.getByText('1/3', { exact: true }).waitFor();
    await shelf.getByText('1 of 3 checklist items done').waitFor();
    await screenshot(page, 'checklist-collapsed');

    // Inline edit: a blank title is refused with a message; Escape cancels; Enter saves.
    await expand(shelf);
    await list.getByRole('button', { name: 'Edit Find the drill' }).click();
    const editField = list.getByRole('textbox', { name: 'Edit Find the drill' });
    await editField.fill('   ');
    await page.keyboard.press('Enter');
    await list.getByRole('alert').getByText('An item needs a title').waitFor();
    expect(await editField.getAttribute('aria-invalid')).toBe('true');
    await editField.fill('Something else');
    await page.keyboard.press('Escape');
    await editField.waitFor({ state: 'detached' });
    expect(await focusedName(page)).toBe('Edit Find the drill');
    await page.keyboard.press('Enter'); // Enter on the title opens the field too
    await editField.fill('Borrow the drill');
    await page.keyboard.press('Enter');
    await list.getByRole('checkbox', { name: 'Borrow the drill' }).waitFor();
    expect(await focusedName(page)).toBe('Edit Borrow the drill');

    // Reorder by keyboard: the button keeps focus and the move is announced.
    await list.getByRole('button', { name: 'Move Mount the shelf up' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => itemTitles(shelf)).toEqual(['Buy screws', 'Mount the shelf', 'Borrow the drill']);
    expect(await focusedName(page)).toBe('Move Mount the shelf up');
    await list.getByRole('status').getByText('Moved Mount the shelf to position 2 of 3').waitFor();
    // Alt+Arrow from the item's checkbox.
    await list.getByRole('checkbox', { name: 'Buy screws' }).focus();
    await page.keyboard.press('Alt+ArrowDown');
    await expect.poll(() => itemTitles(shelf)).toEqual(['Mount the shelf', 'Buy screws', 'Borrow the drill']);
    expect(await focusedName(page)).toBe('Buy screws');
    await page.keyboard.press('Alt+ArrowDown');
    await page.keyboard.press('Alt+ArrowDown');
    await list.getByRole('status').getByText('Buy screws is already last').waitFor();
    await expect
      .poll(async () => (await serverItems(page, task.id)).map((i) => i.title))
      .toEqual(['Mount the shelf', 'Borrow the drill', 'Buy screws']);

    // Delete: focus goes to the next item, and after the last one to the add field.
    await list.getByRole('button', { name: 'Delete Mount the shelf' }).click();
    await list.getByRole('checkbox', { name: 'Mount the shelf' }).waitFor({ state: 'detached' });
    expect(await focusedName(page)).toBe('Borrow the drill');
    await list.getByRole('button', { name: 'Delete Buy screws' }).click();
    await list.getByRole('checkbox', { name: 'Buy screws' }).waitFor({ state: 'detached' });
    expect(await focusedName(page)).toBe('Add an item');
    await list.getByText('0 of 1 done').waitFor();

    // Reload keeps what the suite.server has.
    await page.reload();
    await shelf.getByText('0/1', { exact: true }).waitFor();
    await expand(shelf);
    expect(await itemTitles(shelf)).toEqual(['Borrow the drill']);
    expect(await serverItems(page, task.id)).toMatchObject([{ title: 'Borrow the drill', done: false }]);
    expect(errors).toEqual([]);
  });

  it('reorders by dragging the grip with the mouse', async () => {
    const { page, errors } = await session();
    const task = await freshTask(page, 'Pack', ['Socks', 'Shirts', 'Shoes']);
    const pack = card(page, 'Pack');
    await expand(pack);
    const rows = checklist(pack).getByRole('listitem');
    const grip = rows.filter({ hasText: 'Shoes' }).locator('[aria-hidden="true"]').first();
    const from = (await grip.boundingBox())!;
    const to = (await rows.first().boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, to.y + 4, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => itemTitles(pack)).toEqual(['Shoes', 'Socks', 'Shirts']);
    await expect
      .poll(async () => (await serverItems(page, task.id)).map((i) => i.title))
      .toEqual(['Shoes', 'Socks', 'Shirts']);
    expect(errors).toEqual([]);
  });

  it("shows another tab's changes live", async () => {
    const first = await session();
    const task = await freshTask(first.page, 'Plan the trip', ['Book flights']);
    const second = await session();
    const there = card(second.page, 'Plan the trip');
    await there.getByText('0/1', { exact: true }).waitFor();
    await expand(there);

    // Added in the first tab: the second's open checklist and its card's progress follow.
    const here = card(first.page, 'Plan the trip');
    await expand(here);
    await checklist(here).getByRole('textbox', { name: 'Add an item' }).fill('Pack the bags');
    await checklist(here).getByRole('textbox', { name: 'Add an item' }).press('Enter');
    await checklist(there).getByRole('checkbox', { name: 'Pack the bags' }).waitFor();
    await checklist(there).getByText('0 of 2 done').waitFor();

    // Ticked in the second tab: the first's collapsed card shows it.
    await here.getByRole('button', { name: 'Collapse task' }).click();
    await checklist(there).getByRole('checkbox', { name: 'Book flights' }).click();
    await checklist(there).getByRole('checkbox', { name: 'Book flights', checked: true }).waitFor();
    await here.getByText('1/2', { exact: true }).waitFor();
    expect(await serverItems(first.page, task.id)).toMatchObject([
      { title: 'Book flights', done: true },
      { title: 'Pack the bags', done: false },
    ]);
    expect(first.errors).toEqual([]);
    expect(second.errors).toEqual([]);
  });

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 800 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    for (const theme of ['light', 'dark']) {
      it(
        `passes axe on an expanded card with a checklist: ${viewport.name}-${theme}`,
        async () => {
          const context = await openContext(suite.browser, { baseURL: suite.server.url, viewport });
          opened.push({ context, page: await context.newPage(), errors: [] });
          await context.addInitScript(
            ([key, value]) => localStorage.setItem(key!, value!),
            [THEME_STORAGE_KEY, theme],
          );
          const page = opened.at(-1)!.page;
          await page.goto('/');
          await signIn(page);
          const task = await freshTask(page, 'Renovate the kitchen', [
            'Measure the walls',
            'Choose the tiles, the grout and a colour for the cupboards that goes with them',
            'Call the electrician',
          ]);
          const [firstItem] = await serverItems(page, task.id);
          await apiFromPage(page, 'PATCH', `/api/checklist/${firstItem!.id}`, { done: true });
          await page.reload();
          const kitchen = card(page, 'Renovate the kitchen');
          await kitchen.getByText('1/3', { exact: true }).waitFor();
          await expand(kitchen);
          // A refused blank title shows its message too.
          await checklist(kitchen).getByRole('button', { name: 'Edit Call the electrician' }).click();
          await checklist(kitchen).getByRole('textbox', { name: 'Edit Call the electrician' }).fill('');
          await page.keyboard.press('Enter');
          await checklist(kitchen).getByRole('alert').waitFor();
          // At 390 px the tall card has scrolled its title under the sticky header, which axe counts
          // as a covered target: audit the card from its top.
          await page.evaluate(() => window.scrollTo(0, 0));
          await expectAccessible(page, `checklist [${viewport.name}-${theme}]`, 'article');
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          expect(overflow).toBeLessThanOrEqual(0);
          await screenshot(page, `checklist-${viewport.name}-${theme}`);
        },
        budget(60_000),
      );
    }
  }
});
