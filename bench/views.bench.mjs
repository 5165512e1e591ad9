// Today's answer at 10,000 tasks (issue 23): GET /api/tasks with Today's parameters
// (projectId=all&assignee=me_or_unassigned&dueTo=<today>&view=summary, what the page and the
// sidebar's count ask), Upcoming's (dueFrom=<today>&dueTo=<today + 13>), and Today with 'Only tasks
// assigned to me' (assignee=me, issue 28), timed one request at a time, on SQLite and on PostgreSQL.
// Half the tasks are in the Inbox, half unassigned in a project the person owns; a third of them
// are due, from a week ago to two weeks ahead.
//
//   npm run build && node bench/views.bench.mjs
//
// BENCH_DIST: the build to run (default dist). TEST_DATABASE_URL: PostgreSQL server (a fresh
// schema is created and dropped). BENCH_DIALECTS: sqlite,postgres. BENCH_RUNS: requests per query
// (default 30; min and median are printed).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { importCsv, median, pgSchema, print, request, signIn, startApp, timeGets } from './lib/app.mjs';

const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
const TASKS = 10_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const TARGET_MS = 50;
const DAY_MS = 86_400_000;
const isoDay = (ms) => new Date(ms).toISOString().slice(0, 10);

/** Tasks `from` to `to` in Tasklane's CSV, a third due between a week ago and two weeks ahead. */
function csv(from, to) {
  const lines = ['title,description,dueDate,completed,archived,notes,createdAt'];
  const now = Date.now();
  for (let i = from; i < to; i++) {
    const due = i % 3 === 0 ? isoDay(now + ((i % 21) - 7) * DAY_MS) : '';
    lines.push(
      [
        `Task ${i}`,
        '"A sentence of description, as people write them."',
        due,
        'false',
        'false',
        '',
        new Date(now - i * 60_000).toISOString(),
      ].join(','),
    );
  }
  return lines.join('\n');
}

async function benchDialect(dialect) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-views-bench-'));
  const env = { DATA_DIR: dataDir };
  const schema = dialect === 'postgres' ? await pgSchema() : undefined;
  if (schema) env.DATABASE_URL = schema.databaseUrl;
  const app = await startApp(env);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { headers } = await signIn(agent, app.url);
    const created = await request(agent, 'POST', `${app.url}/api/projects`, {
      headers,
      body: { name: 'Team' },
    });
    if (created.status !== 201) throw new Error(`project failed: ${created.body}`);
    const team = JSON.parse(created.body);
    for (const [from, to, projectId] of [
      [0, TASKS / 2, undefined],
      [TASKS / 2, TASKS, team.id],
    ]) {
      const imported = await importCsv(app.url, headers, csv(from, to), projectId);
      if (imported.status !== 200) throw new Error(`import failed: ${imported.body}`);
    }
    // The bench's account has no time zone: its days are UTC's.
    const today = isoDay(Date.now());
    const queries = [
      ['Today', `?projectId=all&assignee=me_or_unassigned&dueTo=${today}&view=summary`],
      [
        'Upcoming',
        `?projectId=all&assignee=me_or_unassigned&dueFrom=${today}&dueTo=${isoDay(Date.now() + 13 * DAY_MS)}&view=summary`,
      ],
      ['Today, me', `?projectId=all&assignee=me&dueTo=${today}&view=summary`],
    ];
    print(`\n${dialect}: ${TASKS} tasks`);
    print('view        tasks   min ms   median ms   p95 ms');
    for (const [label, query] of queries) {
      const { times, count, p95 } = await timeGets(agent, `${app.url}/api/tasks${query}`, headers, RUNS);
      print(
        `${label.padEnd(10)} ${String(count).padStart(6)} ${times[0].toFixed(1).padStart(8)} ${median(times).toFixed(1).padStart(11)} ${p95.toFixed(1).padStart(8)}${median(times) > TARGET_MS ? '  over target' : ''}`,
      );
    }
  } finally {
    agent.destroy();
    await app.stop();
    await schema?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

print(
  `Today and Upcoming at ${TASKS} tasks, ${RUNS} sequential requests each (round trip on loopback; target under ${TARGET_MS} ms), ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`,
);
for (const dialect of DIALECTS) await benchDialect(dialect);
