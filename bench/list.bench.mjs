// The active list in Chromium (playwright-core) at 1,000, 3,000 and 10,000 tasks: time from
// navigation to a usable list (the first card painted and focusable), warm (the app's files in the
// browser's cache) and cold (a signed-in person's first visit: an empty cache), each with its first
// paint, when the scripts and the list arrived and the long tasks; JS heap and DOM size once
// settled, scroll frame times, and at the largest size a keyboard reorder (Space, ArrowDown, Space)
// until the move is saved. The load average is printed with each size: the figures move with it.
//
//   npm run build && node bench/list.bench.mjs
//
// BENCH_DIST: the build to run (default dist). BENCH_SIZES: e.g. 1000,3000,10000. BENCH_REPEATS:
// runs per size (default 3; min and median are printed). CHROMIUM_PATH: the browser
// (default /usr/lib/chromium/chromium). The server logs at its default level (LOG_LEVEL=info).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ADMIN, median, print, startApp } from './lib/app.mjs';
import { openBenchPage } from './lib/browser.mjs';

const SIZES = (process.env.BENCH_SIZES ?? '1000,3000,10000').split(',').map(Number);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium';
const TARGETS = { usableMs: 1000, longTaskMs: 50, heapMb: 80, frameMs: 1000 / 60 };

/** A Tasklane JSON export of `count` tasks, imported in one request. */
function exportFile(count) {
  const tasks = Array.from({ length: count }, (_, i) => ({
    title: `Task ${i + 1}: ${['write', 'review', 'plan', 'call', 'fix'][i % 5]} the ${['report', 'draft', 'budget', 'invoice'][i % 4]}`,
    description: i % 3 === 0 ? `Details for task ${i + 1}, long enough to wrap on a phone.` : null,
    dueDate: i % 4 === 0 ? `2027-0${(i % 9) + 1}-1${i % 10}` : null,
    completed: false,
    archived: false,
    checklistItems: [],
  }));
  return JSON.stringify({ format: 'tasklane', version: 1, tasks, agents: [] });
}

/**
 * Installed before the app's own scripts: long tasks as they happen, and when the list was usable
 * (the first card is on the page and a frame has been painted with it). Watched in the page: a
 * locator's wait polls at up to 500 ms intervals, which the figure would include.
 */
const OBSERVE = () => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      window.__longTasks.push({ start: entry.startTime, ms: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  window.__usable = new Promise((resolve) => {
    const cards = new MutationObserver(() => {
      if (!document.querySelector('article[data-task-id]')) return;
      cards.disconnect();
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now())));
    });
    cards.observe(document, { childList: true, subtree: true });
  });
};

/** Where the load's time went, read in the page once the list is usable (all from navigation start). */
const BREAKDOWN = () => {
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const list = performance
    .getEntriesByType('resource')
    .find((entry) => /\/api\/tasks\?/.test(entry.name) && entry.name.includes('view=summary'));
  const scripts = performance
    .getEntriesByType('resource')
    .filter((entry) => entry.initiatorType === 'script' || /\.js$/.test(entry.name));
  return {
    firstPaintMs: paint ? paint.startTime : Number.NaN,
    listRequestMs: list ? list.requestStart : Number.NaN,
    listAnswerMs: list ? list.responseEnd : Number.NaN,
    listBytes: list ? list.transferSize : Number.NaN,
    scriptsDoneMs: Math.max(0, ...scripts.map((entry) => entry.responseEnd)),
    scriptBytes: scripts.reduce((sum, entry) => sum + entry.transferSize, 0),
  };
};

/**
 * Warm: signed in through the login screen, then the app opened afresh in the same context (its
 * scripts in the HTTP cache). Cold: a new context with an empty cache whose storage already holds a
 * session (signed in through the API): a signed-in person's first visit, or the first after an
 * upgrade changed the asset names. `changeTask`: that task is renamed first, so the server reads the
 * list afresh rather than from its cache (as after an upgrade's restart, or any change to the tasks).
 * The navigation is what is measured.
 */
async function measureOnce(browser, url, size, { cold, reorder, changeTask }) {
  const beforeVisit =
    changeTask === undefined
      ? undefined
      : async (api, login) => {
          const renamed = await api.request.patch(`/api/tasks/${changeTask}`, {
            headers: { origin: url, 'user-session': login.sessionId },
            data: { title: `Renamed at ${Date.now()}` },
          });
          if (!renamed.ok()) throw new Error(`rename failed: ${await renamed.text()}`);
        };
  const { context, page } = await openBenchPage(browser, url, { cold, beforeVisit });
  try {
    await page.addInitScript(OBSERVE);
    await page.goto('/', { waitUntil: 'commit' });
    await page.locator('article[data-task-id]').first().waitFor({ timeout: 60_000 });
    const usableMs = await page.evaluate(() => window.__usable);
    // Settled: no long task for a second.
    await page.waitForTimeout(1500);
    const breakdown = await page.evaluate(BREAKDOWN);
    const loaded = await page.evaluate(() => ({
      longTasks: window.__longTasks.map((t) => t.ms),
      heapMb: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : Number.NaN,
      elements: document.getElementsByTagName('*').length,
      cards: document.querySelectorAll('article[data-task-id]').length,
    }));
    if (cold) return { size, usableMs, ...breakdown, ...loaded };

    // Scrolling: 120 frames, 240 px a frame, through the list; each frame's interval.
    const scroll = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const before = window.__longTasks.length;
          const frames = [];
          let last = performance.now();
          let count = 0;
          const step = (now) => {
            frames.push(now - last);
            last = now;
            window.scrollBy(0, 240);
            if (++count < 120) requestAnimationFrame(step);
            else resolve({ frames, longTasks: window.__longTasks.slice(before).map((t) => t.ms) });
          };
          requestAnimationFrame(step);
        }),
    );
    await page.evaluate(() => window.scrollTo(0, 0));

    let reorderMs;
    if (reorder) {
      const handle = page.getByRole('button', { name: 'Drag to reorder' }).first();
      await handle.focus();
      await page.keyboard.press('Space');
      await page.waitForTimeout(150);
      await page.keyboard.press('ArrowDown');
      await page.waitForTimeout(300);
      const saved = page.waitForResponse((r) =>
        /\/api\/tasks\/(reorder|\d+\/move)$/.test(new URL(r.url()).pathname),
      );
      const start = Date.now();
      await page.keyboard.press('Space');
      await saved;
      reorderMs = Date.now() - start;
    }
    return { size, usableMs, ...breakdown, ...loaded, scroll, reorderMs };
  } finally {
    await context.close();
  }
}

/** The bench runs by hand: a run that hangs (a page that never settles) fails it rather than waits forever. */
const RUN_TIMEOUT_MS = 120_000;
const bounded = (promise) =>
  Promise.race([
    promise,
    new Promise((_, reject) =>
      setTimeout(
        () => reject(new Error(`a run took over ${RUN_TIMEOUT_MS / 1000} s`)),
        RUN_TIMEOUT_MS,
      ).unref(),
    ),
  ]);

const fmt = (values, digits = 0) => {
  const clean = values.filter((v) => Number.isFinite(v));
  if (clean.length === 0) return 'n/a';
  return `min ${Math.min(...clean).toFixed(digits)} / median ${median(clean).toFixed(digits)}`;
};
const sortedFrames = (frames) => [...frames].sort((a, b) => a - b);
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--enable-precise-memory-info',
  ],
});
print(
  `# list in Chromium ${browser.version()}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}, ${REPEATS} runs a size`,
);
try {
  for (const size of SIZES) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-list-bench-'));
    const app = await startApp({ DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' });
    try {
      const setup = await browser.newContext({ baseURL: app.url });
      await setup.request.post('/api/auth/login', { data: ADMIN });
      const imported = await setup.request.post('/api/import', {
        headers: { origin: app.url },
        multipart: {
          file: { name: 'tasks.json', mimeType: 'application/json', buffer: Buffer.from(exportFile(size)) },
        },
      });
      if (!imported.ok()) throw new Error(`import failed: ${await imported.text()}`);

      const largest = size === Math.max(...SIZES);
      const changeTask = JSON.parse(await (await setup.request.get('/api/tasks?view=summary')).text())[0].id;
      await setup.close();
      // The three kinds of run alternate, so a change in the machine's load touches them alike.
      const runs = [];
      const coldRuns = [];
      const changedRuns = [];
      for (let i = 0; i < REPEATS; i++) {
        runs.push(await bounded(measureOnce(browser, app.url, size, { cold: false, reorder: largest })));
        coldRuns.push(await bounded(measureOnce(browser, app.url, size, { cold: true })));
        changedRuns.push(await bounded(measureOnce(browser, app.url, size, { cold: true, changeTask })));
      }
      const frames = runs.flatMap((r) => r.scroll.frames.slice(1));
      const sorted = sortedFrames(frames);
      print(`\n## ${size.toLocaleString('en-US')} tasks (load average ${loadAverage()})`);
      for (const [label, set] of [
        ['warm (the scripts cached)', runs],
        ['cold (an empty browser cache)', coldRuns],
        ['cold, the list changed since (the server reads it afresh, as after a restart)', changedRuns],
      ]) {
        print(label);
        print(`  usable list         ${fmt(set.map((r) => r.usableMs))} ms (target < ${TARGETS.usableMs})`);
        print(`  first paint         ${fmt(set.map((r) => r.firstPaintMs))} ms`);
        print(
          `  scripts loaded      ${fmt(set.map((r) => r.scriptsDoneMs))} ms, ${fmt(set.map((r) => r.scriptBytes / 1024))} KB sent`,
        );
        print(`  list asked          ${fmt(set.map((r) => r.listRequestMs))} ms`);
        print(
          `  list answered       ${fmt(set.map((r) => r.listAnswerMs))} ms, ${fmt(set.map((r) => r.listBytes / 1024))} KB sent`,
        );
        print(
          `  long tasks (load)   total ${fmt(set.map((r) => r.longTasks.reduce((a, b) => a + b, 0)))} ms, longest ${fmt(set.map((r) => Math.max(0, ...r.longTasks)))} ms`,
        );
      }
      print(
        `JS heap               ${fmt(
          runs.map((r) => r.heapMb),
          1,
        )} MB (target < ${TARGETS.heapMb})`,
      );
      print(`DOM elements          ${fmt(runs.map((r) => r.elements))} (${runs[0].cards} cards on the page)`);
      print(
        `scroll frames         median ${median(frames).toFixed(1)} ms, p95 ${sorted[Math.floor(sorted.length * 0.95)].toFixed(1)} ms, long tasks while scrolling: longest ${fmt(runs.map((r) => Math.max(0, ...r.scroll.longTasks)))} ms (target < ${TARGETS.longTaskMs})`,
      );
      if (runs[0].reorderMs !== undefined)
        print(`keyboard reorder      ${fmt(runs.map((r) => r.reorderMs))} ms from the drop to saved`);
    } finally {
      await app.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await browser.close();
}
