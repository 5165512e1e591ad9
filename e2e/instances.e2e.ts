import crypto from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoginResponse } from '../src/common/auth';
import type { TaskFile } from '../src/common/files';
import type { Task } from '../src/common/tasks';
import { createPgSchema, type PgSchema } from '../src/server/testing/database';
import { startTestS3, type TestS3 } from '../src/server/testing/s3';
import { ADMIN, budget, type RunningServer, startServer } from './harness';

const BASE_URL = process.env.TEST_DATABASE_URL;
if (!BASE_URL && process.env.CI === 'true') throw new Error('TEST_DATABASE_URL is needed for e2e/instances');

/**
 * Issue 11: two built server processes on one PostgreSQL database and one S3 bucket, each with its
 * own DATA_DIR, serve the same people. Needs TEST_DATABASE_URL (CI sets it).
 */
describe.runIf(BASE_URL)('two instances on one database and one bucket', () => {
  let s3: TestS3;
  let schema: PgSchema;
  let a: RunningServer;
  let b: RunningServer;
  let headers: Record<string, string>;

  const admin = () => new pg.Client({ connectionString: BASE_URL });

  beforeAll(async () => {
    s3 = await startTestS3({ prefix: 'files/' });
    // An empty schema: both instances run the migrations and the bootstrap at the same moment.
    schema = await createPgSchema(BASE_URL!, 'instances');
    const env = {
      ...s3.env,
      DATABASE_URL: schema.url,
      AI_SECRET: 'the-same-secret-on-every-instance-0123456789',
    };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
    const login = await fetch(`${a.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    expect(login.status).toBe(200);
    headers = { 'user-session': ((await login.json()) as LoginResponse).sessionId };
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await s3?.close();
    await schema?.drop();
  });

  const json = (server: RunningServer, method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function rows(sql: string): Promise<unknown[]> {
    const client = admin();
    await client.connect();
    try {
      await client.query(`set search_path = ${schema.name}`);
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  }

  it('both came up at the same moment on an empty database, with one administrator', async () => {
    expect(await rows('select username from users where is_admin')).toEqual([{ username: ADMIN.username }]);
    expect((await fetch(`${b.url}/readyz`)).status).toBe(200);
  });

  it('takes a session made on one instance on the other', async () => {
    const me = await json(b, 'GET', '/api/auth/me');
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { username: string } }).user.username).toBe(ADMIN.username);
  });

  it('tells a live stream on B of a change made on A within 2 seconds', async () => {
    const events = await fetch(`${b.url}/api/events`, { headers });
    const reader = events.body!.getReader();
    let text = '';
    const readUntil = async (marker: string) => {
      while (!text.includes(marker)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      return text;
    };
    // The stream says ': connected' once it listens.
    await readUntil(': connected');
    // Two seconds on an idle machine (spec), stretched on a busy one.
    const within = budget(2000);
    const started = Date.now();
    expect((await json(a, 'POST', '/api/tasks', { title: 'Made on A' })).status).toBe(201);
    const received = await Promise.race([
      readUntil('invalidate'),
      new Promise<string>((resolve) => setTimeout(() => resolve('timed out'), within)),
    ]);
    expect(received).toContain('/api/tasks');
    expect(Date.now() - started).toBeLessThan(within);
    await reader.cancel();
  });

  it('tells a project member on B of a change on A within 2 seconds, and refuses them on B once removed on A', async () => {
    // A second person, a member of the administrator's project.
    const created = await json(a, 'POST', '/api/admin/users', { firstName: 'Mia', email: 'mia@example.com' });
    expect(created.status).toBe(201);
    const { user, password } = (await created.json()) as {
      user: { id: number; username: string };
      password: string;
    };
    const login = await fetch(`${b.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: user.username, password }),
    });
    expect(login.status).toBe(200);
    const mia = { 'user-session': ((await login.json()) as LoginResponse).sessionId };
    const project = (await (await json(a, 'POST', '/api/projects', { name: 'Launch' })).json()) as {
      id: number;
    };
    expect(
      (await json(a, 'POST', `/api/projects/${project.id}/members`, { user: user.username, role: 'editor' }))
        .status,
    ).toBe(201);

    const events = await fetch(`${b.url}/api/events`, { headers: mia });
    const reader = events.body!.getReader();
    let text = '';
    const readUntil = async (marker: string, from: number) => {
      while (!text.slice(from).includes(marker)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      return text.slice(from);
    };
    await readUntil(': connected', 0);
    const within = budget(2000);
    const timeout = () => new Promise<string>((resolve) => setTimeout(() => resolve('timed out'), within));
    let started = Date.now();
    let mark = text.length;
    const made = await json(a, 'POST', '/api/tasks', {
      title: 'Made on A for the team',
      projectId: project.id,
    });
    expect(made.status).toBe(201);
    const task = (await made.json()) as Task;
    expect(await Promise.race([readUntil('/api/tasks', mark), timeout()])).toContain('/api/tasks');
    expect(Date.now() - started).toBeLessThan(within);
    const onB = await fetch(`${b.url}/api/tasks?projectId=${project.id}`, { headers: mia });
    expect(((await onB.json()) as Task[]).map((x) => x.title)).toEqual(['Made on A for the team']);

    started = Date.now();
    mark = text.length;
    expect((await json(a, 'DELETE', `/api/projects/${project.id}/members/${user.id}`)).status).toBe(204);
    // At once: the next request on B checks the database, not a cache.
    expect((await fetch(`${b.url}/api/tasks/${task.id}`, { headers: mia })).status).toBe(404);
    expect(await Promise.race([readUntil('/api/projects', mark), timeout()])).toContain('/api/projects');
    expect(Date.now() - started).toBeLessThan(within);
    await reader.cancel();
  });

  it('serves a file uploaded on A from B, whole and by range, and deleting on B removes the object', async () => {
    const task = (await (await json(a, 'POST', '/api/tasks', { title: 'Shared file' })).json()) as Task;
    const content = crypto.randomBytes(300_000);
    const form = new FormData();
    form.append('files', new Blob([new Uint8Array(content)]), 'shared.bin');
    const uploaded = await fetch(`${a.url}/api/tasks/${task.id}/files`, {
      method: 'POST',
      headers,
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const [file] = (await uploaded.json()) as TaskFile[];
    const keysWithFile = await s3.keys();

    const whole = await fetch(`${b.url}/api/files/${file!.id}/download`, { headers });
    expect(Buffer.from(await whole.arrayBuffer()).equals(content)).toBe(true);
    const part = await fetch(`${b.url}/api/files/${file!.id}/download`, {
      headers: { ...headers, Range: 'bytes=100-199' },
    });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(content.subarray(100, 200))).toBe(true);

    expect((await json(b, 'DELETE', `/api/files/${file!.id}`)).status).toBe(204);
    expect((await s3.keys()).length).toBe(keysWithFile.length - 1);
  });

  it('keeps no row and no object after A is killed mid-upload', async () => {
    const task = (await (await json(a, 'POST', '/api/tasks', { title: 'Crash' })).json()) as Task;
    const before = await s3.keys();
    const boundary = '----tasklane-crash';
    const request = http.request(`${a.url}/api/tasks/${task.id}/files`, {
      method: 'POST',
      headers: {
        ...headers,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(20 * 1024 * 1024),
      },
    });
    request.on('error', () => {});
    request.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="partial.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    // More than one multipart part's worth, so the object store holds an unfinished upload.
    for (let i = 0; i < 12; i += 1) request.write(crypto.randomBytes(1024 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await a.crash();
    request.destroy();
    expect(await rows(`select id from files where task_id = ${task.id}`)).toEqual([]);
    expect(await s3.keys()).toEqual(before);
  });
});
