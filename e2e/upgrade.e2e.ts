import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { UPDATE_COPY } from '../src/client/lib/app-update';
import { TOASTS } from '../src/common/spec';
import type { Task } from '../src/common/tasks';
import {
  apiFromPage,
  createTaskFromPage,
  DIST,
  describeBrowser,
  framesDrawn,
  launchBrowser,
  type OpenPage,
  openPage,
  type RunningServer,
  signIn,
  startServer,
} from './harness';

/**
 * Issue 28: a page left open across a rebuild or an upgrade asks for a lazily loaded script by the
 * name its build gave it. Earlier builds' assets stay beside a new build's (decision 048), so the
 * page goes on working; where they are gone (kept long enough, or a new container image), the page
 * reloads itself at a moment nobody is typing, and shows what it could not show before.
 *
 * A full build is slow on a shared machine, so each test serves a copy of the built app and changes
 * it as a new build would, under the running server.
 */
describeBrowser('an open page across a new build', () => {
  let browser: Browser;
  const running: { dist: string; server: RunningServer }[] = [];
  const opened: OpenPage[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(({ context }) => context.close()));
    for (const { dist, server } of running.splice(0)) {
      await server.stop();
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A copy of the built app in a folder of its own, and a server running it. */
  async function copyOfTheApp() {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-upgrade-'));
    fs.cpSync(path.join(DIST, 'client'), path.join(dist, 'client'), { recursive: true });
    fs.cpSync(path.join(DIST, 'server'), path.join(dist, 'server'), {
      recursive: true,
      filter: (source) => path.basename(source) !== 'node_modules',
    });
    fs.symlinkSync(path.resolve('node_modules'), path.join(dist, 'server', 'node_modules'), 'dir');
    const server = await startServer({}, { dist });
    running.push({ dist, server });
    return { dist, server };
  }

  /**
   * What a new build does to dist, as an open page sees it: every hashed asset under a new name (its
   * content changed), index.html and the service worker naming the new ones. `keepEarlier` keeps the
   * old assets beside them, as a build does (decision 048); without it they are gone, as when kept
   * past their time or in a new container image.
   */
  function newBuild(dist: string, { keepEarlier }: { keepEarlier: boolean }) {
    const assets = path.join(dist, 'client', 'assets');
    const names = fs.readdirSync(assets).filter((name) => !/\.(br|gz)$/.test(name));
    const renamed = new Map(names.map((name) => [name, name.replace(/\.(\w+)$/, '-next.$1')]));
    const pattern = new RegExp(
      names.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
      'g',
    );
    const rename = (file: string) =>
      fs.readFileSync(file, 'utf8').replace(pattern, (name) => renamed.get(name)!);
    for (const name of names)
      fs.writeFileSync(path.join(assets, renamed.get(name)!), rename(path.join(assets, name)));
    if (!keepEarlier)
      for (const name of fs.readdirSync(assets))
        if (!name.includes('-next.')) fs.rmSync(path.join(assets, name));
    for (const file of ['index.html', 'sw.js']) {
      const full = path.join(dist, 'client', file);
      fs.writeFileSync(full, rename(full));
      fs.rmSync(`${full}.br`, { force: true });
      fs.rmSync(`${full}.gz`, { force: true });
    }
  }

  async function open(server: RunningServer): Promise<OpenPage> {
    const tab = await openPage(browser, server);
    opened.push(tab);
    return tab;
  }

  /** A signed-in page showing one task, all its scripts from the build the server had when it opened. */
  async function signedInWithATask(server: RunningServer, title: string): Promise<OpenPage> {
    const tab = await open(server);
    await signIn(tab.page);
    await createTaskFromPage(tab.page, title);
    await tab.page.reload();
    await card(tab.page, title).waitFor();
    return tab;
  }

  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const toasts = (page: Page) => page.getByRole('region', { name: /Notifications/ });
  const notice = (page: Page) => page.getByRole('status').filter({ hasText: UPDATE_COPY.notice });
  const scriptsOf = (page: Page) =>
    page.evaluate(() =>
      performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname),
    );
  const taskTitles = async (page: Page) =>
    (await apiFromPage<Task[]>(page, 'GET', '/api/tasks')).map((task) => task.title).sort();

  async function deleteTask(page: Page, title: string) {
    await card(page, title).getByRole('heading').getByRole('button', { name: title, exact: true }).hover();
    await card(page, title).getByRole('button', { name: 'Delete Task' }).click();
    await toasts(page).getByText(TOASTS.taskDeleted[0], { exact: true }).waitFor();
    await card(page, title).waitFor({ state: 'detached' });
  }

  /** What an open page logs when a script of its build is gone: the failed load, nothing else. */
  const unexpected = (errors: string[]) =>
    errors.filter(
      (error) => !/dynamically imported module|Unable to preload CSS|Refused to apply style/.test(error),
    );

  it('keeps working where the earlier build’s assets were kept, and a new page gets the new build from the same server', async () => {
    const { dist, server } = await copyOfTheApp();
    const before = await signedInWithATask(server, 'Before the upgrade');
    expect((await scriptsOf(before.page)).some((name) => name.startsWith('/assets/toast-list-'))).toBe(false);

    newBuild(dist, { keepEarlier: true });
    // The page opened before asks for its own build's toasts, kept beside the new build's.
    await deleteTask(before.page, 'Before the upgrade');
    const loaded = (await scriptsOf(before.page)).filter((name) => name.startsWith('/assets/toast-list-'));
    expect(loaded).toHaveLength(1);
    expect(loaded[0]).not.toContain('-next.');
    expect(before.errors).toEqual([]);

    // A page opened now gets the new build, whose assets the server never saw when it started.
    const after = await signedInWithATask(server, 'After the upgrade');
    await deleteTask(after.page, 'After the upgrade');
    const scripts = (await scriptsOf(after.page)).filter((name) => name.startsWith('/assets/'));
    expect(scripts.length).toBeGreaterThan(2);
    expect(scripts.filter((name) => !name.includes('-next.'))).toEqual([]);
    expect(after.errors).toEqual([]);
  });

  it('reloads a page whose scripts are gone once nobody is typing, and then shows what it could not', async () => {
    const { dist, server } = await copyOfTheApp();
    const { page, errors } = await signedInWithATask(server, 'Before the upgrade');
    newBuild(dist, { keepEarlier: false });
    await page.evaluate(() => Object.assign(window, { openedBeforeTheUpgrade: true }));
    const sameDocument = () => page.evaluate(() => 'openedBeforeTheUpgrade' in window);

    // Quick add's date reader and the toasts are loaded on first use: both are gone. The task is
    // saved all the same (no date chip showed, so the title is the words as typed).
    const quickAdd = page.getByRole('textbox', { name: 'Add a task' });
    await quickAdd.fill('Buy milk');
    await quickAdd.press('Enter');
    await expect.poll(() => taskTitles(page)).toEqual(['Before the upgrade', 'Buy milk']);
    await expect.poll(() => quickAdd.inputValue()).toBe('');

    // Someone typing is never interrupted: the page says why it will reload, and waits.
    await notice(page).waitFor();
    await quickAdd.pressSequentially('Half a thought', { delay: 150 });
    expect(await sameDocument()).toBe(true);
    expect(await quickAdd.inputValue()).toBe('Half a thought');
    // Nor are words left in a field the person moved away from.
    await quickAdd.press('Tab');
    await framesDrawn(page);
    expect(await sameDocument()).toBe(true);
    expect(await quickAdd.inputValue()).toBe('Half a thought');

    // Done typing: the words are cleared and the field left. The page reloads with the new build.
    await quickAdd.fill('');
    const reloaded = page.waitForEvent('load');
    await quickAdd.press('Tab');
    await reloaded;
    expect(await sameDocument()).toBe(false);
    expect(unexpected(errors)).toEqual([]);
    errors.length = 0;

    // The toast the old page could not show, then everything works on the new build.
    await toasts(page).getByText(TOASTS.taskCreated, { exact: true }).waitFor();
    await card(page, 'Buy milk').waitFor();
    await notice(page).waitFor({ state: 'detached' });
    await deleteTask(page, 'Before the upgrade');
    const scripts = (await scriptsOf(page)).filter((name) => name.startsWith('/assets/'));
    expect(scripts.filter((name) => !name.includes('-next.'))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('reloads only once for a script the server lacks after the reload too, and leaves the button', async () => {
    const { dist, server } = await copyOfTheApp();
    const { page } = await signedInWithATask(server, 'Before the upgrade');
    // A deployment that lacks a script of its own build (quick add's date reader, never loaded
    // here, so in no cache): a reload cannot bring it back.
    const assets = path.join(dist, 'client', 'assets');
    for (const name of fs.readdirSync(assets))
      if (name.startsWith('quick-add-')) fs.rmSync(path.join(assets, name));
    const quickAdd = page.getByRole('textbox', { name: 'Add a task' });

    await quickAdd.focus();
    await notice(page).getByText(UPDATE_COPY.whenSafe).waitFor();
    const reloaded = page.waitForEvent('load');
    await quickAdd.press('Tab');
    await reloaded;

    // After the reload the script is still missing: the page says so and waits for a hand.
    await page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    await page.evaluate(() => Object.assign(window, { reloadedOnce: true }));
    await quickAdd.focus();
    const reload = notice(page).getByRole('button', { name: UPDATE_COPY.reload });
    await reload.waitFor();
    expect(await notice(page).textContent()).not.toContain(UPDATE_COPY.whenSafe);
    await quickAdd.press('Tab');
    await framesDrawn(page);
    expect(await page.evaluate(() => 'reloadedOnce' in window)).toBe(true);

    const byHand = page.waitForEvent('load');
    await reload.click();
    await byHand;
    expect(await page.evaluate(() => 'reloadedOnce' in window)).toBe(false);
  });

  it('brings back a page whose signed-in screens are gone when someone signs in on it', async () => {
    const { dist, server } = await copyOfTheApp();
    // The login screen, opened before the upgrade, has not loaded the signed-in screens.
    const { page, errors } = await open(server);
    await page.getByRole('button', { name: 'Sign In', exact: true }).waitFor();
    newBuild(dist, { keepEarlier: false });

    const reloaded = page.waitForEvent('load');
    await signIn(page);
    await reloaded;
    await page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    const scripts = (await scriptsOf(page)).filter((name) => name.startsWith('/assets/'));
    expect(scripts.filter((name) => !name.includes('-next.'))).toEqual([]);
    expect(unexpected(errors)).toEqual([]);
  });
});
