import type { Page, Response } from 'playwright-core';
import { expect, it } from 'vitest';
import { SUBTASK_COPY } from '../src/client/tasks/subtasks';
import type { Project } from '../src/common/projects';
import type { Task } from '../src/common/tasks';
import { VIEWPORTS } from './accessibility';
import {
  ADMIN,
  apiFromPage,
  browserSuite,
  createTaskFromPage,
  describeBrowser,
  dragAnnouncement,
  expectAccessible,
  openThemedPage,
  signIn,
} from './harness';

/**
 * Issue 29, in the browser: sub-tasks indented under their parent in the list; nested and brought
 * out by Ctrl+] and Ctrl+[ with the list's announcements, focus staying on the card; nested by a
 * drop onto another card; a parent collapsed (remembered over a reload); '3 done' showing the
 * completed ones struck through; 'Add sub-task' from the card and the palette; the board's cards
 * with their progress and a link to their parent; axe on the nested list in both themes at desktop
 * and phone widths.
 */
describeBrowser('sub-tasks in the browser', () => {
  const suite = browserSuite();

  async function signedIn(theme: 'light' | 'dark' = 'light') {
    const page = await openThemedPage(suite, { theme, viewport: VIEWPORTS.desktop });
    await page.goto('/');
    await signIn(page, ADMIN.username, ADMIN.password);
    return page;
  }

  let projects = 0;
  /**
   * A project holding `top` (top-level, in that order) and, under 'Plan trip', three completed
   * sub-tasks; the page shows its list.
   */
  async function tripProject(page: Page, top: string[]) {
    projects += 1;
    const project = await apiFromPage<Project>(page, 'POST', '/api/projects', {
      name: `Trip ${projects}`,
      color: 'teal',
    });
    const tasks: Record<string, Task> = {};
    // Each new task goes on top: created last to first, they read in the order given.
    for (const title of [...top].reverse()) {
      tasks[title] = await createTaskFromPage(page, title, { projectId: project.id } as Partial<Task>);
    }
    for (const title of ['Old idea 1', 'Old idea 2', 'Old idea 3']) {
      const done = await createTaskFromPage(page, title, {
        projectId: project.id,
        parentId: tasks['Plan trip']!.id,
      } as Partial<Task>);
      tasks[title] = await apiFromPage<Task>(page, 'PATCH', `/api/tasks/${done.id}`, { completed: true });
    }
    await page.goto(`/projects/${project.id}`);
    await page.getByRole('heading', { name: project.name, level: 1 }).waitFor();
    await card(page, top[0]!).waitFor();
    return { project, tasks };
  }

  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const task = (page: Page, id: number) => apiFromPage<Task>(page, 'GET', `/api/tasks/${id}`);
  const toggle = (page: Page, title: string, collapsed = false) =>
    page.getByRole('button', {
      name: collapsed ? SUBTASK_COPY.expand(title) : SUBTASK_COPY.collapse(title),
      exact: true,
    });
  const indent = (page: Page, title: string) =>
    card(page, title).evaluate((element) => Number.parseFloat(getComputedStyle(element).marginInlineStart));
  const isFocused = (page: Page, title: string) =>
    card(page, title).evaluate((element) => document.activeElement === element);
  const saved = (method: string, path: RegExp) => (response: Response) =>
    response.request().method() === method && path.test(new URL(response.url()).pathname);

  it('nests and un-nests by keyboard, collapses, shows what is done, adds from the card and the palette', async () => {
    const page = await signedIn();
    const { tasks } = await tripProject(page, ['Plan trip', 'Book flights', 'Pack bags']);
    const plan = tasks['Plan trip']!;
    const flights = tasks['Book flights']!;

    // The completed sub-tasks wait behind '3 done', which opens them, struck through.
    const done = page.getByRole('button', { name: SUBTASK_COPY.done(3), exact: true });
    await expect.poll(() => done.getAttribute('aria-expanded')).toBe('false');
    expect(await card(page, 'Old idea 1').count()).toBe(0);
    await done.click();
    await expect.poll(() => done.getAttribute('aria-expanded')).toBe('true');
    expect(await card(page, 'Old idea 1').getByRole('heading').locator('.line-through').count()).toBe(1);
    expect(await indent(page, 'Old idea 1')).toBeGreaterThan(0);
    await card(page, 'Plan trip').getByText('3/3').waitFor();

    // Ctrl+]: under the card above, said so, focus kept.
    await card(page, 'Book flights').focus();
    const nested = page.waitForResponse(saved('PATCH', /^\/api\/tasks\/\d+$/));
    await page.keyboard.press('Control+]');
    expect((await nested).status()).toBe(200);
    await expect.poll(() => dragAnnouncement(page)).toBe(SUBTASK_COPY.nested('Book flights', 'Plan trip'));
    expect((await task(page, flights.id)).parentId).toBe(plan.id);
    expect(await isFocused(page, 'Book flights')).toBe(true);
    expect(await indent(page, 'Book flights')).toBeGreaterThan(0);
    await expect.poll(() => toggle(page, 'Plan trip').getAttribute('aria-expanded')).toBe('true');

    // Ctrl+[: out again, just after its old parent.
    await page.keyboard.press('Control+[');
    await expect.poll(() => dragAnnouncement(page)).toBe(SUBTASK_COPY.topLevel('Book flights'));
    await expect.poll(async () => (await task(page, flights.id)).parentId).toBeNull();
    expect(await isFocused(page, 'Book flights')).toBe(true);
    await expect.poll(() => indent(page, 'Book flights')).toBe(0);

    // And in again, for what follows.
    await page.keyboard.press('Control+]');
    await expect.poll(async () => (await task(page, flights.id)).parentId).toBe(plan.id);

    // Collapsed, remembered over a reload, expanded again.
    await toggle(page, 'Plan trip').click();
    await expect.poll(() => card(page, 'Book flights').count()).toBe(0);
    await page.reload();
    await card(page, 'Plan trip').waitFor();
    await expect.poll(() => toggle(page, 'Plan trip', true).getAttribute('aria-expanded')).toBe('false');
    expect(await card(page, 'Book flights').count()).toBe(0);
    await toggle(page, 'Plan trip', true).click();
    await card(page, 'Book flights').waitFor();

    // 'Add sub-task' in the expanded card: Enter creates it under the card.
    await card(page, 'Plan trip').getByRole('button', { name: 'Expand task' }).click();
    await card(page, 'Plan trip').getByRole('button', { name: SUBTASK_COPY.addSubtask }).click();
    const field = page.getByRole('textbox', { name: SUBTASK_COPY.subtaskTitle });
    await field.fill('Renew passport');
    const created = page.waitForResponse(saved('POST', /^\/api\/tasks$/));
    await field.press('Enter');
    const passport = (await (await created).json()) as Task;
    expect(passport.parentId).toBe(plan.id);
    await card(page, 'Renew passport').waitFor();
    expect(await indent(page, 'Renew passport')).toBeGreaterThan(0);
    await field.press('Escape');
    await card(page, 'Plan trip').getByRole('button', { name: 'Collapse task' }).click();

    // The palette's 'Add sub-task' acts on the focused card.
    await card(page, 'Pack bags').focus();
    await page.keyboard.press('Control+k');
    await page.getByRole('dialog', { name: 'Command palette' }).getByRole('combobox').fill('Add sub-task');
    await page.keyboard.press('Enter');
    await expect.poll(() => field.evaluate((element) => document.activeElement === element)).toBe(true);
    await field.fill('Buy adapters');
    const fromPalette = page.waitForResponse(saved('POST', /^\/api\/tasks$/));
    await field.press('Enter');
    expect(((await (await fromPalette).json()) as Task).parentId).toBe(tasks['Pack bags']!.id);
    await card(page, 'Buy adapters').waitFor();
  });

  it('nests by a drop onto a card, and the board links a sub-task to its parent', async () => {
    const page = await signedIn();
    const { project, tasks } = await tripProject(page, ['Plan trip', 'Book flights', 'Pack bags']);
    const handle = card(page, 'Pack bags').getByRole('button', { name: 'Drag to reorder' });
    const from = (await handle.boundingBox())!;
    const onto = (await card(page, 'Plan trip').boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 5, from.y + from.height / 2 - 5, { steps: 3 });
    await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
    await page.mouse.move(from.x + from.width / 2, onto.y + onto.height / 2, { steps: 20 });
    const nested = page.waitForResponse(saved('PATCH', /^\/api\/tasks\/\d+$/));
    await page.mouse.up();
    expect((await nested).status()).toBe(200);
    await expect.poll(() => dragAnnouncement(page)).toBe(SUBTASK_COPY.nested('Pack bags', 'Plan trip'));
    expect((await task(page, tasks['Pack bags']!.id)).parentId).toBe(tasks['Plan trip']!.id);
    expect(await indent(page, 'Pack bags')).toBeGreaterThan(0);

    // A keyboard drag reorders among siblings: Book flights, nested last, goes first under Plan trip.
    await card(page, 'Book flights').focus();
    await page.keyboard.press('Control+]');
    await expect.poll(() => dragAnnouncement(page)).toBe(SUBTASK_COPY.nested('Book flights', 'Plan trip'));
    const children = async () =>
      (await apiFromPage<Task[]>(page, 'GET', `/api/tasks?parentId=${tasks['Plan trip']!.id}`))
        .filter((child) => !child.completed)
        .map((child) => child.title);
    expect(await children()).toEqual(['Pack bags', 'Book flights']);
    await card(page, 'Book flights').getByRole('button', { name: 'Drag to reorder' }).focus();
    await page.keyboard.press('Space');
    await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => dragAnnouncement(page)).toMatch(/to position 2/);
    const moved = page.waitForResponse(saved('POST', /^\/api\/tasks\/\d+\/move$/));
    await page.keyboard.press('Space');
    expect((await moved).request().postDataJSON()).toEqual({ afterId: null });
    await expect.poll(children).toEqual(['Book flights', 'Pack bags']);

    // Today shows a sub-task due today as its own card, with a link that opens its parent's card.
    const today = await page.evaluate(() => new Date().toLocaleDateString('en-CA'));
    await apiFromPage(page, 'PATCH', `/api/tasks/${tasks['Book flights']!.id}`, { dueDate: today });
    await page.goto('/today');
    const upLink = card(page, 'Book flights').getByRole('link', {
      name: SUBTASK_COPY.parentLink('Plan trip'),
    });
    await upLink.click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/projects/${project.id}`);
    await card(page, 'Plan trip').getByRole('button', { name: 'Collapse task' }).waitFor();

    // The board shows the sub-task as its own card, linked to its parent; the parent its progress.
    await page.goto(`/projects/${project.id}?view=board`);
    const link = card(page, 'Pack bags').getByRole('link', { name: SUBTASK_COPY.parentLink('Plan trip') });
    await link.waitFor();
    await card(page, 'Plan trip').getByText('3/5').waitFor();
    expect(await link.getAttribute('href')).toBe(`/projects/${project.id}?task=${tasks['Plan trip']!.id}`);
  });

  it('is accessible with nested tasks, light and dark, desktop and phone', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const page = await signedIn(theme);
      const { tasks } = await tripProject(page, ['Plan trip', 'Book flights', 'Pack bags']);
      await card(page, 'Book flights').focus();
      await page.keyboard.press('Control+]');
      await expect.poll(async () => (await task(page, tasks['Book flights']!.id)).parentId).not.toBeNull();
      await page.getByRole('button', { name: SUBTASK_COPY.done(3), exact: true }).click();
      await card(page, 'Old idea 3').waitFor();
      await expectAccessible(page, `the nested list, ${theme}, desktop`);
      await page.setViewportSize(VIEWPORTS.phone);
      await card(page, 'Old idea 3').waitFor();
      await expectAccessible(page, `the nested list, ${theme}, phone`);
      const scrolls = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      expect(scrolls).toBe(false);
    }
  });
});
