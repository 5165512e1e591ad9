// Shared by the benchmarks: start the built app (or another process) and call it over HTTP.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import pg from 'pg';

export const DIST = path.resolve(process.env.BENCH_DIST ?? 'dist');
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn';
export const ADMIN = { username: 'bench', password: 'bench-password' };

/** The bench's output is its figures. */
export const print = (line) => process.stdout.write(`${line}\n`);

/** Starts a child process and resolves with its URL once it prints "running at <url>". */
export function startProcess(args, env, label) {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let started = false;
  // Once started, its output is read and dropped: a server logging each request would fill memory.
  const collect = (chunk) => {
    if (!started) output += chunk;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start:\n${output}`)), 30_000);
    child.stdout.on('data', () => {
      const match = output.match(/running at (http:\/\/\S+)/);
      if (!match || started) return;
      started = true;
      clearTimeout(timer);
      resolve({
        url: match[1],
        pid: child.pid,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code}:\n${output}`));
    });
  });
}

export function startApp(env) {
  const main = path.join(DIST, 'server', 'main.js');
  if (!fs.existsSync(main)) throw new Error(`${main} is missing: run npm run build (or set BENCH_DIST)`);
  // BENCH_NODE_ARGS, e.g. --cpu-prof, profiles the server.
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return startProcess(
    [...nodeArgs, main],
    {
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL,
      ...env,
    },
    'Tasklane',
  );
}

export function request(agent, method, url, { headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: payload
          ? { ...headers, 'content-type': 'application/json', 'content-length': payload.length }
          : headers,
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** A response's body as sent before Content-Encoding (br or gzip). */
const decoded = ({ headers, body }) =>
  headers['content-encoding'] === 'br'
    ? zlib.brotliDecompressSync(body)
    : headers['content-encoding'] === 'gzip'
      ? zlib.gunzipSync(body)
      : body;

/**
 * GETs `url` `runs` times in a row after 3 to warm up (the statements, the list cache): each
 * round trip's milliseconds (to the last byte, before any decompression), sorted, and how many
 * items the last answer held.
 */
export async function timeGets(agent, url, headers, runs) {
  const times = [];
  let count = 0;
  for (let run = 0; run < runs + 3; run++) {
    const start = performance.now();
    const response = await request(agent, 'GET', url, { headers });
    const ms = performance.now() - start;
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${response.body}`);
    count = JSON.parse(decoded(response)).length;
    if (run >= 3) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { times, count, p95: percentile(times, 95) };
}

/** A PostgreSQL schema of its own for one run: the app's DATABASE_URL, and a way to drop it after. */
export async function pgSchema() {
  const schema = `bench_${crypto.randomBytes(6).toString('hex')}`;
  const run = async (statement) => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create schema ${schema}`);
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { databaseUrl: url.toString(), drop: () => run(`drop schema if exists ${schema} cascade`) };
}

/** Signs the bench's administrator in: the login answer, and the headers that carry its session. */
export async function signIn(agent, appUrl) {
  const response = await request(agent, 'POST', `${appUrl}/api/auth/login`, { body: ADMIN });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.body}`);
  const login = JSON.parse(response.body);
  return { login, headers: { 'user-session': login.sessionId } };
}

export const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)];
};

/** A bare Node http server answering every request with the given bytes as JSON. */
export function startBareServer(bodyFile) {
  const source = `
    const http = require('node:http');
    const body = require('node:fs').readFileSync(${JSON.stringify(bodyFile)});
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => console.log('running at http://127.0.0.1:' + server.address().port));
    process.on('SIGTERM', () => server.close(() => process.exit(0)));
  `;
  return startProcess(['-e', source], {}, 'bare server');
}

/** POST /api/import of a Tasklane CSV (the search and views benches' 10,000 tasks): status and body. */
export const importCsv = (appUrl, headers, body, projectId) =>
  importFile(appUrl, headers, body, projectId, { name: 'tasks.csv', type: 'text/csv' });

/** POST /api/import of a file (Tasklane CSV or JSON, Todoist CSV), into a project when named: status and body. */
export function importFile(appUrl, headers, body, projectId, file) {
  const boundary = `bench${Date.now()}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
    ),
    Buffer.from(body),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${appUrl}/api/import${projectId === undefined ? '' : `?projectId=${projectId}`}`,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': payload.length,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
