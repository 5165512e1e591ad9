import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ActivityEntry, taskActivityPath } from '../../common/activity';
import { FILE_COUNTS_PATH, type TaskFile, taskFilesPath } from '../../common/files';
import { PROJECT_MESSAGES } from '../../common/projects';
import { ACCESS_MESSAGES } from '../access';
import { nowIso } from '../db/values';
import { SESSION_COOKIE } from '../http/session';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import {
  CALLERS,
  type Caller,
  expectedAnswers,
  listenToTeam,
  shareProject,
  signUpTeam,
  type Team,
} from '../testing/team';
import { contentDisposition, FILE_MESSAGES, sanitizeFileName, servedContentType } from './service';
import { createDiskFileStore, instanceId } from './store';

const MAX_UPLOAD_BYTES = 64 * 1024;

interface RawPart {
  /** Written into the header as is, so tests control every byte of it. */
  disposition: string;
  contentType?: string;
  content: Buffer | string;
}

const BOUNDARY = '----tasklane-test-boundary';

/** A multipart body written by hand: FormData would escape exactly the names these tests need raw. */
function multipartBody(parts: RawPart[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: ${part.disposition}\r\n` +
          `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      Buffer.from(part.content),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** Buffer's own type is wider than what fetch and Blob accept in the DOM typings. */
const bytes = (content: Buffer | string) => (typeof content === 'string' ? content : new Uint8Array(content));

const filePart = (name: string, content: Buffer | string, contentType?: string): RawPart => ({
  disposition: `form-data; name="files"; filename="${name}"`,
  content,
  contentType,
});

describe.each(testDialects)('files on %s', (dialect) => {
  let t: TestApp;
  let base: string;

  beforeEach(async () => {
    t = await createTestApp(dialect, { env: { MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    // A client can hold the whole body of a streamed download a moment before the server sees its
    // response finish; that keep-alive socket then missed close()'s sweep of idle ones and would
    // hold the close for the keep-alive timeout.
    t.app.server.closeAllConnections();
    await t.close();
  });

  const filesDir = () => path.join(t.dataDir, 'files');
  const storedBlobs = () => fs.readdirSync(filesDir()).filter((name) => name !== '.incoming');
  /** Partial uploads of every instance (each has a folder of its own under .incoming). */
  const incoming = () =>
    fs
      .readdirSync(path.join(filesDir(), '.incoming'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);

  async function createTask(user: TestUser, title = 'With files'): Promise<number> {
    const now = nowIso();
    const row = await t.ctx.db.kysely
      .insertInto('tasks')
      .values({
        user_id: user.user.id,
        project_id: user.inboxId,
        title,
        completed: false,
        archived: false,
        position: 0,
        ai_assisted: false,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  const postRaw = (user: TestUser | null, taskId: number, body: Buffer, contentType?: string) =>
    fetch(`${base}/api/tasks/${taskId}/files`, {
      method: 'POST',
      headers: {
        ...(user?.headers ?? {}),
        'content-type': contentType ?? `multipart/form-data; boundary=${BOUNDARY}`,
      },
      body: new Uint8Array(body),
    });

  /** The browser's way: FormData with the repeated field `files`. */
  function uploadForm(
    user: TestUser,
    taskId: number,
    files: Array<{ name: string; content: Buffer | string; type?: string }>,
  ) {
    const form = new FormData();
    for (const f of files) form.append('files', new Blob([bytes(f.content)], { type: f.type ?? '' }), f.name);
    return fetch(`${base}/api/tasks/${taskId}/files`, { method: 'POST', headers: user.headers, body: form });
  }

  const download = (user: TestUser, fileId: number) =>
    fetch(`${base}/api/files/${fileId}/download`, { headers: user.headers });

  it('counts the files of every task in one call, for the caller only', async () => {
    const user = await t.signUp();
    const other = await t.signUp();
    const first = await createTask(user, 'First');
    const second = await createTask(user, 'Second');
    await createTask(user, 'Without files');
    const foreign = await createTask(other, 'Not yours');
    expect(
      (
        await uploadForm(user, first, [
          { name: 'a.txt', content: 'a' },
          { name: 'b.txt', content: 'b' },
        ])
      ).status,
    ).toBe(201);
    expect((await uploadForm(user, second, [{ name: 'c.txt', content: 'c' }])).status).toBe(201);
    expect((await uploadForm(other, foreign, [{ name: 'd.txt', content: 'd' }])).status).toBe(201);

    const response = await fetch(`${base}/api/files/counts`, { headers: user.headers });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ [first]: 2, [second]: 1 });
    expect((await fetch(`${base}/api/files/counts`)).status).toBe(401);
  });

  it('uploads two files and downloads the same bytes with safe headers', async () => {
    const user = await t.signUp();
    const taskId = await createTask(user);
    const binary = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7) % 256));
    const response = await uploadForm(user, taskId, [
      { name: 'notes.txt', content: 'hello files', type: 'text/plain' },
      { name: 'Résumé 2024.bin', content: binary, type: 'application/octet-stream' },
    ]);
    expect(response.status).toBe(201);
    const files = (await response.json()) as TaskFile[];
    expect(files).toEqual([
      {
        id: expect.any(Number),
        taskId,
        originalName: 'notes.txt',
        fileSize: 11,
        contentType: 'text/plain',
        createdAt: expect.any(String),
      },
      expect.objectContaining({ taskId, originalName: 'Résumé 2024.bin', fileSize: binary.length }),
    ]);

    const list = await user.request('GET', `/api/tasks/${taskId}/files`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual(files);

    const text = await download(user, files[0]!.id);
    expect(text.status).toBe(200);
    expect(await text.text()).toBe('hello files');
    expect(text.headers.get('content-type')).toBe('text/plain');

    const bin = await download(user, files[1]!.id);
    expect(Buffer.from(await bin.arrayBuffer()).equals(binary)).toBe(true);
    expect(bin.headers.get('content-length')).toBe(String(binary.length));
    expect(bin.headers.get('content-disposition')).toBe(
      `attachment; filename="R_sum_ 2024.bin"; filename*=UTF-8''R%C3%A9sum%C3%A9%202024.bin`,
    );
    expect(bin.headers.get('x-content-type-options')).toBe('nosniff');
    expect(bin.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(bin.headers.get('cache-control')).toBe('private, no-store');
    expect(storedBlobs()).toHaveLength(2);
    expect(incoming()).toEqual([]);
  });

  it('lists files oldest first and keeps the stored name apart from the original', async () => {
    const user = await t.signUp();
    const taskId = await createTask(user);
    await uploadForm(user, taskId, [{ name: 'first.txt', content: '1' }]);
    await uploadForm(user, taskId, [{ name: 'second.txt', content: '2' }]);
    const list = (await user.request('GET', `/api/tasks/${taskId}/files`)).json() as TaskFile[];
    expect(list.map((f) => f.originalName)).toEqual(['first.txt', 'second.txt']);
    for (const blob of storedBlobs()) expect(blob).toMatch(/^[a-f0-9]{32}$/);
  });

  it('downloads with the session cookie alone, so a plain link works', async () => {
    const user = await t.signUp();
    const taskId = await createTask(user);
    const [file] = (await (
      await uploadForm(user, taskId, [{ name: 'a.txt', content: 'via cookie' }])
    ).json()) as TaskFile[];
    const response = await fetch(`${base}/api/files/${file!.id}/download`, {
      headers: { cookie: `${SESSION_COOKIE}=${user.sessionId}` },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('via cookie');
  });

  describe('limits', () => {
    it('accepts a file of exactly MAX_UPLOAD_BYTES', async () => {
      const user = await t.signUp();
      const taskId = await createTask(user);
      const response = await uploadForm(user, taskId, [
        { name: 'exact.bin', content: Buffer.alloc(MAX_UPLOAD_BYTES) },
      ]);
      expect(response.status).toBe(201);
    });

    it('refuses a file over MAX_UPLOAD_BYTES with 413 and keeps nothing of the request', async () => {
      const user = await t.signUp();
      const taskId = await createTask(user);
      const response = await uploadForm(user, taskId, [
        { name: 'small.txt', content: 'fits' },
        { name: 'big.bin', content: Buffer.alloc(MAX_UPLOAD_BYTES + 1) },
        { name: 'after.txt', content: 'never read' },
      ]);
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ message: FILE_MESSAGES.tooLarge('big.bin', MAX_UPLOAD_BYTES) });
      expect(FILE_MESSAGES.tooLarge('big.bin', MAX_UPLOAD_BYTES)).toBe(
        '"big.bin" is larger than the 64.00 KB upload limit.',
      );
      expect((await user.request('GET', `/api/tasks/${taskId}/files`)).json()).toEqual([]);
      expect(storedBlobs()).toEqual([]);
      expect(incoming()).toEqual([]);
    });

    it('answers a much larger upload with 413 too, the rest of the body drained', async () => {
      const user = await t.signUp();
      const taskId = await createTask(user);
      const response = await uploadForm(user, taskId, [
        { name: 'huge.bin', content: Buffer.alloc(8 * 1024 * 1024) },
      ]);
      expect(response.status).toBe(413);
      expect(storedBlobs()).toEqual([]);
      expect(incoming()).toEqual([]);
    });

    it(`refuses more than the per-request file count`, async () => {
      const user = await t.signUp();
      const taskId = await createTask(user);
      const many = Array.from({ length: 21 }, (_, i) => ({ name: `f${i}.txt`, content: 'x' }));
      const response = await uploadForm(user, taskId, many);
      expect(response.status).toBe(413);
      expect((await response.json()).message).toBe(FILE_MESSAGES.tooManyFiles);
      expect(storedBlobs()).toEqual([]);
    });
  });

  it('leaves no row and no file when the client aborts mid-upload', async () => {
    const user = await t.signUp();
    const taskId = await createTask(user);
    const { port } = t.app.server.address() as AddressInfo;
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="partial.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/api/tasks/${taskId}/files`,
      headers: {
        ...user.headers,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(head.length + 60_000),
      },
    });
    request.on('error', () => {});
    request.write(head);
    request.write(Buffer.alloc(30_000, 1));
    await waitFor(() => incoming().length === 1);
    request.destroy();

    await waitFor(() => incoming().length === 0);
    expect(storedBlobs()).toEqual([]);
    expect(await t.ctx.db.kysely.selectFrom('files').selectAll().execute()).toEqual([]);
  });

  it('stores hostile names safely and serves them as attachments', async () => {
    const user = await t.signUp();
    const taskId = await createTask(user);
    const long = `${'a'.repeat(300)}.txt`;
    const response = await postRaw(
      user,
      taskId,
      multipartBody([
        filePart('../../x', 'traversal'),
        // The parser itself drops a part whose name carries CR or LF, before it reaches us.
        {
          disposition: `form-data; name="files"; filename*=UTF-8''evil%0D%0ASet-Cookie%3A%20a%3Db.txt`,
          content: 'crlf',
        },
        {
          disposition: `form-data; name="files"; filename*=UTF-8''tab%09bell%07esc%1B%E2%80%AEfdp.exe`,
          content: 'controls',
        },
        filePart(long, 'long'),
        filePart('<script>alert(1)<\\script>.html', '<script>alert(1)</script>', 'text/html'),
        filePart('   ', 'blank', 'not a type'),
      ]),
    );
    expect(response.status).toBe(201);
    const files = (await response.json()) as TaskFile[];
    expect(files.map((f) => f.originalName)).toEqual([
      'x',
      'tabbellescfdp.exe',
      `${'a'.repeat(251)}.txt`,
      'script>.html',
      'file',
    ]);
    expect(files[2]!.originalName).toHaveLength(255);
    expect(files[4]!.contentType).toBe('application/octet-stream');

    for (const file of files) {
      const served = await download(user, file.id);
      await served.arrayBuffer();
      expect(served.status).toBe(200);
      expect(served.headers.get('content-disposition')).toMatch(
        /^attachment; filename="[^"]*"; filename\*=UTF-8''/,
      );
    }
    expect(storedBlobs()).toHaveLength(5);
    for (const blob of storedBlobs()) expect(blob).toMatch(/^[a-f0-9]{32}$/);
  });

  it('never serves HTML, SVG, XML or scripts inline', async () => {
    const user = await t.signUp();
    const taskId = await createTask(user);
    const types = ['text/html', 'image/svg+xml', 'application/xhtml+xml', 'text/xml', 'text/javascript'];
    const response = await uploadForm(
      user,
      taskId,
      types.map((type, i) => ({ name: `page${i}`, content: '<svg onload=alert(1)>', type })),
    );
    const files = (await response.json()) as TaskFile[];
    expect(files.map((f) => f.contentType)).toEqual(types);
    for (const file of files) {
      const served = await download(user, file.id);
      await served.arrayBuffer();
      expect(served.headers.get('content-type')).toBe('application/octet-stream');
      expect(served.headers.get('content-disposition')).toMatch(/^attachment;/);
    }
  });

  it('answers another user with 404 on every route, and a signed-out caller with 401', async () => {
    const owner = await t.signUp();
    const other = await t.signUp();
    const taskId = await createTask(owner);
    const [file] = (await (
      await uploadForm(owner, taskId, [{ name: 'private.txt', content: 'mine' }])
    ).json()) as TaskFile[];
    const fileId = file!.id;

    expect((await other.request('GET', `/api/tasks/${taskId}/files`)).statusCode).toBe(404);
    const upload = await uploadForm(other, taskId, [{ name: 'intruder.txt', content: 'x' }]);
    expect(upload.status).toBe(404);
    expect(await upload.json()).toEqual({ message: FILE_MESSAGES.taskNotFound });
    expect((await download(other, fileId)).status).toBe(404);
    const deleted = await other.request('DELETE', `/api/files/${fileId}`);
    expect(deleted.statusCode).toBe(404);
    expect(deleted.json()).toEqual({ message: FILE_MESSAGES.fileNotFound });

    // The other user's own task does not open a way to the owner's file either.
    const otherTask = await createTask(other);
    expect((await other.request('GET', `/api/tasks/${otherTask}/files`)).json()).toEqual([]);

    for (const [method, url] of [
      ['GET', `/api/tasks/${taskId}/files`],
      ['GET', `/api/files/${fileId}/download`],
      ['DELETE', `/api/files/${fileId}`],
    ] as const) {
      const response = await t.app.inject({ method, url });
      expect(response.statusCode, url).toBe(401);
    }
    expect((await postRaw(null, taskId, multipartBody([filePart('a.txt', 'x')]))).status).toBe(401);

    expect(await (await download(owner, fileId)).text()).toBe('mine');
    expect(storedBlobs()).toHaveLength(1);
  });

  it('deletes a file: the row and the blob', async () => {
    const user = await t.signUp();
    const taskId = await createTask(user);
    const files = (await (
      await uploadForm(user, taskId, [
        { name: 'a.txt', content: 'a' },
        { name: 'b.txt', content: 'b' },
      ])
    ).json()) as TaskFile[];
    const response = await user.request('DELETE', `/api/files/${files[0]!.id}`);
    expect(response.statusCode).toBe(204);
    expect((await user.request('GET', `/api/tasks/${taskId}/files`)).json()).toEqual([files[1]]);
    expect(storedBlobs()).toHaveLength(1);
    expect((await user.request('DELETE', `/api/files/${files[0]!.id}`)).statusCode).toBe(404);
    expect((await download(user, files[0]!.id)).status).toBe(404);
  });

  it('deleting a task removes its blobs', async () => {
    const user = await t.signUp();
    const taskId = await createTask(user);
    const keptTask = await createTask(user, 'Kept');
    await uploadForm(user, taskId, [
      { name: 'a.txt', content: 'a' },
      { name: 'b.txt', content: 'b' },
    ]);
    await uploadForm(user, keptTask, [{ name: 'kept.txt', content: 'kept' }]);
    expect(storedBlobs()).toHaveLength(3);
    expect((await user.request('DELETE', `/api/tasks/${taskId}`)).statusCode).toBeLessThan(300);
    await waitFor(() => storedBlobs().length === 1);
    expect((await user.request('GET', `/api/tasks/${keptTask}/files`)).json()).toHaveLength(1);
  });

  it('answers 404 with a message when the content is missing from storage', async () => {
    const user = await t.signUp();
    const taskId = await createTask(user);
    const [file] = (await (
      await uploadForm(user, taskId, [{ name: 'gone.txt', content: 'x' }])
    ).json()) as TaskFile[];
    for (const blob of storedBlobs()) fs.rmSync(path.join(filesDir(), blob));
    const response = await download(user, file!.id);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: FILE_MESSAGES.contentMissing });
  });

  describe('bad requests', () => {
    it('refuses a body that is not multipart', async () => {
      const user = await t.signUp();
      const taskId = await createTask(user);
      const json = await user.request('POST', `/api/tasks/${taskId}/files`, { files: ['x'] });
      expect(json.statusCode).toBe(415);
      expect(json.json()).toEqual({ message: FILE_MESSAGES.notMultipart });
      const octets = await postRaw(user, taskId, Buffer.from('raw'), 'application/octet-stream');
      expect(octets.status).toBe(415);
      expect((await octets.json()).message).toEqual(expect.any(String));
    });

    it('refuses a form without files, a file in another field, and a broken body', async () => {
      const user = await t.signUp();
      const taskId = await createTask(user);
      const empty = await postRaw(
        user,
        taskId,
        multipartBody([
          { disposition: 'form-data; name="note"', content: 'no file', contentType: 'text/plain' },
        ]),
      );
      expect(empty.status).toBe(400);
      expect(await empty.json()).toEqual({ message: FILE_MESSAGES.noFiles });

      const wrong = await postRaw(
        user,
        taskId,
        multipartBody([
          filePart('ok.txt', 'ok'),
          { disposition: 'form-data; name="avatar"; filename="a.png"', content: 'x' },
        ]),
      );
      expect(wrong.status).toBe(400);
      expect(await wrong.json()).toEqual({ message: FILE_MESSAGES.wrongField('avatar') });

      const truncated = await postRaw(
        user,
        taskId,
        multipartBody([filePart('a.txt', 'abc')]).subarray(0, 120),
      );
      expect(truncated.status).toBe(400);
      expect(await truncated.json()).toEqual({ message: FILE_MESSAGES.malformed });

      const noBoundary = await postRaw(user, taskId, Buffer.from('x'), 'multipart/form-data');
      expect(noBoundary.status).toBe(400);

      expect(storedBlobs()).toEqual([]);
      expect(incoming()).toEqual([]);
      expect(await t.ctx.db.kysely.selectFrom('files').selectAll().execute()).toEqual([]);
    });

    it('answers a malformed id with 404, as the tasks routes do', async () => {
      const user = await t.signUp();
      const bad = await user.request('GET', '/api/tasks/abc/files');
      expect(bad.statusCode).toBe(404);
      expect(bad.json().message).toEqual(expect.any(String));
      const huge = await user.request('GET', '/api/files/99999999999999999999/download');
      expect(huge.statusCode).toBe(404);
      expect((await user.request('GET', '/api/tasks/999999/files')).statusCode).toBe(404);
    });
  });

  it('clears its own partial uploads when it starts again, and others’ once they are old', async () => {
    const own = fs
      .readdirSync(path.join(filesDir(), '.incoming'))
      .find((name) => fs.statSync(path.join(filesDir(), '.incoming', name)).isDirectory())!;
    // kill -9 mid-upload: a partial file stays in this instance's folder.
    fs.writeFileSync(path.join(filesDir(), '.incoming', own, 'a'.repeat(32)), 'partial');
    // Another instance sharing the folder, with an upload in progress.
    fs.mkdirSync(path.join(filesDir(), '.incoming', 'other'), { recursive: true });
    fs.writeFileSync(path.join(filesDir(), '.incoming', 'other', 'b'.repeat(32)), 'in progress');
    expect(incoming()).toHaveLength(2);

    createDiskFileStore(filesDir(), instanceId(t.dataDir));
    expect(incoming()).toEqual(['b'.repeat(32)]);
    await t.ctx.fileStore.sweepIncomplete(60_000);
    expect(incoming()).toEqual(['b'.repeat(32)]);
    await t.ctx.fileStore.sweepIncomplete(0);
    expect(incoming()).toEqual([]);
  });
});

describe.each(testDialects)('files in a shared project on %s', (dialect) => {
  let t: TestApp;
  let team: Team;
  let projectId: number;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    team = await signUpTeam(t);
    projectId = await shareProject(team);
  });
  afterAll(async () => {
    await t.close();
  });

  const upload = (user: TestUser, taskId: number, name: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/tasks/${taskId}/files`,
      headers: { ...user.headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: multipartBody([filePart(name, `content of ${name}`, 'text/plain')]),
    });

  /** A task of the shared project with one file, uploaded by its editor. */
  async function taskWithFile(): Promise<{ taskId: number; file: TaskFile }> {
    const created = await team.editor.request('POST', '/api/tasks', { title: 'Launch', projectId });
    expect(created.statusCode, created.body).toBe(201);
    const taskId = (created.json() as { id: number }).id;
    const uploaded = await upload(team.editor, taskId, 'plan.txt');
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    return { taskId, file: (uploaded.json() as TaskFile[])[0]! };
  }
  const filesOf = async (taskId: number) =>
    (await team.owner.request('GET', `/api/tasks/${taskId}/files`)).json() as TaskFile[];
  const fileActivity = async (taskId: number) =>
    ((await team.owner.request('GET', `/api/tasks/${taskId}/activity`)).json() as ActivityEntry[])
      .filter((entry) => entry.kind === 'file_added' || entry.kind === 'file_removed')
      .map((entry) => ({ kind: entry.kind, ...entry.data }));

  type Route = {
    name: string;
    call: (caller: TestUser, taskId: number, file: TaskFile) => Promise<LightMyRequestResponse>;
    expected: Record<Caller, number>;
    notFound: string;
    activity?: { kind: string; fileName: string };
  };
  const routes: Route[] = [
    {
      name: 'GET /api/tasks/:taskId/files',
      call: (caller, taskId) => caller.request('GET', `/api/tasks/${taskId}/files`),
      expected: expectedAnswers('viewer', 200),
      notFound: FILE_MESSAGES.taskNotFound,
    },
    {
      name: 'POST /api/tasks/:taskId/files',
      call: (caller, taskId) => upload(caller, taskId, 'notes.txt'),
      expected: expectedAnswers('editor', 201),
      notFound: FILE_MESSAGES.taskNotFound,
      activity: { kind: 'file_added', fileName: 'notes.txt' },
    },
    {
      name: 'GET /api/files/:id/download',
      call: (caller, _taskId, file) => caller.request('GET', `/api/files/${file.id}/download`),
      expected: expectedAnswers('viewer', 200),
      notFound: FILE_MESSAGES.fileNotFound,
    },
    {
      name: 'DELETE /api/files/:id',
      call: (caller, _taskId, file) => caller.request('DELETE', `/api/files/${file.id}`),
      expected: expectedAnswers('editor', 204),
      notFound: FILE_MESSAGES.fileNotFound,
      activity: { kind: 'file_removed', fileName: 'plan.txt' },
    },
  ];

  it.each(routes)(
    '$name follows the role table; a non-member gets 404 and changes nothing',
    async (route) => {
      const got: Record<string, number> = {};
      for (const caller of CALLERS) {
        const { taskId, file } = await taskWithFile();
        const before = await fileActivity(taskId);
        const response = await route.call(team[caller], taskId, file);
        got[caller] = response.statusCode;
        const after = await fileActivity(taskId);
        if (response.statusCode >= 400) {
          const { message } = response.json() as { message: string };
          expect(response.json()).toEqual({ message });
          if (response.statusCode === 403) expect(message).toBe(ACCESS_MESSAGES.editor);
          else expect(message).toBe(route.notFound);
          expect(await filesOf(taskId)).toEqual([file]);
          expect(after).toEqual(before);
        } else if (route.activity) {
          expect(after).toEqual([route.activity, ...before]);
        } else {
          expect(after).toEqual(before);
        }
        if (response.statusCode === 200 && route.name.endsWith('download')) {
          expect(response.body).toBe('content of plan.txt');
        }
      }
      expect(got).toEqual(route.expected);
    },
  );

  it('an upload records who uploaded; the upload activity and lists reach every member, not the non-member', async () => {
    const { taskId } = await taskWithFile();
    const { heard, stop } = await listenToTeam(t, team);
    try {
      const response = await upload(team.admin, taskId, 'more.txt');
      expect(response.statusCode).toBe(201);
      await expect
        .poll(() => CALLERS.filter((caller) => heard[caller].includes(taskFilesPath(taskId))))
        .toEqual(CALLERS.filter((caller) => caller !== 'non-member'));
      expect(heard.viewer).toEqual(expect.arrayContaining([FILE_COUNTS_PATH, taskActivityPath(taskId)]));
      expect(heard['non-member']).toEqual([]);
    } finally {
      stop();
    }
    const row = await t.ctx.db.kysely
      .selectFrom('files')
      .select('user_id')
      .where('original_name', '=', 'more.txt')
      .executeTakeFirstOrThrow();
    expect(row.user_id).toBe(team.admin.user.id);
  });

  it("counts the files of every project's tasks the caller can see, and none of others'", async () => {
    const { taskId } = await taskWithFile();
    const mine = (await team['non-member'].request('POST', '/api/tasks', { title: 'Mine' })).json() as {
      id: number;
    };
    expect((await upload(team['non-member'], mine.id, 'own.txt')).statusCode).toBe(201);
    const viewerCounts = (await team.viewer.request('GET', FILE_COUNTS_PATH)).json() as Record<
      string,
      number
    >;
    expect(viewerCounts[taskId]).toBe(1);
    expect(viewerCounts[mine.id]).toBeUndefined();
    const outsiderCounts = (await team['non-member'].request('GET', FILE_COUNTS_PATH)).json();
    expect(outsiderCounts).toEqual({ [mine.id]: 1 });
  });

  it('an archived project is read-only: 409 for an upload or a delete, downloads still work', async () => {
    const oldProject = await shareProject(team, 'Old');
    const task = (
      await team.owner.request('POST', '/api/tasks', { title: 'Old', projectId: oldProject })
    ).json();
    const [file] = (await upload(team.owner, task.id, 'old.txt')).json() as TaskFile[];
    expect(
      (await team.owner.request('PATCH', `/api/projects/${oldProject}`, { archived: true })).statusCode,
    ).toBe(200);
    for (const response of [
      await upload(team.editor, task.id, 'late.txt'),
      await team.editor.request('DELETE', `/api/files/${file!.id}`),
    ]) {
      expect([response.statusCode, response.json()]).toEqual([409, { message: PROJECT_MESSAGES.archived }]);
    }
    expect((await team.viewer.request('GET', `/api/files/${file!.id}/download`)).body).toBe(
      'content of old.txt',
    );
  });
});

describe('file name and header rules', () => {
  it('sanitizes original names', () => {
    expect(sanitizeFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFileName('C:\\Users\\me\\doc.pdf')).toBe('doc.pdf');
    expect(sanitizeFileName('a\r\nb\u0000c\u202etxt.exe')).toBe('abctxt.exe');
    expect(sanitizeFileName('  spaced.txt  ')).toBe('spaced.txt');
    expect(sanitizeFileName('')).toBe('file');
    expect(sanitizeFileName(undefined)).toBe('file');
    expect(sanitizeFileName('..')).toBe('file');
    const emoji = sanitizeFileName(`${'😀'.repeat(300)}.png`);
    expect(Array.from(emoji)).toHaveLength(255);
    expect(emoji.endsWith('.png')).toBe(true);
    expect(sanitizeFileName('x'.repeat(400))).toHaveLength(255);
  });

  it('escapes names in Content-Disposition', () => {
    expect(contentDisposition('a "quoted" \\ name.txt')).toBe(
      `attachment; filename="a _quoted_ _ name.txt"; filename*=UTF-8''a%20%22quoted%22%20%5C%20name.txt`,
    );
    expect(contentDisposition("日本's (1)*.txt")).toBe(
      `attachment; filename="__'s (1)*.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%27s%20%281%29%2A.txt`,
    );
  });

  it('serves active content as octet-stream', () => {
    for (const type of [
      'text/html',
      'image/svg+xml',
      'application/xml',
      'application/javascript',
      'text/xsl',
    ]) {
      expect(servedContentType(type)).toBe('application/octet-stream');
    }
    for (const type of ['image/png', 'application/pdf', 'text/plain', 'video/mp4']) {
      expect(servedContentType(type)).toBe(type);
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
