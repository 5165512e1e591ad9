// The active list in Chromium (playwright-core) at 1,000, 3,000 and 10,000 tasks: time from
// navigation to a usable list (the first card painted and focusable), with its first paint, when
// the scripts and the list arrived (with the server's own time and whether it came from its cache:
// Server-Timing) and the long tasks, in each case of issue 28: warm (the app's files in the
// browser's cache), cold (a signed-in person's first visit: an empty cache), cold with the list
// changed just before (a rename: the server reads it afresh), cold right after an import (the first
// read of a list an import changed), and warm and cold while another person creates tasks at 100 a
// second on the same server. JS heap and DOM size once settled, scroll frame times, and at the
// largest size a keyboard reorder (Space, ArrowDown, Space) until the move is saved. Then issue
// 29's tree: an Inbox of 5,000 tasks of which 2,000 are sub-tasks up to 4 levels deep (the shape of
// bench/subtasks.bench.mjs, which times its API), warm, cold, and cold with the list changed. The
// load average is printed with each case: the figures move with it.
//
//   npm run build && node bench/list.bench.mjs
//
// BENCH_DIST: the build to run (default dist). BENCH_CASES: sizes,subtasks (default both; e.g.
// BENCH_CASES=subtasks for the tree alone). BENCH_SIZES: e.g. 1000,3000,10000. BENCH_REPEATS:
// runs per size (default 3; min and median are printed). CHROMIUM_PATH: the browser
// (default /usr/lib/chromium/chromium). The server logs at its default level (LOG_LEVEL=info).
// BENCH_BURN=N: N processes spinning a core each while measuring; they stop by themselves.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ADMIN, median, print, startApp } from './lib/app.mjs';
import {
  BREAKDOWN,
  fmt,
  importTasks,
  loadAverage,
  OBSERVE,
  openBenchPage,
  printLoads,
} from './lib/browser.mjs';
import { burnCpus, createPerson, createTasksInBackground } from './lib/load.mjs';
import { CHAINS, TREE, treeParents } from './lib/tree.mjs';

const CASES = (process.env.BENCH_CASES ?? 'sizes,subtasks').split(',');
const unknownCase = CASES.find((name) => !['sizes', 'subtasks'].includes(name));
if (unknownCase) throw new Error(`BENCH_CASES: no case "${unknownCase}" (sizes, subtasks)`);
const SIZES = (process.env.BENCH_SIZES ?? '1000,3000,10000').split(',').map(Number);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const BURN = Number(process.env.BENCH_BURN ?? 0);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium';
const TARGETS = { usableMs: 1000, longTaskMs: 50, heapMb: 80, frameMs: 1000 / 60 };

/**
 * Warm: signed in through the login screen, then the app opened afresh in the same context (its
 * scripts in the HTTP cache). Cold: a new context with an empty cache whose storage already holds a
 * session (signed in through the API): a signed-in person's first visit, or the first after an
 * upgrade changed the asset names. `beforeVisit(api, login)` runs just before, with that session:
 * a rename or an import, so the list has changed since the server last read it.
 * The navigation is what is measured.
 */
async function measureOnce(browser, url, size, { cold, reorder, scroll: scrolling = !cold, beforeVisit }) {
  const { context, page } = await openBenchPage(browser, url, { cold, beforeVisit });
  try {
    await page.addInitScript(OBSERVE, 'article[data-task-id]');
    await page.goto('/', { waitUntil: 'commit' });
    await page.locator('article[data-task-id]').first().waitFor({ timeout: 60_000 });
    const usableMs = await page.evaluate(() => window.__usable);
    // Settled: no long task for a second.
    await page.waitForTimeout(1500);
    const breakdown = await page.evaluate(BREAKDOWN);
    const loaded = await page.evaluate(() => ({
      heapMb: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : Number.NaN,
      elements: document.getElementsByTagName('*').length,
      cards: document.querySelectorAll('article[data-task-id]').length,
    }));
    if (!scrolling) return { size, usableMs, ...breakdown, ...loaded };

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

const sortedFrames = (frames) => [...frames].sort((a, b) => a - b);

/** A server of its own (an empty data directory) for `run(app)`; stopped and removed after. */
async function withApp(run) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-list-bench-'));
  const app = await startApp({ DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' });
  try {
    await run(app);
  } finally {
    await app.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The bench's administrator signed in, the Inbox seeded by `seed(request)`: the Inbox's list after. */
async function seedInbox(url, seed) {
  const setup = await browser.newContext({ baseURL: url });
  try {
    await setup.request.post('/api/auth/login', { data: ADMIN });
    await seed(setup.request);
    return JSON.parse(await (await setup.request.get('/api/tasks?view=summary')).text());
  } finally {
    await setup.close();
  }
}

/** A `beforeVisit` that renames task `id` with the visit's session: the list changed since the server read it. */
const renameTask = (url, id) => async (api, login) => {
  const renamed = await api.request.patch(`/api/tasks/${id}`, {
    headers: { origin: url, 'user-session': login.sessionId },
    data: { title: `Renamed at ${Date.now()}` },
  });
  if (!renamed.ok()) throw new Error(`rename failed: ${await renamed.text()}`);
};

/** JS heap, DOM size, scroll frames (and the reorder, when measured) of the warm runs, once settled. */
function printSettled(runs) {
  const frames = runs.flatMap((r) => r.scroll.frames.slice(1));
  const sorted = sortedFrames(frames);
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
}

/** The Inbox at each of SIZES: the cases of issue 28. */
async function benchSizes() {
  for (const size of SIZES) {
    await withApp(async (app) => {
      const [first] = await seedInbox(app.url, (api) => importTasks(api, app.url, size));
      const largest = size === Math.max(...SIZES);
      const other = await createPerson(app.url, 'Other');
      const rename = renameTask(app.url, first.id);
      const importOne = async (api, login) =>
        importTasks(api.request, app.url, 1, {
          word: 'Imported',
          headers: { 'user-session': login.sessionId },
        });
      /** The run while the other person creates tasks at 100 a second (bounded; stopped after it). */
      const busy = async (options) => {
        const creator = createTasksInBackground(app.url, other, { perSecond: 100, maxSeconds: 120 });
        const started = Date.now();
        let result;
        try {
          result = await bounded(measureOnce(browser, app.url, size, options));
        } catch (error) {
          await creator.stop();
          throw error;
        }
        const seconds = (Date.now() - started) / 1000;
        return { ...result, creator: await creator.stop(), seconds };
      };
      const burner = BURN ? burnCpus(BURN, 900) : undefined;
      // The kinds of run alternate, so a change in the machine's load touches them alike.
      const runs = [];
      const coldRuns = [];
      const changedRuns = [];
      const importedRuns = [];
      const busyWarm = [];
      const busyCold = [];
      try {
        for (let i = 0; i < REPEATS; i++) {
          runs.push(await bounded(measureOnce(browser, app.url, size, { cold: false, reorder: largest })));
          coldRuns.push(await bounded(measureOnce(browser, app.url, size, { cold: true })));
          changedRuns.push(
            await bounded(measureOnce(browser, app.url, size, { cold: true, beforeVisit: rename })),
          );
          importedRuns.push(
            await bounded(measureOnce(browser, app.url, size, { cold: true, beforeVisit: importOne })),
          );
          busyWarm.push(await busy({ cold: false, scroll: false }));
          busyCold.push(await busy({ cold: true }));
        }
      } finally {
        burner?.stop();
      }
      print(`\n## ${size.toLocaleString('en-US')} tasks (load average ${loadAverage()})`);
      for (const [label, set] of [
        ['warm (the scripts cached)', runs],
        ['cold (an empty browser cache)', coldRuns],
        [
          'cold, the list changed since (renamed: the server reads it afresh, as after a restart)',
          changedRuns,
        ],
        ['cold, right after an import (the first read of a changed list)', importedRuns],
        ['warm, while another person creates 100 tasks/s', busyWarm],
        ['cold, while another person creates 100 tasks/s', busyCold],
      ]) {
        printLoads(print, label, set, { target: TARGETS.usableMs, what: 'usable list' });
        if (set[0].creator) {
          print(
            `  their creates       ${fmt(set.map((r) => r.creator.created / r.seconds))} /s achieved, round trip ${fmt(
              set.map((r) => r.creator.medianMs),
              1,
            )} ms median, ${set.reduce((a, r) => a + r.creator.failed, 0)} failed`,
          );
        }
      }
      printSettled(runs);
    });
  }
}

/**
 * Issue 29: the Inbox of 5,000 tasks of which 2,000 are sub-tasks up to 4 levels deep (lib/tree.mjs,
 * the tree of bench/subtasks.bench.mjs, at the top of the list), imported as one Tasklane JSON file
 * (`id` and `parentId`). Warm, cold, and cold with the list changed just before.
 */
async function benchSubtasks() {
  await withApp(async (app) => {
    const parents = treeParents();
    const list = await seedInbox(app.url, (api) => importTasks(api, app.url, parents.length, { parents }));
    const nested = list.filter((task) => task.parentId !== null).length;
    const bigParent = list.find((task) => task.subtasks.total === TREE.big);
    if (list.length !== TREE.total || nested !== TREE.subtasks || !bigParent) {
      throw new Error(
        `expected ${TREE.total} tasks of which ${TREE.subtasks} sub-tasks and a parent of ${TREE.big}, got ${list.length}, ${nested} and ${bigParent ? 'it' : 'none'}`,
      );
    }
    const rename = renameTask(app.url, list.findLast((task) => task.parentId === null).id);
    const size = TREE.total;
    print(
      `\n## ${size.toLocaleString('en-US')} tasks, ${TREE.subtasks.toLocaleString('en-US')} of them sub-tasks up to ${TREE.depth} levels deep (${CHAINS} chains of ${TREE.depth}, a parent of ${TREE.big}), in the Inbox (load average ${loadAverage()} at the start)`,
    );
    const runs = [];
    const coldRuns = [];
    const changedRuns = [];
    for (let i = 0; i < REPEATS; i++) {
      runs.push(await bounded(measureOnce(browser, app.url, size, { cold: false })));
      coldRuns.push(await bounded(measureOnce(browser, app.url, size, { cold: true })));
      changedRuns.push(
        await bounded(measureOnce(browser, app.url, size, { cold: true, beforeVisit: rename })),
      );
    }
    for (const [label, set] of [
      ['warm (the scripts cached)', runs],
      ['cold (an empty browser cache)', coldRuns],
      ['cold, the list changed since (renamed: the server reads it afresh)', changedRuns],
    ]) {
      printLoads(print, label, set, { target: TARGETS.usableMs, what: 'usable list' });
    }
    printSettled(runs);
    print(`(load average ${loadAverage()} at the end)`);
  });
}

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
  if (CASES.includes('sizes')) await benchSizes();
  if (CASES.includes('subtasks')) await benchSubtasks();
} finally {
  await browser.close();
}
