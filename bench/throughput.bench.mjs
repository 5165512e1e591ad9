// GET /api/tasks?projectId=N throughput for a shared project of 200 tasks and 10 members (issue 21),
// at the server's default log level, next to a bare node:http server sending the same JSON bytes, measured in the same sitting with autocannon
// (50 connections). Rounds take turns (app, bare; then bare, app; ...) so that load from elsewhere on
// the machine weighs on both alike; the ratio (app req/s / bare req/s) is taken within each round.
// Also the CPU each server spent per request (from /proc), and the app's RSS when fresh and after it
// served a 10,000-task list, each once idle (the memory goal: under 120 MB).
//
//   npm run build:server && node bench/throughput.bench.mjs
//
// BENCH_DIST: the build to run (default dist). BENCH_DIALECTS: sqlite (default), postgres or both
// (TEST_DATABASE_URL; a fresh schema is created and dropped). BENCH_ROUNDS (default 5),
// BENCH_SECONDS per run (default 5). LOG_LEVEL: the server's (default: its own default, info).
// BENCH_BIG=0 skips the 10,000-task memory check.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { median, pgSchema, print, request, signIn, startApp, startBareServer } from './lib/app.mjs';

const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite').split(',');
const TASKS = 200;
const MEMBERS = 10;
const BIG_TASKS = 10_000;
const CONNECTIONS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const LOG_LEVEL = process.env.LOG_LEVEL ?? 'info';
/** The ratio to reach: 0.5 on SQLite, 0.45 on PostgreSQL (issue 21). */
const TARGETS = { ratio: { sqlite: 0.5, postgres: 0.45 }, p99Ms: 50, idleRssMb: 120 };
/** Long enough for V8's memory reducer, which starts 8 s after the last work. */
const IDLE_MS = 30_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** User + system CPU time of a process so far, in microseconds (Linux /proc). */
function cpuMicros(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks / 100) * 1e6;
}

function rssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/^VmRSS:\s+(\d+) kB/m)[1]) / 1024;
}

/** One autocannon run; throws unless every answer was a 200 of the expected length. */
async function load(server, headers, expectedBytes, seconds) {
  const before = server.pid ? cpuMicros(server.pid) : 0;
  const result = await autocannon({ url: server.url, connections: CONNECTIONS, duration: seconds, headers });
  const cpu = server.pid ? cpuMicros(server.pid) - before : 0;
  const total = result.requests.total;
  if (result.errors || result.non2xx || result.timeouts) {
    throw new Error(
      `${server.url}: ${result.errors} errors, ${result.non2xx} non-2xx, ${result.timeouts} timeouts`,
    );
  }
  // Bytes read include the headers: the body alone must be there on every answer.
  if (result.throughput.total < total * expectedBytes) throw new Error(`${server.url}: short answers`);
  return { rps: total / seconds, p99: result.latency.p99, cpuUs: cpu / total };
}

async function createTasks(agent, appUrl, headers, count, projectId) {
  let created = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (created < count) {
        const n = created++;
        const response = await request(agent, 'POST', `${appUrl}/api/tasks`, {
          headers,
          body: {
            title: `Task number ${n}: follow up on the quarterly report`,
            description: 'A description of a realistic length, about one sentence or two, for the list.',
            dueDate: '2026-06-30',
            ...(projectId ? { projectId } : {}),
          },
        });
        if (response.status !== 201) throw new Error(`create failed: ${response.body}`);
      }
    }),
  );
}

/**
 * A project shared with MEMBERS - 1 other accounts (editors), its tasks assigned round-robin to
 * them: the answer carries assignees as a team's list does.
 */
async function sharedProject(agent, appUrl, headers) {
  const call = async (method, url, body, status) => {
    const response = await request(agent, method, `${appUrl}${url}`, { headers, body });
    if (response.status !== status) throw new Error(`${method} ${url}: ${response.status} ${response.body}`);
    return response.body ? JSON.parse(response.body) : undefined;
  };
  const project = await call('POST', '/api/projects', { name: 'Team' }, 201);
  const memberIds = [];
  for (let i = 1; i < MEMBERS; i++) {
    const created = await call(
      'POST',
      '/api/admin/users',
      { firstName: `Member ${i}`, email: `member${i}@example.com` },
      201,
    );
    await call(
      'POST',
      `/api/projects/${project.id}/members`,
      { user: created.user.username, role: 'editor' },
      201,
    );
    memberIds.push(created.user.id);
  }
  await createTasks(agent, appUrl, headers, TASKS, project.id);
  const tasks = await call('GET', `/api/tasks?projectId=${project.id}`, undefined, 200);
  for (const [i, task] of tasks.entries()) {
    if (i % 2 === 0)
      await call('PATCH', `/api/tasks/${task.id}`, { assigneeIds: [memberIds[i % memberIds.length]] }, 200);
  }
  return project;
}

async function benchDialect(dialect) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-throughput-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL };
  let dropSchema = async () => {};
  if (dialect === 'postgres') {
    const schema = await pgSchema();
    env.DATABASE_URL = schema.databaseUrl;
    dropSchema = schema.drop;
  }
  let app = await startApp(env);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  let bare;
  try {
    const { headers } = await signIn(agent, app.url);
    const project = await sharedProject(agent, app.url, headers);
    const listUrl = `${app.url}/api/tasks?projectId=${project.id}`;
    const list = await request(agent, 'GET', listUrl, { headers });
    if (JSON.parse(list.body).length !== TASKS) throw new Error(`expected ${TASKS} tasks`);
    const bodyFile = path.join(dataDir, 'body.json');
    fs.writeFileSync(bodyFile, list.body);
    bare = await startBareServer(bodyFile);

    const target = { url: listUrl, pid: app.pid };
    const bareTarget = { url: `${bare.url}/`, pid: bare.pid };
    await load(target, headers, list.body.length, 1);
    await load(bareTarget, {}, list.body.length, 1);
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const appFirst = round % 2 === 0;
      const first = await load(
        appFirst ? target : bareTarget,
        appFirst ? headers : {},
        list.body.length,
        SECONDS,
      );
      const second = await load(
        appFirst ? bareTarget : target,
        appFirst ? {} : headers,
        list.body.length,
        SECONDS,
      );
      const [api, baseline] = appFirst ? [first, second] : [second, first];
      rounds.push({ api, baseline, ratio: api.rps / baseline.rps });
      print(
        `  ${dialect} round ${round + 1}: app ${api.rps.toFixed(0)} req/s p99 ${api.p99} ms ${api.cpuUs.toFixed(0)} us CPU/req;` +
          ` bare ${baseline.rps.toFixed(0)} req/s p99 ${baseline.p99} ms ${baseline.cpuUs.toFixed(0)} us CPU/req; ratio ${(api.rps / baseline.rps).toFixed(2)}`,
      );
    }

    let idle;
    if (process.env.BENCH_BIG !== '0' && dialect === DIALECTS[0]) {
      await createTasks(agent, app.url, headers, BIG_TASKS);
      // A fresh process on the same data: idle memory is what it holds, not what the load left.
      await app.stop();
      app = await startApp(env);
      idle = await bigListMemory(agent, app);
    }
    return { dialect, bytes: list.body.length, rounds, idle };
  } finally {
    agent.destroy();
    await bare?.stop();
    await app.stop();
    await dropSchema();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * RSS of a fresh server 2 s after sign-in, and once idle: V8 gives back most of its young generation
 * some seconds after the last work (its memory reducer), so "idle" is read after IDLE_MS without a
 * request. Then the same after it served the 10,000-task list six times.
 */
async function bigListMemory(agent, app) {
  const { headers } = await signIn(agent, app.url);
  await sleep(2000);
  const started = rssMb(app.pid);
  await sleep(IDLE_MS);
  const idle = rssMb(app.pid);
  let bytes = 0;
  for (let i = 0; i < 3; i++) {
    for (const encoding of ['identity', 'gzip, deflate, br']) {
      const response = await request(agent, 'GET', `${app.url}/api/tasks`, {
        headers: { ...headers, 'accept-encoding': encoding },
      });
      if (response.status !== 200) throw new Error('big list failed');
      if (encoding === 'identity') bytes = response.body.length;
    }
  }
  await sleep(2000);
  const served = rssMb(app.pid);
  await sleep(IDLE_MS);
  return { started, idle, served, servedIdle: rssMb(app.pid), bytes };
}

const stats = (values) => ({ min: Math.min(...values), median: median(values), max: Math.max(...values) });

print(
  `GET /api/tasks?projectId=N, ${TASKS} tasks, ${MEMBERS} members, autocannon -c ${CONNECTIONS}, ${ROUNDS} rounds of ${SECONDS} s, server LOG_LEVEL=${LOG_LEVEL}, node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`,
);
let missed = false;
for (const dialect of DIALECTS) {
  const result = await benchDialect(dialect);
  const ratio = stats(result.rounds.map((r) => r.ratio));
  const rps = stats(result.rounds.map((r) => r.api.rps));
  const bareRps = stats(result.rounds.map((r) => r.baseline.rps));
  const p99 = stats(result.rounds.map((r) => r.api.p99));
  const cpu = stats(result.rounds.map((r) => r.api.cpuUs));
  const bareCpu = stats(result.rounds.map((r) => r.baseline.cpuUs));
  const f = (s, digits = 0) => `min ${s.min.toFixed(digits)}, median ${s.median.toFixed(digits)}`;
  print(`${dialect}: body ${(result.bytes / 1024).toFixed(1)} KiB`);
  print(`  app  req/s ${f(rps)}; p99 ms ${f(p99)} (max ${p99.max}); CPU us/req ${f(cpu)}`);
  print(`  bare req/s ${f(bareRps)}; CPU us/req ${f(bareCpu)}`);
  print(`  ratio app/bare ${f(ratio, 2)}`);
  const target = TARGETS.ratio[result.dialect];
  const met = ratio.median >= target && p99.median < TARGETS.p99Ms;
  print(`  targets: ratio >= ${target}, p99 < ${TARGETS.p99Ms} ms: ${met ? 'met' : 'MISSED'}`);
  if (result.idle) {
    const { started, idle, served, servedIdle, bytes } = result.idle;
    const ok = idle < TARGETS.idleRssMb && servedIdle < TARGETS.idleRssMb;
    print(
      `  RSS of a fresh server: ${started.toFixed(0)} MB 2 s after sign-in, ${idle.toFixed(0)} MB idle; after serving the ${BIG_TASKS}-task list (${(bytes / 1024 / 1024).toFixed(1)} MB) six times: ${served.toFixed(0)} MB, ${servedIdle.toFixed(0)} MB idle (target: idle < ${TARGETS.idleRssMb} MB: ${ok ? 'met' : 'MISSED'})`,
    );
    if (!ok) missed = true;
  }
  if (!met) missed = true;
}
if (missed) process.exitCode = 1;
