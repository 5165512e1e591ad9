import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { localIsoDate } from '../src/client/tasks/dates';
import { addDays } from '../src/common/due';
import { OFFLINE_COPY } from '../src/common/offline';
import type { Project } from '../src/common/projects';
import { COPY } from '../src/common/spec';
import {
  apiFromPage,
  browserSuite,
  createTaskFromPage,
  DIST,
  describeBrowser,
  launchBrowser,
  newTaskBody,
  type OpenPage,
  openPage,
  type RunningServer,
  signIn,
  startServer,
} from './harness';

/** The service worker serves the app offline: this file lets it run (the harness blocks it elsewhere). */
const WITH_SERVICE_WORKER = { serviceWorkers: 'allow' } as const;

/**
 * Issue 31, the shell: what the person last saw is kept in IndexedDB and shown by a reload without a
 * connection; the header says 'Offline' (politely announced); what needs the server says so and is
 * disabled; signing out deletes what is kept.
 */
describeBrowser('offline use: the shell', () => {
  // Offline, the page's failed loads (the live stream, the session's check) are logged as errors.
  const suite = browserSuite({ expectNoErrors: false });

  async function open(): Promise<OpenPage> {
    const tab = await openPage(suite.browser, suite.server, '/', WITH_SERVICE_WORKER);
    suite.opened.push(tab);
    return tab;
  }

  /** The service worker is active and controls the page: the app itself opens offline. */
  async function controlled(page: Page) {
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  }

  /** The query keys kept for the signed-in person (offline/persist.ts), as the page's IndexedDB has them. */
  const storedKeys = (page: Page) =>
    page.evaluate(
      () =>
        new Promise<string[]>((resolve, reject) => {
          const opening = indexedDB.open('tasklane-query-cache');
          opening.onerror = () => reject(opening.error);
          opening.onsuccess = () => {
            const db = opening.result;
            if (!db.objectStoreNames.contains('clients')) return resolve([]);
            const user = JSON.parse(localStorage.getItem('user') ?? '{}') as { id?: number };
            const read = db.transaction('clients').objectStore('clients').get(`user:${user.id}`);
            read.onsuccess = () => {
              const record = read.result as
                | { clientState: { queries: { queryKey: unknown[] }[] } }
                | undefined;
              resolve((record?.clientState.queries ?? []).map((query) => JSON.stringify(query.queryKey)));
              db.close();
            };
            read.onerror = () => reject(read.error);
          };
        }),
    );

  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const headerStatus = (page: Page) => page.getByRole('banner').getByRole('status');

  async function goOffline(page: Page) {
    await page.context().setOffline(true);
    await expect.poll(() => page.evaluate(() => navigator.onLine)).toBe(false);
  }

  it('reloaded offline, shows the Inbox, a project’s list, Today and Upcoming as last seen', async () => {
    const { page } = await open();
    await signIn(page);
    const today = localIsoDate(new Date());
    const trip = await apiFromPage<Project>(page, 'POST', '/api/projects', { name: 'Trip' });
    await createTaskFromPage(page, 'Inbox thought');
    await createTaskFromPage(page, 'Call the bank', { dueDate: today });
    await createTaskFromPage(page, 'Book the ferry', { dueDate: addDays(today, 3) });
    await apiFromPage(page, 'POST', '/api/tasks', newTaskBody('Pack the tent', { projectId: trip.id }));

    // Seen online: each list once, kept before the next page load (writes follow the screen closely).
    const kept = async (part: string) =>
      expect.poll(async () => (await storedKeys(page)).some((key) => key.includes(part))).toBe(true);
    await page.reload();
    await card(page, 'Inbox thought').waitFor();
    await controlled(page);
    await kept('["/api/tasks"]');
    await page.goto(`/projects/${trip.id}`);
    await card(page, 'Pack the tent').waitFor();
    await kept(`"projectId":"${trip.id}"`);
    await page.goto('/today');
    await card(page, 'Call the bank').waitFor();
    await kept('"dueTo"');
    await page.goto('/upcoming');
    await card(page, 'Book the ferry').waitFor();
    await kept('"dueFrom"');
    // Kept for the person: the lists and what draws them, from every page load, never a search.
    const keys = await storedKeys(page);
    for (const key of ['["/api/tasks"]', '["/api/projects"]', '["/api/labels"]'])
      expect(keys, key).toContain(key);
    expect(keys).toContainEqual(expect.stringContaining(`"projectId":"${trip.id}"`));
    expect(keys.filter((key) => key.includes('"q"'))).toEqual([]);

    await goOffline(page);
    await page.goto('/');
    await card(page, 'Inbox thought').waitFor();
    await headerStatus(page).filter({ hasText: OFFLINE_COPY.offline }).waitFor();
    // The session survived the failed check of an offline start.
    expect(await page.evaluate(() => localStorage.getItem('isAuthenticated'))).toBe('true');
    await page.goto(`/projects/${trip.id}`);
    await card(page, 'Pack the tent').waitFor();
    await page.goto('/today');
    await card(page, 'Call the bank').waitFor();
    await page.goto('/upcoming');
    await card(page, 'Book the ferry').waitFor();
    // 'Reconnecting…' is for a server that is away while the network is there: never with 'Offline'.
    expect(await page.getByText('Reconnecting…').count()).toBe(0);

    // Back online: the status goes and the lists are the server's again, without a reload.
    await page.context().setOffline(false);
    await headerStatus(page).filter({ hasText: OFFLINE_COPY.offline }).waitFor({ state: 'detached' });
    await apiFromPage(page, 'POST', '/api/tasks', {
      userId: 1,
      title: 'Added since',
      description: null,
      dueDate: addDays(today, 2),
      completed: false,
      archived: false,
      position: 0,
      contextId: null,
    });
    await card(page, 'Added since').waitFor();
  });

  it('says ‘Offline’ in the header, politely, and nothing once back online', async () => {
    const { page } = await open();
    await signIn(page);
    const status = headerStatus(page);
    // The live region is on the page before it has anything to say, so the change is announced.
    expect(await status.getAttribute('aria-live')).toBe('polite');
    expect((await status.textContent())?.trim()).toBe('');

    await goOffline(page);
    await expect.poll(() => status.textContent()).toBe(OFFLINE_COPY.offline);
    // One status says it: the signed-out notice stays quiet.
    expect(await page.getByRole('status').filter({ hasText: OFFLINE_COPY.offline }).count()).toBe(1);

    await page.context().setOffline(false);
    await expect.poll(() => status.textContent()).toBe('');
  });

  it('disables what needs the server offline, saying ‘Needs a connection’', async () => {
    const { page } = await open();
    await signIn(page);
    await createTaskFromPage(page, 'With a file, later');
    await page.reload();
    await card(page, 'With a file, later').waitFor();
    await goOffline(page);

    // Uploads: the files menu's 'Add files'.
    await card(page, 'With a file, later').getByRole('button', { name: COPY.noFiles }).click();
    const addFiles = page.getByRole('menuitem', { name: new RegExp(`^${COPY.addFiles}`) });
    await addFiles.waitFor();
    expect(await addFiles.getAttribute('aria-disabled')).toBe('true');
    expect(await addFiles.textContent()).toContain(OFFLINE_COPY.needsConnection);
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });

    // AI and the admin screen: the account menu's items.
    await page.getByRole('button', { name: /^Settings for / }).click();
    for (const name of [COPY.aiAgents, 'Connect AI', COPY.manageUsers]) {
      const item = page.getByRole('menuitem', { name: new RegExp(`^${name}`) });
      expect(await item.getAttribute('aria-disabled'), name).toBe('true');
      expect(await item.textContent(), name).toContain(OFFLINE_COPY.needsConnection);
    }
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });

    // Search beyond the stored lists: the field is disabled and described by the reason.
    const search = page.getByRole('searchbox', { name: COPY.searchTasks });
    expect(await search.isDisabled()).toBe(true);
    const described = await search.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${described}"]`).textContent()).toBe(OFFLINE_COPY.needsConnection);

    // Online again, all of it works as before.
    await page.context().setOffline(false);
    await expect.poll(() => search.isDisabled()).toBe(false);
    expect(await page.getByText(OFFLINE_COPY.needsConnection).count()).toBe(0);
  });

  /** The changes waiting in the outbox's store (offline/outbox.ts), every person's. */
  const waitingInOutbox = (page: Page) =>
    page.evaluate(async () => {
      if (!(await indexedDB.databases()).some((db) => db.name === 'tasklane-outbox')) return 0;
      return new Promise<number>((resolve, reject) => {
        const opening = indexedDB.open('tasklane-outbox');
        opening.onerror = () => reject(opening.error);
        opening.onsuccess = () => {
          const db = opening.result;
          if (!db.objectStoreNames.contains('entries')) return resolve(0);
          const all = db.transaction('entries').objectStore('entries').getAll();
          all.onsuccess = () => {
            db.close();
            resolve((all.result as unknown[][]).reduce((count, list) => count + list.length, 0));
          };
        };
      });
    });

  it('counts the changes waiting in the header, and signing out with them asks first', async () => {
    const { page } = await open();
    await signIn(page);
    await goOffline(page);
    const quickAdd = page.getByRole('textbox', { name: 'Add a task' });
    for (const title of ['Buy stamps', 'Post the letter']) {
      await quickAdd.fill(title);
      await quickAdd.press('Enter');
      await card(page, title).waitFor();
    }
    await expect.poll(() => headerStatus(page).textContent()).toBe(OFFLINE_COPY.offlineWaiting(2));
    expect(OFFLINE_COPY.offlineWaiting(2)).toBe('Offline: 2 changes waiting');

    // Staying: nothing is lost, and focus is back on the menu's button.
    const settings = page.getByRole('button', { name: /^Settings for / });
    await settings.click();
    await page.getByRole('menuitem', { name: COPY.logOut }).click();
    const question = page.getByRole('alertdialog');
    await question.getByText(OFFLINE_COPY.signOutWaiting(2)).waitFor();
    expect(OFFLINE_COPY.signOutWaiting(2)).toBe('2 changes have not been saved yet. Sign out anyway?');
    await question.getByRole('button', { name: 'Cancel' }).click();
    await question.waitFor({ state: 'detached' });
    await expect.poll(() => settings.evaluate((button) => button === document.activeElement)).toBe(true);
    expect(await waitingInOutbox(page)).toBe(2);

    // Signing out anyway: the outbox and the kept lists go with the session.
    await settings.click();
    await page.getByRole('menuitem', { name: COPY.logOut }).click();
    await question.getByRole('button', { name: OFFLINE_COPY.signOutAnyway }).click();
    await page.getByRole('button', { name: COPY.signIn, exact: true }).waitFor();
    expect(await waitingInOutbox(page)).toBe(0);
    expect(await storedKeys(page)).toEqual([]);

    // Nothing of it reaches the server once back online and signed in again.
    await page.context().setOffline(false);
    await signIn(page);
    const titles = (await apiFromPage<{ title: string }[]>(page, 'GET', '/api/tasks')).map((t) => t.title);
    expect(titles).not.toContain('Buy stamps');
    expect(titles).not.toContain('Post the letter');
  });

  it('signing out deletes what was kept for the person', async () => {
    const { page } = await open();
    await signIn(page);
    await createTaskFromPage(page, 'Kept until sign-out');
    await page.reload();
    await card(page, 'Kept until sign-out').waitFor();
    await expect.poll(async () => (await storedKeys(page)).includes('["/api/tasks"]')).toBe(true);
    const userId = await page.evaluate(
      () => (JSON.parse(localStorage.getItem('user')!) as { id: number }).id,
    );

    await page.getByRole('button', { name: /^Settings for / }).click();
    await page.getByRole('menuitem', { name: COPY.logOut }).click();
    await page.getByRole('button', { name: COPY.signIn, exact: true }).waitFor();
    const left = await page.evaluate(
      (id) =>
        new Promise<unknown>((resolve, reject) => {
          const opening = indexedDB.open('tasklane-query-cache');
          opening.onerror = () => reject(opening.error);
          opening.onsuccess = () => {
            const read = opening.result.transaction('clients').objectStore('clients').get(`user:${id}`);
            read.onsuccess = () => resolve(read.result ?? null);
          };
        }),
      userId,
    );
    expect(left).toBeNull();
  });
});

/**
 * Issue 31: a new version installs in the background and waits; the page offers 'A new version is
 * ready. Reload' instead of changing under the person's hands, and 'Reload' brings it in.
 */
describeBrowser('a new version of the app', () => {
  let dist: string;
  let server: RunningServer;
  let browser: Browser;
  const opened: OpenPage[] = [];

  beforeAll(async () => {
    // A copy of the built app that the test changes as a new deployment would (see upgrade.e2e.ts).
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-new-version-'));
    fs.cpSync(path.join(DIST, 'client'), path.join(dist, 'client'), { recursive: true });
    fs.cpSync(path.join(DIST, 'server'), path.join(dist, 'server'), {
      recursive: true,
      filter: (source) => path.basename(source) !== 'node_modules',
    });
    fs.symlinkSync(path.resolve('node_modules'), path.join(dist, 'server', 'node_modules'), 'dir');
    [server, browser] = await Promise.all([startServer({}, { dist }), launchBrowser()]);
  });
  afterAll(async () => {
    await Promise.all(opened.splice(0).map(({ context }) => context.close()));
    await browser?.close();
    await server?.stop();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('waits for ‘Reload’, then the new worker takes over and the page reloads', async () => {
    const tab = await openPage(browser, server, '/', WITH_SERVICE_WORKER);
    opened.push(tab);
    const { page } = tab;
    await page.getByRole('button', { name: COPY.signIn, exact: true }).waitFor();
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await page.evaluate(() => Object.assign(window, { openedBeforeTheUpdate: true }));

    // A new deployment: the worker's script changed.
    const worker = path.join(dist, 'client', 'sw.js');
    fs.appendFileSync(worker, '\n// the next version\n');
    for (const packed of ['sw.js.br', 'sw.js.gz'])
      fs.rmSync(path.join(dist, 'client', packed), { force: true });
    await page.evaluate(async () => {
      await (await navigator.serviceWorker.getRegistration())?.update();
    });

    const prompt = page.getByRole('status').filter({ hasText: OFFLINE_COPY.newVersion });
    await prompt.waitFor();
    // Installed and waiting: the page was not reloaded under the person.
    expect(await page.evaluate(() => 'openedBeforeTheUpdate' in window)).toBe(true);
    expect(
      await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting !== null),
    ).toBe(true);

    const reloaded = page.waitForEvent('load');
    await prompt.getByRole('button', { name: OFFLINE_COPY.reload }).click();
    await reloaded;
    expect(await page.evaluate(() => 'openedBeforeTheUpdate' in window)).toBe(false);
    await page.getByRole('button', { name: COPY.signIn, exact: true }).waitFor();
    expect(
      await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting ?? null),
    ).toBe(null);
    expect(await prompt.count()).toBe(0);
    expect(tab.errors).toEqual([]);
  });
});
