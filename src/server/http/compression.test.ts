import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { preferredEncoding } from './compression';

describe('preferredEncoding', () => {
  it('takes br, then gzip, and honours q=0', () => {
    expect(preferredEncoding('gzip, deflate, br')).toBe('br');
    expect(preferredEncoding('gzip')).toBe('gzip');
    expect(preferredEncoding('br;q=0, gzip;q=0.5')).toBe('gzip');
    expect(preferredEncoding('*')).toBe('gzip');
    expect(preferredEncoding('identity')).toBeNull();
    expect(preferredEncoding('br;q=0,gzip;q=0')).toBeNull();
    expect(preferredEncoding(undefined)).toBeNull();
  });
});

describe('compressed answers', () => {
  let t: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    user = await t.signUp();
    for (let i = 0; i < 30; i++) {
      await user.request('POST', '/api/tasks', { title: `Task ${i}: something worth a line of text` });
    }
  });
  afterAll(async () => t.close());

  const get = (url: string, encoding?: string) =>
    t.app.inject({
      method: 'GET',
      url,
      headers: { ...user.headers, ...(encoding ? { 'accept-encoding': encoding } : {}) },
    });

  it('sends the task list as brotli or gzip when accepted, the same JSON once decoded', async () => {
    const plain = await get('/api/tasks');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.json()).toHaveLength(30);
    for (let i = 0; i < 2; i++) {
      const br = await get('/api/tasks', 'gzip, deflate, br');
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.vary).toContain('accept-encoding');
      expect(zlib.brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);
    }
    const gzip = await get('/api/tasks', 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzip.rawPayload).equals(plain.rawPayload)).toBe(true);
    const filtered = await get('/api/tasks?q=Task', 'br');
    expect(filtered.headers['content-encoding']).toBe('br');
    expect(JSON.parse(zlib.brotliDecompressSync(filtered.rawPayload).toString())).toHaveLength(30);
  });

  it('compresses other JSON answers of a kilobyte or more, and leaves small ones alone', async () => {
    const document = await t.app.inject({
      method: 'GET',
      url: '/api/openapi.json',
      headers: { 'accept-encoding': 'br' },
    });
    expect(document.statusCode).toBe(200);
    expect(document.headers['content-encoding']).toBe('br');
    const small = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'accept-encoding': 'br' },
    });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('sends the live event stream uncompressed and at once', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const first = await new Promise<{ headers: http.IncomingHttpHeaders; text: string }>(
      (resolve, reject) => {
        const request = http.get(
          {
            host: '127.0.0.1',
            port,
            path: '/api/events',
            headers: { ...user.headers, 'accept-encoding': 'br, gzip' },
          },
          (response) => {
            response.once('data', (chunk: Buffer) => {
              resolve({ headers: response.headers, text: chunk.toString() });
              request.destroy();
            });
          },
        );
        request.on('error', reject);
        setTimeout(() => reject(new Error('no event within 2 s: the stream is buffered')), 2000);
      },
    );
    expect(first.headers['content-type']).toContain('text/event-stream');
    expect(first.headers['content-encoding']).toBeUndefined();
    expect(first.text).toContain('connected');
  });
});
