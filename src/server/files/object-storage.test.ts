import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TaskFile } from '../../common/files';
import type { Task } from '../../common/tasks';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { startTestS3, type TestS3 } from '../testing/s3';
import { createS3FileStore } from './s3-store';

const MAX_UPLOAD_BYTES = 256 * 1024;
const PREFIX = 'tasklane/';

interface Harness {
  t: TestApp;
  base: string;
  user: TestUser;
}

async function startApp(
  dialect: (typeof testDialects)[number],
  env: Record<string, string>,
): Promise<Harness> {
  const t = await createTestApp(dialect, { env: { MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES), ...env } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  return { t, base, user: await t.signUp() };
}

async function stopApp({ t }: Harness) {
  t.app.server.closeAllConnections();
  await t.close();
}

async function newTask(user: TestUser, title = 'With files'): Promise<Task> {
  const response = await user.request('POST', '/api/tasks', { title });
  return response.json() as Task;
}

async function upload(h: Harness, taskId: number, name: string, content: Buffer) {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(content)]), name);
  return fetch(`${h.base}/api/tasks/${taskId}/files`, {
    method: 'POST',
    headers: h.user.headers,
    body: form,
  });
}

function download(h: Harness, fileId: number, headers: Record<string, string> = {}) {
  return fetch(`${h.base}/api/files/${fileId}/download`, { headers: { ...h.user.headers, ...headers } });
}

const randomBytes = (size: number) => crypto.randomBytes(size);

/** Ranged downloads behave the same on both drivers. */
describe.each(testDialects)('ranged downloads on %s', (dialect) => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startTestS3({ prefix: PREFIX });
  });
  afterAll(async () => s3?.close());

  for (const driver of ['disk', 's3'] as const) {
    describe(`with the ${driver} driver`, () => {
      let h: Harness;
      let file: TaskFile;
      const content = randomBytes(100_000);
      beforeEach(async () => {
        h = await startApp(dialect, driver === 's3' ? s3.env : {});
        const task = await newTask(h.user);
        const response = await upload(h, task.id, 'data.bin', content);
        expect(response.status).toBe(201);
        file = ((await response.json()) as TaskFile[])[0]!;
      });
      afterEach(async () => stopApp(h));

      it('sends the whole file with Content-Length and Accept-Ranges', async () => {
        const response = await download(h, file.id);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-length')).toBe(String(content.length));
        expect(response.headers.get('accept-ranges')).toBe('bytes');
        expect(Buffer.from(await response.arrayBuffer()).equals(content)).toBe(true);
      });

      it('answers one range with 206, Content-Range and exactly those bytes', async () => {
        const response = await download(h, file.id, { Range: 'bytes=1000-1999' });
        expect(response.status).toBe(206);
        expect(response.headers.get('content-range')).toBe(`bytes 1000-1999/${content.length}`);
        expect(response.headers.get('content-length')).toBe('1000');
        expect(response.headers.get('content-disposition')).toContain('attachment');
        expect(Buffer.from(await response.arrayBuffer()).equals(content.subarray(1000, 2000))).toBe(true);

        const tail = await download(h, file.id, { Range: 'bytes=-10' });
        expect(tail.status).toBe(206);
        expect(Buffer.from(await tail.arrayBuffer()).equals(content.subarray(content.length - 10))).toBe(
          true,
        );

        const open = await download(h, file.id, { Range: `bytes=${content.length - 5}-` });
        expect(open.headers.get('content-range')).toBe(
          `bytes ${content.length - 5}-${content.length - 1}/${content.length}`,
        );
        expect((await open.arrayBuffer()).byteLength).toBe(5);
      });

      it('answers a range outside the file with 416 naming the size', async () => {
        const response = await download(h, file.id, { Range: `bytes=${content.length}-` });
        expect(response.status).toBe(416);
        expect(response.headers.get('content-range')).toBe(`bytes */${content.length}`);
        expect(((await response.json()) as { message: string }).message).toContain(`${content.length} bytes`);
      });

      it('sends the whole file for several ranges or a malformed header', async () => {
        for (const range of ['bytes=0-1,5-9', 'bytes=abc', 'items=0-5']) {
          const response = await download(h, file.id, { Range: range });
          expect(response.status).toBe(200);
          expect((await response.arrayBuffer()).byteLength).toBe(content.length);
        }
      });
    });
  }
});

describe.each(testDialects)('files in an S3 bucket on %s', (dialect) => {
  let s3: TestS3;
  let h: Harness;
  beforeAll(async () => {
    s3 = await startTestS3({ prefix: PREFIX });
  });
  afterAll(async () => s3?.close());
  beforeEach(async () => {
    h = await startApp(dialect, s3.env);
  });
  afterEach(async () => stopApp(h));

  const rowCount = async () =>
    Number(
      (
        await h.t.ctx.db.kysely
          .selectFrom('files')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('stores uploads as objects under S3_PREFIX and serves the same bytes with safe headers', async () => {
    const before = await s3.keys();
    const task = await newTask(h.user);
    const content = randomBytes(150_000);
    const response = await upload(h, task.id, 'report.html', content);
    expect(response.status).toBe(201);
    const file = ((await response.json()) as TaskFile[])[0]!;
    const added = (await s3.keys()).filter((key) => !before.includes(key));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^tasklane\/[a-f0-9]{32}$/);

    const got = await download(h, file!.id);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/octet-stream');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('content-disposition')).toBe(
      `attachment; filename="report.html"; filename*=UTF-8''report.html`,
    );
    expect(Buffer.from(await got.arrayBuffer()).equals(content)).toBe(true);
  });

  it('refuses a file over MAX_UPLOAD_BYTES with 413, keeping no row and no object', async () => {
    const before = await s3.keys();
    const task = await newTask(h.user);
    const response = await upload(h, task.id, 'too-big.bin', randomBytes(MAX_UPLOAD_BYTES + 1));
    expect(response.status).toBe(413);
    expect(((await response.json()) as { message: string }).message).toContain('too-big.bin');
    expect(await rowCount()).toBe(0);
    expect(await s3.keys()).toEqual(before);
  });

  it('keeps no row and no object when the client aborts mid-upload', async () => {
    const before = await s3.keys();
    const task = await newTask(h.user);
    const boundary = '----tasklane-abort';
    const request = http.request(`${h.base}/api/tasks/${task.id}/files`, {
      method: 'POST',
      headers: {
        ...h.user.headers,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(MAX_UPLOAD_BYTES),
      },
    });
    request.on('error', () => {});
    request.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="half.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    request.write(randomBytes(32 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 200));
    request.destroy();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await rowCount()).toBe(0);
    expect(await s3.keys()).toEqual(before);
  });

  it('removes the object when the file, its task or its owner is deleted, before answering', async () => {
    const before = await s3.keys();
    const task = await newTask(h.user);
    const uploaded = async () => {
      const [file] = (await (await upload(h, task.id, 'a.txt', randomBytes(1000))).json()) as TaskFile[];
      return file!;
    };
    const file = await uploaded();
    expect((await s3.keys()).length).toBe(before.length + 1);
    expect((await h.user.request('DELETE', `/api/files/${file.id}`)).statusCode).toBe(204);
    expect(await s3.keys()).toEqual(before);

    await uploaded();
    expect((await h.user.request('DELETE', `/api/tasks/${task.id}`)).statusCode).toBe(204);
    expect(await s3.keys()).toEqual(before);

    const admin = await h.t.signUp({ isAdmin: true });
    const other = await h.t.signUp();
    const theirs = await newTask(other);
    const form = new FormData();
    form.append('files', new Blob(['theirs']), 'theirs.txt');
    await fetch(`${h.base}/api/tasks/${theirs.id}/files`, {
      method: 'POST',
      headers: other.headers,
      body: form,
    });
    expect((await s3.keys()).length).toBe(before.length + 1);
    expect((await admin.request('DELETE', `/api/admin/users/${other.user.id}`)).statusCode).toBe(204);
    expect(await s3.keys()).toEqual(before);
  });
});

describe('the S3 start-up check', () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startTestS3();
  });
  afterAll(async () => s3?.close());

  const settings = () => ({
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
    prefix: '',
  });

  it('passes on a reachable, writable bucket and leaves nothing behind', async () => {
    await (await createS3FileStore(settings())).check();
    expect(await s3.keys()).toEqual([]);
  });

  it('names S3_BUCKET when the bucket does not exist', async () => {
    await expect(
      (await createS3FileStore({ ...settings(), bucket: 'no-such-bucket' })).check(),
    ).rejects.toThrow(/^Invalid configuration: S3_BUCKET="no-such-bucket" does not exist/);
  });

  it('names the key settings when the credentials are refused', async () => {
    await expect(
      (await createS3FileStore({ ...settings(), accessKeyId: 'WRONG', secretAccessKey: 'WRONG' })).check(),
    ).rejects.toThrow(/^Invalid configuration: S3_ACCESS_KEY_ID\/S3_SECRET_ACCESS_KEY were refused/);
  });

  it('names S3_ENDPOINT when nothing answers there', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      (await createS3FileStore({ ...settings(), endpoint: `http://127.0.0.1:${port}` })).check(),
    ).rejects.toThrow(/^Invalid configuration: S3_ENDPOINT="http:\/\/127\.0\.0\.1:\d+" cannot be reached/);
  });
});
