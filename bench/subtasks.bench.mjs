// Sub-tasks at scale (issue 29): a project of 5,000 tasks of which 2,000 are sub-tasks, up to 4
// levels deep (450 chains of 4 under top-level tasks, and one parent with 200 direct sub-tasks).
// Prints the project's list as the app asks for it (GET /api/tasks?projectId=N&view=summary, br
// or gzip as a browser takes it) warm (the server's cached list) and cold (read afresh after a
// change: a rename just before each request), and the time to complete the parent of 200 sub-tasks
// (PATCH {completed: true}: the whole subtree completed and archived) and to restore it again, min
// and median of the repeats, on SQLite and on PostgreSQL.
//
//   npm run build && node bench/subtasks.bench.mjs
//
// BENCH_DIST: the build to run (default dist). TEST_DATABASE_URL: PostgreSQL server (default
// postgres://postgres@127.0.0.1:5432/test; a fresh schema is created and dropped). BENCH_DIALECTS:
// sqlite,postgres. BENCH_REPEATS: requests per figure (default 15).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { importCsv, median, pgSchema, print, request, signIn, startApp } from './lib/app.mjs';
import { CHAINS, TREE } from './lib/tree.mjs';

const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
const REPEATS = Number(process.env.BENCH_REPEATS ?? 15);
const { total: TOTAL, subtasks: SUBTASKS, big: BIG, depth: DEPTH } = TREE;
const TARGETS = { listMs: 1000, completeMs: 200 };

/** Top-level tasks in Tasklane's CSV. */
function csv(count) {
  const lines = ['title,description,dueDate,completed,archived,notes,createdAt'];
  for (let i = 0; i < count; i++) {
    lines.push(`Task ${i},"A sentence of description, as people write them.",,false,false,,`);
  }
  return lines.join('\n');
}

const ok = async (promise, status = 200) => {
  const response = await promise;
  if (response.status !== status) throw new Error(`${response.status}: ${response.body}`);
  return JSON.parse(response.body.toString() || 'null');
};

/** Min and median of `runs` timings of `measure()` (ms), `before()` run untimed ahead of each. */
async function timings(runs, measure, before = async () => {}) {
  const times = [];
  for (let run = 0; run < runs; run++) {
    await before(run);
    const start = performance.now();
    await measure(run);
    times.push(performance.now() - start);
  }
  return { min: Math.min(...times), median: median(times) };
}

async function benchDialect(dialect) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-subtasks-bench-'));
  const env = { DATA_DIR: dataDir };
  const schema = dialect === 'postgres' ? await pgSchema() : undefined;
  if (schema) env.DATABASE_URL = schema.databaseUrl;
  const app = await startApp(env);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  try {
    const { headers } = await signIn(agent, app.url);
    const api = (method, url, body) => request(agent, method, `${app.url}${url}`, { headers, body });
    const project = await ok(api('POST', '/api/projects', { name: 'Tree' }), 201);
    const imported = await importCsv(app.url, headers, csv(TOTAL - SUBTASKS), project.id);
    if (imported.status !== 200) throw new Error(`import failed: ${imported.body}`);
    const top = (await ok(api('GET', `/api/tasks?projectId=${project.id}&view=summary`))).map((t) => t.id);

    // The sub-tasks through the API, as people make them: 450 chains of 4 levels, then the big parent's 200.
    const setupStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < CHAINS) {
          let parentId = top[next++];
          for (let level = 1; level <= DEPTH; level++) {
            parentId = (
              await ok(api('POST', '/api/tasks', { title: `Level ${level} of ${parentId}`, parentId }), 201)
            ).id;
          }
        }
      }),
    );
    const bigParent = top[CHAINS];
    let made = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (made < BIG) {
          made++;
          await ok(api('POST', '/api/tasks', { title: `Step ${made}`, parentId: bigParent }), 201);
        }
      }),
    );
    const setupMs = performance.now() - setupStart;

    const listUrl = `${app.url}/api/tasks?projectId=${project.id}&view=summary`;
    const listHeaders = { ...headers, 'accept-encoding': 'br, gzip' };
    let served = '';
    const getList = async () => {
      const response = await request(agent, 'GET', listUrl, { headers: listHeaders });
      if (response.status !== 200) throw new Error(`list: ${response.status}`);
      served = String(response.headers['server-timing'] ?? '');
    };
    await getList();
    const check = await ok(api('GET', `/api/tasks?projectId=${project.id}&view=summary`));
    const nested = check.filter((task) => task.parentId !== null).length;
    if (check.length !== TOTAL || nested !== SUBTASKS) {
      throw new Error(
        `expected ${TOTAL} tasks of which ${SUBTASKS} sub-tasks, got ${check.length} and ${nested}`,
      );
    }
    const big = check.find((task) => task.id === bigParent);
    if (big.subtasks.total !== BIG) throw new Error(`the big parent has ${big.subtasks.total} sub-tasks`);

    const warm = await timings(REPEATS, getList);
    const warmServed = served;
    const renamed = top[top.length - 1];
    const cold = await timings(REPEATS, getList, (run) =>
      ok(api('PATCH', `/api/tasks/${renamed}`, { title: `Renamed ${run}` })),
    );
    const coldServed = served;

    const completeTimes = [];
    const restoreTimes = [];
    for (let run = 0; run < REPEATS; run++) {
      let start = performance.now();
      const done = await ok(api('PATCH', `/api/tasks/${bigParent}`, { completed: true }));
      completeTimes.push(performance.now() - start);
      if (!done.archived || done.subtasks.done !== BIG)
        throw new Error('the parent did not complete its subtree');
      start = performance.now();
      await ok(api('PATCH', `/api/tasks/${bigParent}`, { completed: false }));
      restoreTimes.push(performance.now() - start);
    }
    const archived = await ok(api('GET', `/api/tasks/archived?projectId=${project.id}&view=summary`));
    if (archived.length !== 0) throw new Error(`${archived.length} tasks left in the archive`);

    const row = (label, { min, median: mid }, target) =>
      print(
        `${label.padEnd(34)} ${min.toFixed(1).padStart(8)} ${mid.toFixed(1).padStart(11)}${mid > target ? '  over target' : ''}`,
      );
    print(
      `\n${dialect}: ${TOTAL} tasks, ${SUBTASKS} sub-tasks up to ${DEPTH} levels deep (made in ${(setupMs / 1000).toFixed(1)} s through the API)`,
    );
    print(`${'figure'.padEnd(34)} ${'min ms'.padStart(8)} ${'median ms'.padStart(11)}`);
    row(`list, warm (${warmServed.replace(/^list;/, '')})`, warm, TARGETS.listMs);
    row(`list, cold (${coldServed.replace(/^list;/, '')})`, cold, TARGETS.listMs);
    row(
      `complete a parent of ${BIG} sub-tasks`,
      { min: Math.min(...completeTimes), median: median(completeTimes) },
      TARGETS.completeMs,
    );
    row(
      `restore it with its ${BIG} sub-tasks`,
      { min: Math.min(...restoreTimes), median: median(restoreTimes) },
      TARGETS.completeMs,
    );
  } finally {
    agent.destroy();
    await app.stop();
    await schema?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

print(
  `Sub-tasks: the list and a parent's completion, ${REPEATS} sequential requests each (round trip on loopback; targets: list under ${TARGETS.listMs} ms, completion under ${TARGETS.completeMs} ms), ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`,
);
for (const dialect of DIALECTS) await benchDialect(dialect);
