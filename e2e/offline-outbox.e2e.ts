import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import { expect, it } from 'vitest';
import type { ActivityEntry } from '../src/common/activity';
import type { CredentialsResponse } from '../src/common/admin';
import { OFFLINE_COPY } from '../src/common/offline';
import type { Project } from '../src/common/projects';
import { type Task, taskPath } from '../src/common/tasks';
import {
  ADMIN,
  type ApiSession,
  apiAs,
  browserSuite,
  budget,
  describeBrowser,
  expectAccessible,
  framesDrawn,
  type OpenPage,
  openPage,
  signIn,
} from './harness';

/**
 * Issue 31, the outbox: task edits made offline show at once, wait in IndexedDB (through a closed
 * tab), and are saved exactly once when the connection returns, also when the answer to the first
 * try is lost; two tabs send each change once; a conflict is merged and told, with 'Use mine'; a
 * change the server refuses is taken back with a toast. The server is checked through the API.
 */
describeBrowser('the outbox', () => {
  // Offline, the browser logs every failed load as a console error.
  const suite = browserSuite({ expectNoErrors: false });

  type Api = ApiSession;
  const createTask = (api: Api, title: string, extra: Record<string, unknown> = {}) =>
    api.createTask(title, extra);
  const serverTask = (api: Api, id: number) => api.call<Task>('GET', taskPath(id));
  const renames = async (api: Api, id: number) =>
    (await api.call<ActivityEntry[]>('GET', `${taskPath(id)}/activity`)).filter((e) => e.kind === 'renamed')
      .length;

  /** A signed-in admin tab (the service worker allowed when the test opens a tab offline). */
  async function signedIn(serviceWorker = false): Promise<OpenPage> {
    const tab = await openPage(
      suite.browser,
      suite.server,
      '/',
      serviceWorker ? { serviceWorkers: 'allow' } : {},
    );
    suite.opened.push(tab);
    await signIn(tab.page);
    return tab;
  }

  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const titleButton = (page: Page, title: string) =>
    card(page, title).getByRole('heading').getByRole('button', { name: title, exact: true });
  const toasts = (page: Page) => page.getByRole('region', { name: /Notifications/ });
  /** The header's status (the shell's): 'Offline: 1 change waiting'. */
  const status = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text });

  async function renameOnScreen(page: Page, from: string, to: string) {
    await titleButton(page, from).click();
    await page.getByLabel('Title').fill(to);
    await page.keyboard.press('Enter');
    await titleButton(page, to).waitFor();
  }

  async function goOffline(context: BrowserContext, ...pages: Page[]) {
    await context.setOffline(true);
    for (const page of pages) await expect.poll(() => page.evaluate(() => navigator.onLine)).toBe(false);
  }

  /** The changes waiting in the outbox's IndexedDB store (every person's), read without opening it first. */
  function waitingInStore(page: Page): Promise<number> {
    return page.evaluate(async () => {
      const names = (await indexedDB.databases()).map((db) => db.name);
      if (!names.includes('tasklane-outbox')) return 0;
      return new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('tasklane-outbox');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('entries')) {
            db.close();
            resolve(0);
            return;
          }
          const all = db.transaction('entries').objectStore('entries').getAll();
          all.onsuccess = () => {
            db.close();
            resolve((all.result as unknown[][]).reduce((count, list) => count + list.length, 0));
          };
        };
      });
    });
  }

  /** The task PATCHes the page sends (each try), with their headers. */
  function watchPatches(page: Page): Request[] {
    const seen: Request[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH' && /^\/api\/tasks\/\d+$/.test(new URL(request.url()).pathname))
        seen.push(request);
    });
    return seen;
  }

  it('shows an offline title edit at once, counts it, and saves it once on reconnecting', async () => {
    const admin = await apiAs(suite.server.url, ADMIN);
    const task = await createTask(admin, 'Call the plumber');
    const { page, context } = await signedIn();
    await titleButton(page, 'Call the plumber').waitFor();
    const patches = watchPatches(page);

    await goOffline(context, page);
    await renameOnScreen(page, 'Call the plumber', 'Call the plumber at 9');
    await status(page, OFFLINE_COPY.offlineWaiting(1)).waitFor();
    expect(await waitingInStore(page)).toBe(1);
    expect(patches).toHaveLength(0);
    expect((await serverTask(admin, task.id)).title).toBe('Call the plumber');

    await context.setOffline(false);
    await expect.poll(() => serverTask(admin, task.id).then((t) => t.title)).toBe('Call the plumber at 9');
    await expect.poll(() => waitingInStore(page)).toBe(0);
    expect(await renames(admin, task.id)).toBe(1);
    expect(patches).toHaveLength(1);
    expect(patches[0]!.headers()['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    await titleButton(page, 'Call the plumber at 9').waitFor();
  });

  it('saves each field edited offline once: description, notes, due date and time, priority, labels', async () => {
    const admin = await apiAs(suite.server.url, ADMIN);
    const label = await admin.call<{ id: number }>('POST', '/api/labels', { name: 'errand', color: 'red' });
    const task = await createTask(admin, 'Collect the parcel');
    const { page, context } = await signedIn();
    const scope = card(page, 'Collect the parcel');
    await scope.getByRole('button', { name: 'Expand task' }).click();
    // Expanded online, the card has read the task in full (its notes) and the labels.
    await scope.getByRole('textbox', { name: 'Notes' }).waitFor();
    await scope.getByRole('checkbox', { name: 'errand' }).waitFor();

    await goOffline(context, page);
    await scope.getByRole('button', { name: 'Click to add description...' }).click();
    await scope.getByLabel('Description').fill('At the post office');
    await page.keyboard.press('Enter');
    await scope.getByText('At the post office').waitFor();
    const date = scope.getByLabel('Due date');
    await date.fill('2030-03-14');
    await date.blur();
    const time = scope.getByLabel('Due time');
    await expect.poll(() => time.isEnabled()).toBe(true);
    await time.fill('09:30');
    await time.blur();
    await scope.getByLabel('Priority').selectOption({ label: 'Priority 2 (high)' });
    await scope.getByRole('checkbox', { name: 'errand' }).check();
    await scope.getByRole('textbox', { name: 'Notes' }).fill('Bring the slip');
    await scope.getByRole('button', { name: 'Collapse task' }).click();
    await expect.poll(() => waitingInStore(page)).toBe(6);
    // Shown at once on the card, while nothing reached the server.
    await scope.getByText('At the post office').waitFor();
    expect(await scope.getByText('errand').count()).toBeGreaterThan(0);
    expect((await serverTask(admin, task.id)).description).toBeNull();

    await context.setOffline(false);
    await expect.poll(() => waitingInStore(page)).toBe(0);
    const saved = await serverTask(admin, task.id);
    expect(saved).toMatchObject({
      description: 'At the post office',
      notes: 'Bring the slip',
      dueDate: '2030-03-14',
      dueTime: '09:30',
      priority: 2,
      labels: [{ id: label.id, name: 'errand' }],
    });
    const kinds = (await admin.call<ActivityEntry[]>('GET', `${taskPath(task.id)}/activity`)).map(
      (e) => e.kind,
    );
    expect(kinds.filter((kind) => kind === 'description_changed')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'priority_changed')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'labels_changed')).toHaveLength(1);
    // No edit needed a merge: each was sent on the version the one before it made.
    expect(saved.version).toBe(task.version + 6);
  });

  it('keeps showing a waiting edit over what the server answers until it is saved', async () => {
    const admin = await apiAs(suite.server.url, ADMIN);
    const task = await createTask(admin, 'Feed the cat');
    const { page, context } = await signedIn();
    await titleButton(page, 'Feed the cat').waitFor();

    await goOffline(context, page);
    await renameOnScreen(page, 'Feed the cat', 'Feed the cat at 7');
    // Back online the server refuses writes for a while (503): the outbox cannot send, and once the
    // server answers again every list is fetched again, without the edit.
    const away = (route: Route) =>
      route.request().method() === 'PATCH'
        ? route.fulfill({ status: 503, contentType: 'application/json', body: '{"message":"Away"}' })
        : route.fallback();
    await page.route('**/api/tasks/*', away);
    const refetched = page.waitForResponse(
      (response) =>
        new URL(response.url()).pathname === '/api/tasks' && response.request().method() === 'GET',
    );
    await context.setOffline(false);
    await refetched;
    await framesDrawn(page);
    expect(await titleButton(page, 'Feed the cat at 7').count()).toBe(1);
    expect(await waitingInStore(page)).toBe(1);

    await page.unroute('**/api/tasks/*', away);
    await expect
      .poll(() => serverTask(admin, task.id).then((t) => t.title), { timeout: budget(30_000) })
      .toBe('Feed the cat at 7');
    await expect.poll(() => waitingInStore(page)).toBe(0);
    expect(await renames(admin, task.id)).toBe(1);
  });

  it('repeats a change whose answer was lost with the same key: the server does it once', async () => {
    const admin = await apiAs(suite.server.url, ADMIN);
    const task = await createTask(admin, 'Water the ferns');
    const { page, context } = await signedIn();
    await titleButton(page, 'Water the ferns').waitFor();
    const patches = watchPatches(page);
    const replayed: (string | undefined)[] = [];
    page.on('response', (response) => {
      if (response.request().method() === 'PATCH') replayed.push(response.headers()['idempotent-replayed']);
    });

    await goOffline(context, page);
    await renameOnScreen(page, 'Water the ferns', 'Water the ferns twice');
    // The first try reaches the server, and its answer never reaches the page.
    let dropped = 0;
    await page.route('**/api/tasks/*', async (route) => {
      if (route.request().method() !== 'PATCH' || dropped > 0) return route.fallback();
      dropped += 1;
      await route.fetch();
      await route.abort('failed');
    });
    await context.setOffline(false);

    await expect.poll(() => waitingInStore(page), { timeout: budget(30_000) }).toBe(0);
    expect(dropped).toBe(1);
    expect(patches.length).toBeGreaterThanOrEqual(2);
    const keys = new Set(patches.map((request) => request.headers()['idempotency-key']));
    expect(keys.size).toBe(1);
    // The answer the page heard is the first one, given again.
    expect(replayed).toEqual(['true']);
    expect((await serverTask(admin, task.id)).title).toBe('Water the ferns twice');
    expect(await renames(admin, task.id)).toBe(1);
  });

  it('keeps a change through a closed tab, and saves it once back online', async () => {
    const admin = await apiAs(suite.server.url, ADMIN);
    const task = await createTask(admin, 'Renew the passport');
    const { page, context } = await signedIn(true);
    await titleButton(page, 'Renew the passport').waitFor();
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);

    await goOffline(context, page);
    await renameOnScreen(page, 'Renew the passport', 'Renew the passport by May');
    expect(await waitingInStore(page)).toBe(1);
    await page.close();

    const again = await context.newPage();
    await again.goto('/');
    await again.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    await status(again, OFFLINE_COPY.offlineWaiting(1)).waitFor();
    // The stored lists show the edit too (the shell's kept cache, written optimistically).
    await titleButton(again, 'Renew the passport by May').waitFor();
    expect(await waitingInStore(again)).toBe(1);
    expect((await serverTask(admin, task.id)).title).toBe('Renew the passport');

    await context.setOffline(false);
    await expect
      .poll(() => serverTask(admin, task.id).then((t) => t.title))
      .toBe('Renew the passport by May');
    await expect.poll(() => waitingInStore(again)).toBe(0);
    expect(await renames(admin, task.id)).toBe(1);
    await again.close();
  });

  it('sends each change once from two tabs that were offline together', async () => {
    const admin = await apiAs(suite.server.url, ADMIN);
    const first = await createTask(admin, 'Book the dentist');
    const second = await createTask(admin, 'Pay the rent');
    const { page, context } = await signedIn();
    const other = await context.newPage();
    await other.goto('/');
    await titleButton(page, 'Pay the rent').waitFor();
    await titleButton(other, 'Book the dentist').waitFor();
    const patches = [...[page, other].map(watchPatches)];

    await goOffline(context, page, other);
    await renameOnScreen(page, 'Book the dentist', 'Book the dentist for June');
    await renameOnScreen(other, 'Pay the rent', 'Pay the rent early');
    // Each tab counts both.
    await status(page, OFFLINE_COPY.offlineWaiting(2)).waitFor();
    await status(other, OFFLINE_COPY.offlineWaiting(2)).waitFor();

    await context.setOffline(false);
    await expect.poll(() => waitingInStore(page)).toBe(0);
    expect((await serverTask(admin, first.id)).title).toBe('Book the dentist for June');
    expect((await serverTask(admin, second.id)).title).toBe('Pay the rent early');
    expect(await renames(admin, first.id)).toBe(1);
    expect(await renames(admin, second.id)).toBe(1);
    expect(patches.flat()).toHaveLength(2);
    // Each tab ends up showing both, whichever sent them.
    await titleButton(page, 'Pay the rent early').waitFor();
    await titleButton(other, 'Book the dentist for June').waitFor();
  });

  it('merges a conflict: the other edit stays, the toast offers mine, and Use mine saves it', async () => {
    const admin = await apiAs(suite.server.url, ADMIN);
    const created = await admin.call<CredentialsResponse>('POST', '/api/admin/users', {
      firstName: 'Ana',
      email: 'ana-outbox@example.com',
    });
    const ana = await apiAs(suite.server.url, {
      username: created.user.username,
      password: created.password,
    });
    const project = await admin.call<Project>('POST', '/api/projects', { name: 'Groceries', color: 'teal' });
    await admin.call('POST', `/api/projects/${project.id}/members`, {
      user: created.user.username,
      role: 'editor',
    });
    const task = await createTask(admin, 'Milk', { projectId: project.id });
    const { page, context } = await signedIn();
    await page.goto(`/projects/${project.id}`);
    await titleButton(page, 'Milk').waitFor();

    await goOffline(context, page);
    await renameOnScreen(page, 'Milk', 'Buy oat milk');
    await card(page, 'Buy oat milk').getByRole('button', { name: 'Expand task' }).click();
    await card(page, 'Buy oat milk').getByLabel('Priority').selectOption({ label: 'Priority 1 (urgent)' });
    await expect.poll(() => waitingInStore(page)).toBe(2);
    // Meanwhile Ana renames it too.
    await ana.call('PATCH', taskPath(task.id), { title: 'Buy milk' });

    await context.setOffline(false);
    const message = OFFLINE_COPY.conflict('Buy milk', 'title', 'Ana', 'Buy oat milk');
    await toasts(page)
      .getByText(message, { exact: true })
      .waitFor({ timeout: budget(30_000) });
    await expectAccessible(page, 'the conflict toast and its Use mine', '[data-toast]');
    await expect.poll(() => waitingInStore(page)).toBe(0);
    // Her title stays; my priority, which she did not touch, is merged on top.
    let now = await serverTask(admin, task.id);
    expect(now.title).toBe('Buy milk');
    expect(now.priority).toBe(1);
    await titleButton(page, 'Buy milk').waitFor();

    await toasts(page).getByRole('button', { name: OFFLINE_COPY.useMine }).click();
    await expect.poll(() => serverTask(admin, task.id).then((t) => t.title)).toBe('Buy oat milk');
    now = await serverTask(admin, task.id);
    expect(now.priority).toBe(1);
    await titleButton(page, 'Buy oat milk').waitFor();
  });

  it('takes back an edit of a task deleted meanwhile, with a toast naming it, and sends the rest', async () => {
    const admin = await apiAs(suite.server.url, ADMIN);
    const doomed = await createTask(admin, 'Return the library book');
    const kept = await createTask(admin, 'Buy stamps');
    const { page, context } = await signedIn();
    await titleButton(page, 'Return the library book').waitFor();

    await goOffline(context, page);
    await renameOnScreen(page, 'Return the library book', 'Return the book today');
    await renameOnScreen(page, 'Buy stamps', 'Buy ten stamps');
    await admin.call('DELETE', taskPath(doomed.id));

    await context.setOffline(false);
    await toasts(page)
      .getByText(OFFLINE_COPY.refused('Return the book today', '').trim(), { exact: false })
      .waitFor({ timeout: budget(30_000) });
    await card(page, 'Return the book today').waitFor({ state: 'detached' });
    await expect.poll(() => serverTask(admin, kept.id).then((t) => t.title)).toBe('Buy ten stamps');
    await expect.poll(() => waitingInStore(page)).toBe(0);
  });
});
