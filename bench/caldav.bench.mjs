// CalDAV at 5,000 tasks (issue 30): a phone's first full sync of a project as DAVx5 makes it
// (PROPFIND Depth 1 on the collection for every href and ETag, then calendar-multiget in pages of
// 100 hrefs, one request after the other), once on a fresh server (nothing rendered or cached yet)
// and then repeated; a sync-collection REPORT with no token (every href and ETag); and one with
// nothing changed since the last token (what every periodic sync asks). Min and median of the
// repeats, on SQLite and on PostgreSQL. The tasks (varied: dates, times, repeats, sub-tasks) arrive
// through POST /api/import as a Tasklane JSON file; the client signs in with HTTP Basic, the
// username and an API token.
//
//   npm run build && node bench/caldav.bench.mjs
//
// BENCH_DIST: the build to run (default dist). TEST_DATABASE_URL: PostgreSQL server (default
// postgres://postgres@127.0.0.1:5432/test; a fresh schema is created and dropped). BENCH_DIALECTS:
// sqlite,postgres. BENCH_REPEATS: full syncs per figure (default 5); the quiet sync-collection is
// timed ten times as often.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ADMIN, importFile, median, pgSchema, print, request, signIn, startApp } from './lib/app.mjs';

const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const TASKS = 5000;
const PAGE = 100;
const TARGETS = { fullSyncMs: 5000, quietSyncMs: 20 };

/**
 * 5,000 tasks as a Tasklane JSON file, as varied as a real project: a sentence of description each,
 * a due date on a third (half of those at a time of day in Berlin, so with a VTIMEZONE), a weekly
 * repeat on one in ten, every priority, and one in five a sub-task of the task before it.
 */
function tasksFile() {
  const tasks = Array.from({ length: TASKS }, (_, i) => {
    const due = i % 3 === 0;
    return {
      id: i + 1,
      parentId: i % 5 === 4 ? i : null,
      title: `Task ${i}: follow up on the report`,
      description: 'A sentence of description, as people write them.',
      dueDate: due ? `2026-12-${String((i % 28) + 1).padStart(2, '0')}` : null,
      ...(due && i % 2 === 0 ? { dueTime: '09:30', dueTimeZone: 'Europe/Berlin' } : {}),
      ...(due && i % 10 === 0 ? { recurrence: 'FREQ=WEEKLY' } : {}),
      priority: (i % 4) + 1,
      completed: false,
      archived: false,
      checklistItems: [],
    };
  });
  return JSON.stringify({ format: 'tasklane', version: 1, tasks, agents: [] });
}

const xml = (body) => `<?xml version="1.0" encoding="utf-8"?>\n${body}`;
const PROPFIND_ETAGS = xml(
  '<d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getetag/><d:getcontenttype/></d:prop></d:propfind>',
);
const PROPFIND_TOKEN = xml('<d:propfind xmlns:d="DAV:"><d:prop><d:sync-token/></d:prop></d:propfind>');
const multiget = (hrefs) =>
  xml(
    `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>${hrefs
      .map((href) => `<d:href>${href}</d:href>`)
      .join('')}</c:calendar-multiget>`,
  );
const syncCollection = (token) =>
  xml(
    `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`,
  );

/** The hrefs of a multistatus's responses, and how many carry calendar data. */
const hrefsOf = (body) =>
  [...body.matchAll(/<(?:[\w-]+:)?href>([^<]*)<\/(?:[\w-]+:)?href>/g)].map((m) => m[1]);
const calendarDataCount = (body) => (body.match(/BEGIN:VTODO/g) ?? []).length;
const syncTokenOf = (body) => body.match(/<(?:[\w-]+:)?sync-token>([^<]*)</)?.[1];

/** Min and median of `runs` timings of `measure()` (ms). */
async function timings(runs, measure) {
  const times = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    await measure();
    times.push(performance.now() - start);
  }
  return { min: Math.min(...times), median: median(times) };
}

async function benchDialect(dialect) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-caldav-bench-'));
  const env = { DATA_DIR: dataDir };
  const schema = dialect === 'postgres' ? await pgSchema() : undefined;
  if (schema) env.DATABASE_URL = schema.databaseUrl;
  const app = await startApp(env);
  // One connection, as a phone's sync adapter uses.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { headers } = await signIn(agent, app.url);
    const api = async (method, url, body, status = 200) => {
      const response = await request(agent, method, `${app.url}${url}`, { headers, body });
      if (response.status !== status)
        throw new Error(`${method} ${url}: ${response.status} ${response.body}`);
      return JSON.parse(response.body.toString() || 'null');
    };
    const project = await api('POST', '/api/projects', { name: 'Synced' }, 201);
    const importStart = performance.now();
    const imported = await importFile(app.url, headers, tasksFile(), project.id, {
      name: 'tasks.json',
      type: 'application/json',
    });
    if (imported.status !== 200) throw new Error(`import failed: ${imported.body}`);
    const importMs = performance.now() - importStart;
    const listed = await api('GET', `/api/tasks?projectId=${project.id}&view=summary`);
    const count = (test) => listed.filter(test).length;
    const shape = [
      listed.length,
      count((t) => t.parentId),
      count((t) => t.dueTime),
      count((t) => t.recurrence),
    ];
    if (shape.join() !== [TASKS, TASKS / 5, 834, 167].join())
      throw new Error(`imported ${shape.join(', ')} (tasks, sub-tasks, timed, repeating)`);
    const { token } = await api('POST', '/api/tokens', { name: 'Phone', scopes: ['read', 'write'] }, 201);

    const authorization = `Basic ${Buffer.from(`${ADMIN.username}:${token}`).toString('base64')}`;
    const collection = `/dav/calendars/${encodeURIComponent(ADMIN.username)}/${project.id}/`;
    const dav = (method, url, body, extra = {}) =>
      new Promise((resolve, reject) => {
        const payload = Buffer.from(body);
        const req = http.request(
          `${app.url}${url}`,
          {
            method,
            agent,
            headers: {
              authorization,
              'content-type': 'application/xml; charset=utf-8',
              'content-length': payload.length,
              ...extra,
            },
          },
          (res) => {
            const chunks = [];
            res.on('data', (chunk) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString();
              if (res.statusCode !== 207)
                reject(new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 500)}`));
              else resolve(text);
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(payload);
      });

    /** PROPFIND Depth 1, then multiget in pages: every task's text, as a first sync reads it. */
    const fullSync = async () => {
      const listing = await dav('PROPFIND', collection, PROPFIND_ETAGS, { depth: '1' });
      const hrefs = hrefsOf(listing).filter((href) => href.endsWith('.ics'));
      if (hrefs.length !== TASKS) throw new Error(`PROPFIND listed ${hrefs.length} resources, not ${TASKS}`);
      let read = 0;
      for (let i = 0; i < hrefs.length; i += PAGE) {
        read += calendarDataCount(
          await dav('REPORT', collection, multiget(hrefs.slice(i, i + PAGE)), { depth: '1' }),
        );
      }
      if (read !== TASKS) throw new Error(`multiget returned ${read} tasks, not ${TASKS}`);
    };
    /** sync-collection with no token: every href and ETag (DAVx5's first step when the server offers it). */
    const initialSyncCollection = async () => {
      const body = await dav('REPORT', collection, syncCollection(''), { depth: '1' });
      const count = hrefsOf(body).filter((href) => href.endsWith('.ics')).length;
      if (count !== TASKS) throw new Error(`sync-collection listed ${count} resources, not ${TASKS}`);
    };
    const current = syncTokenOf(await dav('PROPFIND', collection, PROPFIND_TOKEN, { depth: '0' }));
    if (!current) throw new Error('the collection has no sync-token');
    const quietSync = async () => {
      const body = await dav('REPORT', collection, syncCollection(current), { depth: '1' });
      if (hrefsOf(body).some((href) => href.endsWith('.ics'))) throw new Error('a quiet sync listed changes');
    };

    // The very first one on a fresh server, alone: nothing rendered or cached yet.
    const cold = await timings(1, fullSync);
    const full = await timings(REPEATS, fullSync);
    const initial = await timings(REPEATS, initialSyncCollection);
    for (let i = 0; i < 5; i++) await quietSync();
    const quiet = await timings(REPEATS * 10, quietSync);
    // For scale: the smallest signed-in request (Basic sign-in with the token, one property).
    const principal = `/dav/principals/${encodeURIComponent(ADMIN.username)}/`;
    const PROPFIND_NAME = xml('<d:propfind xmlns:d="DAV:"><d:prop><d:displayname/></d:prop></d:propfind>');
    const signInOnly = await timings(REPEATS * 10, () =>
      dav('PROPFIND', principal, PROPFIND_NAME, { depth: '0' }),
    );

    const row = (label, { min, median: mid }, target) =>
      print(
        `${label.padEnd(52)} ${min.toFixed(1).padStart(9)} ${mid.toFixed(1).padStart(11)}${target !== undefined && mid > target ? '  over target' : ''}`,
      );
    print(
      `\n${dialect}: ${TASKS} varied tasks in one project (imported in ${(importMs / 1000).toFixed(1)} s)`,
    );
    print(`${'figure'.padEnd(52)} ${'min ms'.padStart(9)} ${'median ms'.padStart(11)}`);
    row(`first full sync, the server's first ever (one run)`, cold, TARGETS.fullSyncMs);
    row(`first full sync (PROPFIND Depth 1 + multiget by ${PAGE})`, full, TARGETS.fullSyncMs);
    row('sync-collection from no token (every href and ETag)', initial);
    row('sync-collection, nothing changed', quiet, TARGETS.quietSyncMs);
    row('for scale: PROPFIND Depth 0 of the principal', signInOnly);
  } finally {
    agent.destroy();
    await app.stop();
    await schema?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

print(
  `CalDAV: a first full sync and a quiet sync-collection of a ${TASKS}-task project, one connection, ${REPEATS} full syncs and ${REPEATS * 10} quiet ones (round trip on loopback; targets: full sync under ${TARGETS.fullSyncMs} ms, quiet sync under ${TARGETS.quietSyncMs} ms), ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`,
);
for (const dialect of DIALECTS) await benchDialect(dialect);
