import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { ChecklistItem } from '../src/common/checklist';
import type { Comment } from '../src/common/comments';
import type { Project } from '../src/common/projects';
import type { Section } from '../src/common/sections';
import { type Task, taskPath } from '../src/common/tasks';
import {
  ADMIN,
  apiAs,
  browserSuite,
  describeBrowser,
  dragAnnouncement,
  newTaskBody,
  type OpenPage,
  openPage,
  signIn,
} from './harness';

/**
 * Issue 31, the offline writes other than field edits: adding a task (quick add, the dialog),
 * completing and restoring, reordering and moving between sections and projects, ticking a checklist
 * item, adding a comment. Each, done offline, shows at once and is saved exactly once when the
 * connection returns; the server is checked through the API.
 */
describeBrowser('offline actions', () => {
  // Offline, the browser logs every failed load as a console error.
  const suite = browserSuite({ expectNoErrors: false });

  /** The API as the admin in a session of its own: it works whatever the browser's network. */
  const api = async () => (await apiAs(suite.server.url, ADMIN)).call;
  type Api = Awaited<ReturnType<typeof api>>;

  const createTask = (call: Api, title: string, extra: Record<string, unknown> = {}) =>
    call<Task>('POST', '/api/tasks', newTaskBody(title, extra));
  /** Every task of the admin's called `title`, active or archived. */
  const named = async (call: Api, title: string) =>
    [
      ...(await call<Task[]>('GET', '/api/tasks?projectId=all')),
      ...(await call<Task[]>('GET', '/api/tasks/archived?projectId=all')),
    ].filter((task) => task.title === title);

  /**
   * Signed in, with the service worker in control: offline, the app's lazily loaded parts (the
   * palette, the confetti) come from its precache, as they do for the person.
   */
  async function signedIn(path = '/'): Promise<OpenPage> {
    const tab = await openPage(suite.browser, suite.server, '/', { serviceWorkers: 'allow' });
    suite.opened.push(tab);
    await signIn(tab.page);
    await tab.page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    if (path !== '/') await tab.page.goto(path);
    return tab;
  }

  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const titles = (page: Page) =>
    page
      .getByRole('tabpanel')
      .getByRole('article')
      .evaluateAll((cards) => cards.map((element) => element.getAttribute('aria-label') ?? ''));

  async function goOffline(context: BrowserContext, page: Page) {
    await context.setOffline(true);
    await expect.poll(() => page.evaluate(() => navigator.onLine)).toBe(false);
  }

  /** The POST /api/tasks the page sends (each try). */
  function watchCreates(page: Page): string[] {
    const seen: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/tasks')
        seen.push(request.headers()['idempotency-key'] ?? '');
    });
    return seen;
  }

  it('adds a task offline by quick add and by the dialog: shown at once, each created once', async () => {
    const call = await api();
    const { page, context } = await signedIn();
    const creates = watchCreates(page);
    await goOffline(context, page);

    await page.getByRole('textbox', { name: 'Add a task' }).fill('Buy stamps');
    await page.keyboard.press('Enter');
    await card(page, 'Buy stamps').waitFor();
    await page.getByRole('button', { name: 'Add Task' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add New Task' });
    await dialog.getByLabel('Title').fill('Send the parcel');
    await dialog.getByRole('button', { name: 'Add Task' }).click();
    await dialog.waitFor({ state: 'detached' });
    await card(page, 'Send the parcel').waitFor();
    expect(await titles(page)).toEqual(['Send the parcel', 'Buy stamps']);
    expect(await named(call, 'Buy stamps')).toEqual([]);

    await context.setOffline(false);
    await expect.poll(async () => (await named(call, 'Send the parcel')).length).toBe(1);
    await expect.poll(async () => (await named(call, 'Buy stamps')).length).toBe(1);
    expect(creates).toHaveLength(2);
    // The list shows the created tasks (real ids) once the outbox is sent.
    await expect
      .poll(() => card(page, 'Buy stamps').getAttribute('data-task-id'))
      .toBe(String((await named(call, 'Buy stamps'))[0]!.id));
    for (const task of [...(await named(call, 'Buy stamps')), ...(await named(call, 'Send the parcel'))])
      await call('DELETE', taskPath(task.id));
  });

  it('completes offline a task added offline: created once, then completed (its temporary id rewritten)', async () => {
    const call = await api();
    const { page, context } = await signedIn();
    await goOffline(context, page);

    await page.getByRole('textbox', { name: 'Add a task' }).fill('Return the library book');
    await page.keyboard.press('Enter');
    await card(page, 'Return the library book').waitFor();
    await card(page, 'Return the library book').getByRole('checkbox').click();
    await card(page, 'Return the library book').waitFor({ state: 'detached' });

    await context.setOffline(false);
    await expect.poll(async () => (await named(call, 'Return the library book'))[0]?.completed).toBe(true);
    const [task, ...more] = await named(call, 'Return the library book');
    expect(more).toEqual([]);
    expect(task!.archived).toBe(true);
    await call('DELETE', taskPath(task!.id));
  });

  it('completes and restores offline: shown at once, saved once', async () => {
    const call = await api();
    const done = await createTask(call, 'Defrost the freezer');
    const back = await createTask(call, 'Oil the hinges');
    await call('PATCH', taskPath(back.id), { completed: true, archived: true });
    const { page, context } = await signedIn();
    // Both tabs' lists, cached before going offline.
    await page.getByRole('tab', { name: /^Archived/ }).click();
    await card(page, 'Oil the hinges').waitFor();
    await page.getByRole('tab', { name: /^Active/ }).click();
    await card(page, 'Defrost the freezer').waitFor();
    await goOffline(context, page);

    await card(page, 'Defrost the freezer').getByRole('checkbox').click();
    await card(page, 'Defrost the freezer').waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: /^Archived/ }).click();
    await card(page, 'Oil the hinges').getByRole('button', { name: 'Restore task' }).click();
    await card(page, 'Oil the hinges').waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: /^Active/ }).click();
    await card(page, 'Oil the hinges').waitFor();
    expect((await call<Task>('GET', taskPath(done.id))).completed).toBe(false);

    await context.setOffline(false);
    await expect.poll(async () => (await call<Task>('GET', taskPath(back.id))).completed).toBe(false);
    expect((await call<Task>('GET', taskPath(back.id))).archived).toBe(false);
    await expect.poll(async () => (await call<Task>('GET', taskPath(done.id))).archived).toBe(true);
    for (const id of [done.id, back.id]) await call('DELETE', taskPath(id));
  });

  it('reorders and moves between sections and projects offline: shown at once, saved once', async () => {
    const call = await api();
    const project = await call<Project>('POST', '/api/projects', { name: 'Garage', color: 'teal' });
    const other = await call<Project>('POST', '/api/projects', { name: 'Attic', color: 'orange' });
    const shelf = await call<Section>('POST', `/api/projects/${project.id}/sections`, { name: 'Shelf' });
    // Each new task goes on top: created last to first, they read Sweep, Sort, Paint, Wash, then Shelf: Fix.
    await createTask(call, 'Fix the bike', { projectId: project.id, sectionId: shelf.id });
    for (const title of ['Wash the car', 'Paint the door', 'Sort the screws', 'Sweep the floor'])
      await createTask(call, title, { projectId: project.id });
    const { page, context } = await signedIn(`/projects/${project.id}`);
    await card(page, 'Fix the bike').waitFor();
    /** The list's rows in order: the tasks, and each section's header as '# name'. */
    const rows = () =>
      page.locator('[data-section-id], article[data-task-id]').evaluateAll((elements) =>
        elements
          .map((row) => ({
            top: row.getBoundingClientRect().top,
            text: row.getAttribute('aria-label') ?? `# ${row.querySelector('button span')?.textContent}`,
          }))
          .sort((x, y) => x.top - y.top)
          .map((row) => row.text),
      );
    expect(await rows()).toEqual([
      'Sweep the floor',
      'Sort the screws',
      'Paint the door',
      'Wash the car',
      '# Shelf',
      'Fix the bike',
    ]);
    const writes: string[] = [];
    page.on('request', (request) => {
      if (/\/api\/tasks\/\d+(\/move)?$/.test(new URL(request.url()).pathname) && request.method() !== 'GET')
        writes.push(request.method());
    });
    await goOffline(context, page);

    const drag = async (title: string, key: 'ArrowDown' | 'ArrowUp') => {
      await card(page, title).getByRole('button', { name: 'Drag to reorder' }).focus();
      await page.keyboard.press('Space');
      await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
      await page.keyboard.press(key);
      await page.keyboard.press('Space');
    };
    // A reorder: Sort one up; then Wash down across the header, to the top of 'Shelf'.
    await drag('Sort the screws', 'ArrowUp');
    await expect
      .poll(() => titles(page))
      .toEqual(['Sort the screws', 'Sweep the floor', 'Paint the door', 'Wash the car', 'Fix the bike']);
    await drag('Wash the car', 'ArrowDown');
    await expect
      .poll(rows)
      .toEqual([
        'Sort the screws',
        'Sweep the floor',
        'Paint the door',
        '# Shelf',
        'Wash the car',
        'Fix the bike',
      ]);
    // To another project, by the palette.
    await card(page, 'Paint the door').focus();
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await palette.waitFor();
    await page.keyboard.type('move task');
    await palette.getByRole('option', { name: 'Move task to…' }).waitFor();
    await page.keyboard.press('Enter');
    await palette.getByRole('option', { name: /^Attic/ }).waitFor();
    await page.keyboard.type('attic');
    await page.keyboard.press('Enter');
    await card(page, 'Paint the door').waitFor({ state: 'detached' });
    expect(writes).toEqual([]);

    await context.setOffline(false);
    const tasksOf = (id: number) => call<Task[]>('GET', `/api/tasks?projectId=${id}`);
    await expect
      .poll(async () => (await tasksOf(other.id)).map((task) => task.title))
      .toEqual(['Paint the door']);
    const inSection = async (id: number | null) =>
      (await tasksOf(project.id)).filter((task) => task.sectionId === id).map((task) => task.title);
    await expect.poll(() => inSection(shelf.id)).toEqual(['Wash the car', 'Fix the bike']);
    expect(await inSection(null)).toEqual(['Sort the screws', 'Sweep the floor']);
    // Each sent once: two moves and one PATCH.
    expect(writes.sort()).toEqual(['PATCH', 'POST', 'POST']);
  });

  it('ticks a checklist item and adds a comment offline: shown at once, saved once', async () => {
    const call = await api();
    const task = await createTask(call, 'Plan the picnic');
    const item = await call<ChecklistItem>('POST', `${taskPath(task.id)}/checklist`, { title: 'Bread' });
    const { page, context } = await signedIn();
    const scope = card(page, 'Plan the picnic');
    await scope.getByRole('button', { name: 'Expand task' }).click();
    const checklist = scope.getByRole('region', { name: 'Checklist' });
    await checklist.getByRole('checkbox', { name: 'Bread' }).waitFor();
    const composer = scope.getByRole('textbox', { name: 'Add a comment' });
    await composer.waitFor();
    await goOffline(context, page);

    await checklist.getByRole('checkbox', { name: 'Bread' }).click();
    await checklist.getByRole('checkbox', { name: 'Bread', checked: true }).waitFor();
    await composer.fill('Bring the **blue** blanket');
    await scope.getByRole('button', { name: 'Comment', exact: true }).click();
    const comment = scope.getByRole('listitem').filter({ hasText: 'Bring the blue blanket' });
    await comment.waitFor();
    await comment.getByText('Not saved yet').waitFor();
    expect(await comment.getByRole('button', { name: 'Edit comment' }).count()).toBe(0);

    await context.setOffline(false);
    const comments = () => call<Comment[]>('GET', `${taskPath(task.id)}/comments`);
    await expect
      .poll(async () => (await comments()).map((c) => c.body))
      .toEqual(['Bring the **blue** blanket']);
    await expect
      .poll(async () => (await call<ChecklistItem[]>('GET', `${taskPath(task.id)}/checklist`))[0]?.done)
      .toBe(true);
    expect(item.done).toBe(false);
    // The thread shows the saved comment (no longer waiting), once.
    await expect.poll(() => comment.getByText('Not saved yet').count()).toBe(0);
    expect(await scope.getByRole('listitem').filter({ hasText: 'Bring the blue blanket' }).count()).toBe(1);
    expect((await comments()).length).toBe(1);
  });
});
