// The board (issue 23) in Chromium (playwright-core): 5,000 cards in 8 columns (7 sections and 'No
// section') of the Inbox. Time from navigation to a usable board (a card painted in it, watched in
// the page), with where the time went (first paint, scripts, the list asked and answered with the
// server's own time and whether it came from its cache, the sections, the long tasks), in each case
// of issue 28:
//
// - warm: the app's files cached; DOM size once settled, and every column scrolled in turn, 240 px
//   a frame, with each frame's interval and the long tasks meanwhile;
// - cold: an empty browser cache, signed in;
// - cold, right after an import: one task imported just before (the first read of a changed list);
// - warm and cold while another person creates tasks at 100 a second on the same server;
// - a new person as the issue tried it: 5,000 tasks imported into their Inbox (POST /api/import, no
//   sections: one column of 5,000), then a fresh browser opens `/?view=board` and signs in through
//   the form; timed from the click on Sign In, the sign-in's answer printed apart.
//
//   npm run build && node bench/board.bench.mjs
//
// BENCH_CARDS (default 5000), BENCH_COLUMNS (default 8), BENCH_REPEATS (default 3), CHROMIUM_PATH,
// BENCH_CASES (some of warm,cold,imported,busyWarm,busyCold,newcomer; default all).
// BENCH_BURN=N: N processes spinning a core each while measuring (the issue's load average 7-9 on
// two cores is BENCH_BURN=6 or so on a quiet machine); they stop by themselves after 15 minutes.
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

const CARDS = Number(process.env.BENCH_CARDS ?? 5000);
const COLUMNS = Number(process.env.BENCH_COLUMNS ?? 8);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const BURN = Number(process.env.BENCH_BURN ?? 0);
/** BENCH_CASES: some of warm,cold,imported,busyWarm,busyCold,newcomer (default all). */
const CASES = (process.env.BENCH_CASES ?? 'warm,cold,imported,busyWarm,busyCold,newcomer').split(',');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium';
const TARGETS = { usableMs: 1000, longTaskMs: 50 };
const CARD = 'section[aria-label="Board"] article[data-task-id]';
const BOARD = '/?view=board';

/** Opens the board in `page` (set up to be observed) and reads where its time went. */
async function openBoard(page) {
  await page.addInitScript(OBSERVE, CARD);
  await page.goto(BOARD, { waitUntil: 'commit' });
  await page.locator(CARD).first().waitFor({ timeout: 60_000 });
  const usableMs = await page.evaluate(() => window.__usable);
  // Settled: no long task for a second.
  await page.waitForTimeout(1500);
  const breakdown = await page.evaluate(BREAKDOWN);
  const counted = await page.evaluate(
    (selector) => ({
      elements: document.getElementsByTagName('*').length,
      cards: document.querySelectorAll(selector).length,
      columns: document.querySelectorAll('section[aria-label="Board"] [data-section-id]').length,
    }),
    CARD,
  );
  return { usableMs, ...breakdown, ...counted };
}

async function measureOnce(browser, url, { cold, scroll, beforeVisit }) {
  const { context, page } = await openBenchPage(browser, url, { cold, beforeVisit });
  try {
    const loaded = await openBoard(page);
    if (!scroll) return loaded;
    // Every column scrolled in turn, 240 px a frame, 60 frames each.
    const scrolled = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const columns = [
            ...document.querySelectorAll('section[aria-label="Board"] [data-rfd-droppable-id^="column:"]'),
          ];
          const before = window.__longTasks.length;
          const frames = [];
          let last = performance.now();
          let count = 0;
          const step = (now) => {
            frames.push(now - last);
            last = now;
            columns[Math.floor(count / 60) % columns.length].scrollBy(0, 240);
            if (++count < 60 * columns.length) requestAnimationFrame(step);
            else resolve({ frames, longTasks: window.__longTasks.slice(before).map((t) => t.ms) });
          };
          requestAnimationFrame(step);
        }),
    );
    return { ...loaded, scrolled };
  } finally {
    await context.close();
  }
}

/**
 * The issue's new person: made by the administrator, 5,000 tasks imported into their Inbox with
 * their session (POST /api/import, no page open: the first read of that list is still to come), then
 * a fresh browser (its own profile, the service worker allowed, as a real one registers it) opens
 * `/?view=board`, gets the login screen and signs in through the form. Times from the click on
 * Sign In: the sign-in's answer, the list, the sections, the first card.
 */
async function newPersonOnce(browser, url, n) {
  const person = await createPerson(url, `Newcomer${n}`);
  const api = await browser.newContext({ baseURL: url });
  await importTasks(api.request, url, CARDS, { word: 'Card', headers: person.headers });
  await api.close();
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(OBSERVE, CARD);
    await page.goto(BOARD);
    await page.getByLabel('Username').fill(person.username);
    await page.getByLabel('Password').fill(person.password);
    const clicked = await page.evaluate(() => performance.now());
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.locator(CARD).first().waitFor({ timeout: 60_000 });
    const usableMs = (await page.evaluate(() => window.__usable)) - clicked;
    await page.waitForTimeout(1500);
    const breakdown = await page.evaluate(BREAKDOWN);
    const after = await page.evaluate(
      ({ from, selector }) => ({
        signInMs:
          (performance.getEntriesByType('resource').find((e) => e.name.endsWith('/api/auth/login'))
            ?.responseEnd ?? Number.NaN) - from,
        longTasks: window.__longTasks.filter((task) => task.start >= from).map((task) => task.ms),
        elements: document.getElementsByTagName('*').length,
        cards: document.querySelectorAll(selector).length,
      }),
      { from: clicked, selector: CARD },
    );
    const since = (ms) => ms - clicked;
    return {
      ...breakdown,
      usableMs,
      firstPaintMs: Number.NaN,
      scriptsDoneMs: since(breakdown.scriptsDoneMs),
      listRequestMs: since(breakdown.listRequestMs),
      listAnswerMs: since(breakdown.listAnswerMs),
      sectionsAnswerMs: since(breakdown.sectionsAnswerMs),
      ...after,
    };
  } finally {
    await context.close();
  }
}

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
});
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-board-bench-'));
const app = await startApp({ DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' });
print(
  `# board in Chromium ${browser.version()}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}, ${CARDS.toLocaleString('en-US')} cards in ${COLUMNS} columns, ${REPEATS} runs${BURN ? `, ${BURN} processes spinning a core each` : ''}`,
);
let burner;
try {
  // The administrator's board of CARDS in COLUMNS columns, for every case but the new person's.
  if (CASES.some((name) => name !== 'newcomer')) {
    const setup = await browser.newContext({ baseURL: app.url });
    await setup.request.post('/api/auth/login', { data: ADMIN });
    const headers = { origin: app.url };
    await importTasks(setup.request, app.url, CARDS, { word: 'Card' });
    const inbox = (await (await setup.request.get('/api/projects')).json()).find((p) => p.inbox);
    const sections = [];
    for (let i = 1; i < COLUMNS; i++) {
      const created = await setup.request.post(`/api/projects/${inbox.id}/sections`, {
        headers,
        data: { name: `Stage ${i}` },
      });
      sections.push((await created.json()).id);
    }
    // Cards spread evenly over the columns, 'No section' included.
    const tasks = await (await setup.request.get('/api/tasks?view=summary')).json();
    const queue = tasks.map((task, i) => [task.id, i % COLUMNS === 0 ? null : sections[(i % COLUMNS) - 1]]);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const [id, sectionId] = next;
          if (sectionId === null) continue;
          const res = await setup.request.patch(`/api/tasks/${id}`, { headers, data: { sectionId } });
          if (!res.ok()) throw new Error(`PATCH failed: ${await res.text()}`);
        }
      }),
    );
    await setup.close();
  }
  // Another person, creating tasks in their own Inbox while the busy runs load the board.
  const other = await createPerson(app.url, 'Other');
  const importOne = async (api, login) =>
    importTasks(api.request, app.url, 1, { word: 'Imported', headers: { 'user-session': login.sessionId } });
  const busy = async (run) => {
    const creator = createTasksInBackground(app.url, other, { perSecond: 100, maxSeconds: 120 });
    const started = Date.now();
    let result;
    try {
      result = await run();
    } catch (error) {
      await creator.stop();
      throw error;
    }
    const seconds = (Date.now() - started) / 1000;
    return { ...result, creator: await creator.stop(), seconds };
  };

  if (BURN) burner = burnCpus(BURN, 900);
  const load = [];
  const runs = {
    warm: () => measureOnce(browser, app.url, { cold: false, scroll: true }),
    cold: () => measureOnce(browser, app.url, { cold: true, scroll: false }),
    imported: () => measureOnce(browser, app.url, { cold: true, scroll: false, beforeVisit: importOne }),
    busyWarm: () => busy(() => measureOnce(browser, app.url, { cold: false, scroll: false })),
    busyCold: () => busy(() => measureOnce(browser, app.url, { cold: true, scroll: false })),
    newcomer: (i) => newPersonOnce(browser, app.url, i),
  };
  const cases = CASES.filter((name) => name in runs);
  const sets = Object.fromEntries(cases.map((name) => [name, []]));
  // The kinds of run alternate, so a change in the machine's load touches them alike.
  for (let i = 0; i < REPEATS; i++) {
    load.push(os.loadavg()[0]);
    for (const name of cases) sets[name].push(await runs[name](i));
  }
  burner?.stop();
  print(`\n(load average ${fmt(load, 2)} at the start of each round, ${loadAverage()} at the end)`);
  const labels = {
    warm: 'warm (the scripts cached)',
    cold: 'cold (an empty browser cache)',
    imported: 'cold, right after an import (the first read of a changed list)',
    busyWarm: 'warm, while another person creates 100 tasks/s',
    busyCold: 'cold, while another person creates 100 tasks/s',
    newcomer: `a new person: ${CARDS.toLocaleString('en-US')} imported into their Inbox (one column), then a fresh browser at ${BOARD} signs in (all from the click on Sign In)`,
  };
  for (const name of cases) {
    const set = sets[name];
    printLoads(print, labels[name], set, { target: TARGETS.usableMs, what: 'usable board' });
    if (set[0].creator) {
      print(
        `  their creates       ${fmt(set.map((r) => r.creator.created / r.seconds))} /s achieved, round trip ${fmt(
          set.map((r) => r.creator.medianMs),
          1,
        )} ms median, ${set.reduce((a, r) => a + r.creator.failed, 0)} failed`,
      );
    }
    if (name === 'newcomer') {
      print(`  sign-in answered    ${fmt(set.map((r) => r.signInMs))} ms`);
      print(`  on the page         ${set[0].cards} cards, ${set[0].elements} elements`);
    }
  }
  const { warm } = sets;
  if (warm) {
    print(
      `DOM elements          ${fmt(warm.map((r) => r.elements))} (${warm[0].cards} cards in ${warm[0].columns} columns on the page)`,
    );
    const frames = warm.flatMap((r) => r.scrolled.frames.slice(1)).sort((a, b) => a - b);
    print(
      `scroll frames         median ${median(frames).toFixed(1)} ms, p95 ${frames[Math.floor(frames.length * 0.95)].toFixed(1)} ms, long tasks while scrolling: longest ${fmt(warm.map((r) => Math.max(0, ...r.scrolled.longTasks)))} ms (target < ${TARGETS.longTaskMs})`,
    );
  }
} finally {
  burner?.stop();
  await app.stop();
  await browser.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
