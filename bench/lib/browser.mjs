import os from 'node:os';
import { ADMIN } from './app.mjs';

/**
 * A page for a browser bench, at 1280x900 with no service worker. Cold: signed in through the API
 * (the session cookie and the stored session, as a sign-in leaves them) on an empty cache, the page
 * not yet opened; `beforeVisit(api, login)` runs first with that session. Warm: signed in through the
 * form, the first card shown. The caller closes the context.
 */
export async function openBenchPage(browser, url, { cold, beforeVisit }) {
  let storageState;
  if (cold) {
    const api = await browser.newContext({ baseURL: url });
    const login = await (await api.request.post('/api/auth/login', { data: ADMIN })).json();
    await beforeVisit?.(api, login);
    const { cookies } = await api.storageState();
    await api.close();
    storageState = {
      cookies,
      origins: [
        {
          origin: url,
          localStorage: [
            { name: 'sessionId', value: login.sessionId },
            { name: 'user', value: JSON.stringify(login.user) },
            { name: 'isAuthenticated', value: 'true' },
          ],
        },
      ],
    };
  }
  const context = await browser.newContext({
    baseURL: url,
    viewport: { width: 1280, height: 900 },
    serviceWorkers: 'block',
    storageState,
  });
  const page = await context.newPage();
  if (!cold) {
    await page.goto('/');
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.locator('article[data-task-id]').first().waitFor({ timeout: 60_000 });
  }
  return { context, page };
}

/**
 * A Tasklane JSON export of `count` tasks titled `${word} N: …`, imported in one request. With
 * `parents` (each task's parent as an index into the file, or null: lib/tree.mjs), the tasks carry
 * `id` and `parentId`, which the import turns into sub-tasks.
 */
export function exportFile(count, word = 'Task', parents) {
  const tasks = Array.from({ length: count }, (_, i) => ({
    ...(parents && { id: i + 1, parentId: parents[i] === null ? null : parents[i] + 1 }),
    title: `${word} ${i + 1}: ${['write', 'review', 'plan', 'call', 'fix'][i % 5]} the ${['report', 'draft', 'budget', 'invoice'][i % 4]}`,
    description:
      i % 3 === 0 ? `Details for ${word.toLowerCase()} ${i + 1}, long enough to wrap on a phone.` : null,
    dueDate: i % 4 === 0 ? `2027-0${(i % 9) + 1}-1${i % 10}` : null,
    completed: false,
    archived: false,
    checklistItems: [],
  }));
  return JSON.stringify({ format: 'tasklane', version: 1, tasks, agents: [] });
}

/** POST /api/import of `count` tasks into the Inbox through a Playwright request context (its session). */
export async function importTasks(api, url, count, { word, headers, parents } = {}) {
  const imported = await api.post('/api/import', {
    headers: { origin: url, ...headers },
    multipart: {
      file: {
        name: 'tasks.json',
        mimeType: 'application/json',
        buffer: Buffer.from(exportFile(count, word, parents)),
      },
    },
  });
  if (!imported.ok()) throw new Error(`import failed: ${await imported.text()}`);
}

/**
 * Installed before the app's own scripts: long tasks as they happen, and when a card (`selector`)
 * was usable: on the page and a frame painted with it. Watched in the page: a locator's wait polls
 * at up to 500 ms intervals, which the figure would include.
 */
export const OBSERVE = (selector) => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      window.__longTasks.push({ start: entry.startTime, ms: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  window.__usable = new Promise((resolve) => {
    const cards = new MutationObserver(() => {
      if (!document.querySelector(selector)) return;
      cards.disconnect();
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now())));
    });
    cards.observe(document, { childList: true, subtree: true });
  });
};

/**
 * Where the load's time went, read in the page once the cards are usable (all from navigation
 * start): first paint, the scripts, the list (asked, answered, bytes, and the server's own
 * milliseconds and whether it came from its cache: Server-Timing), the sections, the long tasks.
 */
export const BREAKDOWN = () => {
  const resources = performance.getEntriesByType('resource');
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const list = resources.find(
    (entry) =>
      /\/api\/tasks\?/.test(entry.name) &&
      entry.name.includes('view=summary') &&
      !entry.name.includes('projectId=all'),
  );
  const timing = list?.serverTiming?.find((metric) => metric.name === 'list');
  const sections = resources.find((entry) => /\/api\/projects\/\d+\/sections$/.test(entry.name));
  const scripts = resources.filter((entry) => entry.initiatorType === 'script' || /\.js$/.test(entry.name));
  return {
    firstPaintMs: paint ? paint.startTime : Number.NaN,
    listRequestMs: list ? list.requestStart : Number.NaN,
    listAnswerMs: list ? list.responseEnd : Number.NaN,
    listBytes: list ? list.transferSize : Number.NaN,
    listServerMs: timing ? timing.duration : Number.NaN,
    listCached: timing ? timing.description === 'cached' : undefined,
    sectionsAnswerMs: sections ? sections.responseEnd : Number.NaN,
    scriptsDoneMs: Math.max(0, ...scripts.map((entry) => entry.responseEnd)),
    scriptBytes: scripts.reduce((sum, entry) => sum + entry.transferSize, 0),
    longTasks: window.__longTasks.map((task) => task.ms),
  };
};

/** `min X / median Y` of the finite values. */
export const fmt = (values, digits = 0) => {
  const clean = values.filter((v) => Number.isFinite(v));
  if (clean.length === 0) return 'n/a';
  const sorted = [...clean].sort((a, b) => a - b);
  return `min ${sorted[0].toFixed(digits)} / median ${sorted[Math.floor(sorted.length / 2)].toFixed(digits)}`;
};

/** The lines every browser bench prints for a set of loads (BREAKDOWN's figures and `usableMs`). */
export function printLoads(print, label, set, { target, what = 'usable' }) {
  print(label);
  print(`  ${what.padEnd(18)}  ${fmt(set.map((r) => r.usableMs))} ms (target < ${target})`);
  print(`  first paint         ${fmt(set.map((r) => r.firstPaintMs))} ms`);
  print(
    `  scripts loaded      ${fmt(set.map((r) => r.scriptsDoneMs))} ms, ${fmt(set.map((r) => r.scriptBytes / 1024))} KB sent`,
  );
  print(`  list asked          ${fmt(set.map((r) => r.listRequestMs))} ms`);
  const cached = set.filter((r) => r.listCached).length;
  print(
    `  list answered       ${fmt(set.map((r) => r.listAnswerMs))} ms, ${fmt(set.map((r) => r.listBytes / 1024))} KB sent; server ${fmt(
      set.map((r) => r.listServerMs),
      1,
    )} ms, from its cache ${cached} of ${set.length}`,
  );
  if (set.some((r) => Number.isFinite(r.sectionsAnswerMs)))
    print(`  sections answered   ${fmt(set.map((r) => r.sectionsAnswerMs))} ms`);
  print(
    `  long tasks (load)   total ${fmt(set.map((r) => r.longTasks.reduce((a, b) => a + b, 0)))} ms, longest ${fmt(set.map((r) => Math.max(0, ...r.longTasks)))} ms`,
  );
}

export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
