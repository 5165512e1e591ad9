// GET /api/tasks throughput and latency for a user with 1,000 tasks, next to a bare Node server
// answering the same bytes, and the time to reorder all 1,000; on SQLite and on PostgreSQL.
//
//   npm run build && node bench/tasks.bench.mjs
//
// BENCH_DIST: the build to run (default dist). TEST_DATABASE_URL: PostgreSQL server (default
// postgres://postgres@127.0.0.1:5432/test; a fresh schema is created and dropped). BENCH_SECONDS:
// length of each load run (default 5). BENCH_DIALECTS: sqlite,postgres. LOG_LEVEL: the server's (default warn).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  LOG_LEVEL,
  percentile,
  pgSchema,
  print,
  request,
  signIn,
  startApp,
  startBareServer,
} from './lib/app.mjs';

const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
const TASKS = 1000;
const CONNECTIONS = 50;
const RUN_MS = Number(process.env.BENCH_SECONDS ?? 5) * 1000;
const WARMUP_MS = 1000;
const REORDER_RUNS = 5;
const TARGETS = { ratio: 0.5, p99Ms: 50, reorderMs: 100, paintMs: 1500 };

/** CONNECTIONS concurrent loops of GET url over keep-alive sockets: a warm-up, then a measured run. */
async function load(url, headers, expectedBytes) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const run = async (ms, latencies) => {
    const end = Date.now() + ms;
    let failures = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < end) {
          const start = performance.now();
          const response = await request(agent, 'GET', url, { headers });
          latencies?.push(performance.now() - start);
          if (response.status !== 200 || response.body.length !== expectedBytes) failures += 1;
        }
      }),
    );
    return failures;
  };
  await run(WARMUP_MS);
  const latencies = [];
  const started = performance.now();
  const failures = await run(RUN_MS, latencies);
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  if (failures > 0) throw new Error(`${failures} of ${latencies.length} requests to ${url} failed`);
  return { rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function benchDialect(dialect) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-bench-'));
  const env = { DATA_DIR: dataDir };
  let dropSchema = async () => {};
  if (dialect === 'postgres') {
    const schema = await pgSchema();
    env.DATABASE_URL = schema.databaseUrl;
    dropSchema = schema.drop;
  }
  const app = await startApp(env);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
  try {
    const { login, headers } = await signIn(agent, app.url);

    let created = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (created < TASKS) {
          const n = created++;
          const response = await request(agent, 'POST', `${app.url}/api/tasks`, {
            headers,
            body: {
              userId: 1,
              title: `Task number ${n}: follow up on the quarterly report`,
              description: 'A description of a realistic length, about one sentence or two, for the list.',
              dueDate: '2026-06-30',
              completed: false,
              archived: false,
              position: 0,
              contextId: null,
            },
          });
          if (response.status !== 201) throw new Error(`create failed: ${response.body}`);
        }
      }),
    );

    const list = await request(agent, 'GET', `${app.url}/api/tasks`, { headers });
    const tasks = JSON.parse(list.body);
    if (tasks.length !== TASKS) throw new Error(`expected ${TASKS} tasks, got ${tasks.length}`);
    const bodyFile = path.join(dataDir, 'body.json');
    fs.writeFileSync(bodyFile, list.body);

    const api = await load(`${app.url}/api/tasks`, headers, list.body.length);
    const bare = await startBareServer(bodyFile);
    let baseline;
    try {
      baseline = await load(`${bare.url}/`, {}, list.body.length);
    } finally {
      await bare.stop();
    }

    const reorderMs = [];
    let ids = tasks.map((task) => task.id);
    for (let i = 0; i < REORDER_RUNS; i++) {
      ids = [...ids].reverse();
      const start = performance.now();
      const response = await request(agent, 'POST', `${app.url}/api/tasks/reorder`, {
        headers,
        body: { taskIds: ids },
      });
      reorderMs.push(performance.now() - start);
      if (response.status !== 200) throw new Error(`reorder failed: ${response.body}`);
    }
    const after = JSON.parse((await request(agent, 'GET', `${app.url}/api/tasks`, { headers })).body);
    if (after.map((task) => task.id).join() !== ids.join()) throw new Error('reorder did not apply');
    reorderMs.sort((a, b) => a - b);
    const paint = dialect === DIALECTS[0] ? await measurePaint(app.url, login) : undefined;

    return {
      dialect,
      bytes: list.body.length,
      api,
      baseline,
      reorder: { median: percentile(reorderMs, 50), max: reorderMs.at(-1) },
      paint,
    };
  } finally {
    agent.destroy();
    await app.stop();
    await dropSchema();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The browser's time from navigation to a painted, draggable list of all the tasks: Chromium,
 * signed in through local storage, timed inside the page from the start of navigation.
 */
async function measurePaint(url, login) {
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return undefined;
  }
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium';
  if (!fs.existsSync(executablePath)) return undefined;
  const browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript(({ sessionId, user }) => {
        localStorage.setItem('sessionId', sessionId);
        localStorage.setItem('user', JSON.stringify(user));
        localStorage.setItem('isAuthenticated', 'true');
        const marks = {};
        window.paintMarks = marks;
        new MutationObserver(() => {
          if (marks.all) return;
          const handles = document.querySelectorAll('[data-rfd-drag-handle-draggable-id]').length;
          if (handles > 0) marks.first ??= performance.now();
          if (handles >= 1000) marks.all = performance.now();
        }).observe(document, { childList: true, subtree: true });
      }, login);
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForFunction(() => window.paintMarks?.all, null, { timeout: 60_000 });
      // Wait one frame so that what was mounted has been painted.
      runs.push(
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(window.paintMarks)))),
      );
      await context.close();
    }
    const best = (key) => Math.min(...runs.map((m) => m[key]));
    return { first: best('first'), all: best('all') };
  } finally {
    await browser.close();
  }
}

function printTable(results) {
  const rows = [
    [
      'database',
      'body',
      'GET rps',
      'p50 ms',
      'p99 ms',
      'bare rps',
      'bare p99 ms',
      'ratio',
      'reorder ms (median / max)',
      'targets',
    ],
  ];
  for (const r of results) {
    const ratio = r.api.rps / r.baseline.rps;
    const met = ratio >= TARGETS.ratio && r.api.p99 < TARGETS.p99Ms && r.reorder.max < TARGETS.reorderMs;
    rows.push([
      r.dialect,
      `${(r.bytes / 1024).toFixed(0)} KiB`,
      r.api.rps.toFixed(0),
      r.api.p50.toFixed(1),
      r.api.p99.toFixed(1),
      r.baseline.rps.toFixed(0),
      r.baseline.p99.toFixed(1),
      ratio.toFixed(2),
      `${r.reorder.median.toFixed(1)} / ${r.reorder.max.toFixed(1)}`,
      met ? 'met' : 'MISSED',
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  print(
    `\nGET /api/tasks with ${TASKS} tasks, ${CONNECTIONS} connections, ${RUN_MS / 1000} s per run, server LOG_LEVEL=${LOG_LEVEL}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`,
  );
  for (const [i, row] of rows.entries()) {
    print(row.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  '));
    if (i === 0) print(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  print(
    `targets: ratio (GET rps / bare rps) >= ${TARGETS.ratio}, p99 < ${TARGETS.p99Ms} ms, reorder of ${TASKS} < ${TARGETS.reorderMs} ms\n`,
  );
  const paint = results.find((r) => r.paint)?.paint;
  print(
    paint
      ? `browser, navigation to a painted, draggable list of ${TASKS} tasks (best of 3): first cards ${paint.first.toFixed(0)} ms, all ${TASKS} ${paint.all.toFixed(0)} ms (target < ${TARGETS.paintMs} ms: ${paint.all < TARGETS.paintMs ? 'met' : 'MISSED'})\n`
      : 'browser paint: skipped (no Chromium)\n',
  );
}

const results = [];
for (const dialect of DIALECTS) {
  print(`benchmarking ${dialect}...`);
  results.push(await benchDialect(dialect));
}
printTable(results);
