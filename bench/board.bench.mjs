// The board (issue 23) in Chromium (playwright-core): 5,000 cards in 8 columns (7 sections and
// 'No section') of the Inbox. Time from navigation to a usable board (a card painted in it, watched
// in the page), warm (the app's files cached) and cold (an empty cache), with the long tasks while
// loading; DOM size once settled; and scrolling every column in turn, 240 px a frame, with each
// frame's interval and the long tasks meanwhile.
//
//   npm run build && node bench/board.bench.mjs
//
// BENCH_CARDS (default 5000), BENCH_COLUMNS (default 8), BENCH_REPEATS (default 3), CHROMIUM_PATH.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ADMIN, median, print, startApp } from './lib/app.mjs';
import { openBenchPage } from './lib/browser.mjs';

const CARDS = Number(process.env.BENCH_CARDS ?? 5000);
const COLUMNS = Number(process.env.BENCH_COLUMNS ?? 8);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium';
const TARGETS = { usableMs: 1000, longTaskMs: 50 };
const CARD = 'section[aria-label="Board"] article[data-task-id]';

function exportFile(count) {
  const tasks = Array.from({ length: count }, (_, i) => ({
    title: `Card ${i + 1}: ${['write', 'review', 'plan', 'call', 'fix'][i % 5]} the ${['report', 'draft', 'budget', 'invoice'][i % 4]}`,
    description: null,
    dueDate: i % 4 === 0 ? `2027-0${(i % 9) + 1}-1${i % 10}` : null,
    completed: false,
    archived: false,
    checklistItems: [],
  }));
  return JSON.stringify({ format: 'tasklane', version: 1, tasks, agents: [] });
}

/** Installed before the app's scripts: long tasks, and when a card of the board was painted. */
const OBSERVE = (selector) => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
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

async function measureOnce(browser, url, { cold, scroll }) {
  const { context, page } = await openBenchPage(browser, url, { cold });
  try {
    await page.addInitScript(OBSERVE, CARD);
    await page.goto('/?view=board', { waitUntil: 'commit' });
    await page.locator(CARD).first().waitFor({ timeout: 60_000 });
    const usableMs = await page.evaluate(() => window.__usable);
    await page.waitForTimeout(1500);
    const loaded = await page.evaluate((selector) => {
      return {
        longTasks: [...window.__longTasks],
        elements: document.getElementsByTagName('*').length,
        cards: document.querySelectorAll(selector).length,
        columns: document.querySelectorAll('section[aria-label="Board"] [data-section-id]').length,
      };
    }, CARD);
    if (!scroll) return { usableMs, ...loaded };
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
            else resolve({ frames, longTasks: window.__longTasks.slice(before) });
          };
          requestAnimationFrame(step);
        }),
    );
    return { usableMs, ...loaded, scrolled };
  } finally {
    await context.close();
  }
}

const fmt = (values, digits = 0) => {
  const clean = values.filter((v) => Number.isFinite(v));
  if (clean.length === 0) return 'n/a';
  return `min ${Math.min(...clean).toFixed(digits)} / median ${median(clean).toFixed(digits)}`;
};

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
});
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-board-bench-'));
const app = await startApp({ DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' });
print(
  `# board in Chromium ${browser.version()}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}, ${CARDS.toLocaleString('en-US')} cards in ${COLUMNS} columns, ${REPEATS} runs`,
);
try {
  const setup = await browser.newContext({ baseURL: app.url });
  await setup.request.post('/api/auth/login', { data: ADMIN });
  const headers = { origin: app.url };
  const imported = await setup.request.post('/api/import', {
    headers,
    multipart: {
      file: { name: 'tasks.json', mimeType: 'application/json', buffer: Buffer.from(exportFile(CARDS)) },
    },
  });
  if (!imported.ok()) throw new Error(`import failed: ${await imported.text()}`);
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

  const warm = [];
  const cold = [];
  for (let i = 0; i < REPEATS; i++) {
    warm.push(await measureOnce(browser, app.url, { cold: false, scroll: true }));
    cold.push(await measureOnce(browser, app.url, { cold: true, scroll: false }));
  }
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  print(`\n(load average ${load})`);
  for (const [label, set] of [
    ['warm (the scripts cached)', warm],
    ['cold (an empty browser cache)', cold],
  ]) {
    print(label);
    print(`  usable board        ${fmt(set.map((r) => r.usableMs))} ms (target < ${TARGETS.usableMs})`);
    print(
      `  long tasks (load)   total ${fmt(set.map((r) => r.longTasks.reduce((a, b) => a + b, 0)))} ms, longest ${fmt(set.map((r) => Math.max(0, ...r.longTasks)))} ms`,
    );
  }
  print(
    `DOM elements          ${fmt(warm.map((r) => r.elements))} (${warm[0].cards} cards in ${warm[0].columns} columns on the page)`,
  );
  const frames = warm.flatMap((r) => r.scrolled.frames.slice(1)).sort((a, b) => a - b);
  print(
    `scroll frames         median ${median(frames).toFixed(1)} ms, p95 ${frames[Math.floor(frames.length * 0.95)].toFixed(1)} ms, long tasks while scrolling: longest ${fmt(warm.map((r) => Math.max(0, ...r.scrolled.longTasks)))} ms (target < ${TARGETS.longTaskMs})`,
  );
} finally {
  await app.stop();
  await browser.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
