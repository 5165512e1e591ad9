import fs from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { createTestApp, type TestApp } from '../testing/app';
import { answerClientError, CLIENT_ERROR_MESSAGES } from './errors';
import { SECURITY_HEADERS } from './security';
import { SESSION_COOKIE } from './session';

/**
 * The answers no route gives: the router's own errors, unknown paths, methods a path does not
 * serve, and what is not a page of the app. Each is JSON `{message}` with the usual headers.
 */
const expectMessageOnly = (response: LightMyRequestResponse, status: number) => {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(response.json())).toEqual(['message']);
  expect(response.json().message).toEqual(expect.any(String));
  expect(response.headers).toMatchObject(SECURITY_HEADERS);
};

describe('answers outside the routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => t.close());

  it('answers a path parameter over the router’s limit with 414 {message}, not echoing it', async () => {
    const long = 'a'.repeat(150);
    const response = await t.app.inject({ method: 'GET', url: `/api/tasks/${long}` });
    expectMessageOnly(response, 414);
    expect(response.body).not.toContain(long);
  });

  it('answers a path that cannot be decoded with 400 {message}, not echoing it', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/tasks/%zz' });
    expectMessageOnly(response, 400);
    expect(response.body).not.toContain('%zz');
  });

  it('answers unknown paths with 404 {message}, never echoing the path', async () => {
    for (const url of ['/api/nope', '/api/<script>alert(1)</script>', '/nope-not-api']) {
      const response = await t.app.inject({ method: 'POST', url });
      expectMessageOnly(response, 404);
      expect(response.body).not.toContain('nope');
      expect(response.body).not.toContain('script');
    }
  });

  it('answers a method a path does not serve with 405 and the methods it does serve', async () => {
    const cases: Array<[string, string, string]> = [
      ['PUT', '/api/tasks', 'GET, HEAD, POST'],
      ['DELETE', '/api/tasks', 'GET, HEAD, POST'],
      ['OPTIONS', '/api/tasks', 'GET, HEAD, POST'],
      ['POST', '/api/tasks/123', 'DELETE, GET, HEAD, PATCH'],
      ['PUT', '/api/tasks/123?x=1', 'DELETE, GET, HEAD, PATCH'],
      ['PUT', '/api/tasks/reorder', 'DELETE, GET, HEAD, PATCH, POST'],
      ['GET', '/api/auth/login', 'POST'],
      ['POST', '/healthz', 'GET, HEAD'],
    ];
    for (const [method, url, allow] of cases) {
      const response = await t.app.inject({ method: method as 'PUT', url });
      expectMessageOnly(response, 405);
      expect(response.headers.allow, `${method} ${url}`).toBe(allow);
    }
  });

  it('answers 405 to a signed-in browser’s cookie too, with or without its Origin (nothing is changed)', async () => {
    const user = await t.signUp();
    for (const origin of [undefined, 'https://elsewhere.example']) {
      const response = await t.app.inject({
        method: 'PUT',
        url: '/api/tasks',
        cookies: { [SESSION_COOKIE]: user.sessionId },
        headers: origin ? { origin } : {},
      });
      expectMessageOnly(response, 405);
      expect(response.headers.allow).toBe('GET, HEAD, POST');
    }
    // A route that exists still refuses the cross-site write.
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/tasks',
      cookies: { [SESSION_COOKIE]: user.sessionId },
      headers: { origin: 'https://elsewhere.example' },
      payload: { title: 'Forged' },
    });
    expect(refused.statusCode).toBe(403);
  });

  it('keeps 404 for paths no route serves whatever the method', async () => {
    for (const method of ['GET', 'PUT', 'OPTIONS'] as const) {
      const response = await t.app.inject({ method, url: '/api/tasks/1/nothing' });
      expectMessageOnly(response, 404);
      expect(response.headers.allow).toBeUndefined();
    }
  });

  it('keeps 404 when the route for the method finds nothing (a missing file of the API reference)', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/docs/static/nothing.js' });
    expectMessageOnly(response, 404);
    expect(response.headers.allow).toBeUndefined();
  });

  it('answers a served method as before, with no Allow header', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.headers.allow).toBeUndefined();
  });
});

/** An answer read off a raw socket: the status line's code, its headers (names in lower case) and body. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parseRaw(text: string): RawAnswer {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/** Writes `request` as it is and reads everything the server sends until it closes the connection. */
function rawExchange(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(parseRaw(text)));
    socket.write(request);
  });
}

const expectRawMessageOnly = (answer: RawAnswer, status: number, message: string) => {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers.connection).toBe('close');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  expect(JSON.parse(answer.body)).toEqual({ message });
  expect(answer.headers).toMatchObject(SECURITY_HEADERS);
};

describe('errors from Node’s HTTP parser, before the app sees a request', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t.close());

  it('answers headers over Node’s limit with 431 {message} and the usual headers', async () => {
    const big = 'a'.repeat(20_000);
    const answer = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`);
    expectRawMessageOnly(answer, 431, CLIENT_ERROR_MESSAGES.headersTooLarge);
    expect(answer.body).not.toContain(big.slice(0, 50));
  });

  it('answers a request that is not HTTP with 400 {message} and the usual headers, not echoing it', async () => {
    for (const request of [
      'GARBAGE <script>\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nnot a header line <script>\r\n\r\n',
      'POST /api/tasks HTTP/1.1\r\nHost: x\r\nContent-Length: <script>\r\n\r\n',
      'POST /api/tasks HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
    ]) {
      const answer = await rawExchange(port, request);
      expectRawMessageOnly(answer, 400, CLIENT_ERROR_MESSAGES.invalid);
      expect(answer.body, request).not.toContain('script');
    }
  });

  it('answers a request that timed out with 408 {message} and the usual headers', async () => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const serverSide = await new Promise<net.Socket>((resolve) => t.app.server.once('connection', resolve));
    const answer = new Promise<RawAnswer>((resolve) => {
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('close', () => resolve(parseRaw(text)));
    });
    // What Node raises when a request's headers or body take longer than its requestTimeout.
    t.app.server.emit(
      'clientError',
      Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
      serverSide,
    );
    expectRawMessageOnly(await answer, 408, CLIENT_ERROR_MESSAGES.timeout);
  });

  it('writes nothing to a socket the client reset or that can no longer be written', () => {
    const writes: string[] = [];
    const socket = (state: { destroyed: boolean; writable: boolean }) =>
      ({ ...state, write: (text: string) => writes.push(text), destroy: () => {} }) as unknown as net.Socket;
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const invalid = Object.assign(new Error('Parse Error'), { code: 'HPE_INVALID_METHOD' });
    answerClientError.call(t.app, reset, socket({ destroyed: false, writable: true }));
    answerClientError.call(t.app, invalid, socket({ destroyed: true, writable: false }));
    answerClientError.call(t.app, invalid, socket({ destroyed: false, writable: false }));
    expect(writes).toEqual([]);
  });
});

describe('with the built client', () => {
  let t: TestApp;
  let app: FastifyInstance;
  let clientDir: string;
  const INDEX = '<!doctype html><html><body><div id="root"></div></body></html>';

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    clientDir = await fs.mkdtemp(path.join(os.tmpdir(), 'tasklane-client-'));
    await fs.writeFile(path.join(clientDir, 'index.html'), INDEX);
    await fs.mkdir(path.join(clientDir, 'assets'));
    await fs.writeFile(path.join(clientDir, 'assets', 'app-1234.js'), 'console.log(1);');
    await fs.copyFile(
      path.resolve(import.meta.dirname, '../../client/public/robots.txt'),
      path.join(clientDir, 'robots.txt'),
    );
    ({ app } = await buildApp({ config: t.ctx.config, db: t.ctx.db, logger: false, clientDir }));
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await t.close();
    await fs.rm(clientDir, { recursive: true, force: true });
  });

  it('loads the app for its pages and unknown page paths', async () => {
    for (const url of ['/', '/archive', '/reset-password/abc-DEF_123', '/no/such/page', '/archive?x=a.b']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toBe(INDEX);
      expect(response.headers).toMatchObject(SECURITY_HEADERS);
    }
  });

  it('serves robots.txt as text: the sign-in page allowed, the API not', async () => {
    const response = await app.inject({ method: 'GET', url: '/robots.txt' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toMatch(/^User-agent: \*$/m);
    expect(response.body).toMatch(/^Allow: \/$/m);
    expect(response.body).toMatch(/^Disallow: \/api\/$/m);
  });

  it('answers what it does not serve under /.well-known/ with 404 {message}, not the app', async () => {
    for (const url of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/.well-known/',
    ]) {
      const response = await app.inject({ method: 'GET', url });
      expectMessageOnly(response, 404);
    }
  });

  it('answers any path under /mcp/ with 404 {message}, as under /api/, not the app', async () => {
    for (const url of ['/mcp/anything', '/mcp/', '/mcp/a/b?c=d']) {
      for (const method of ['GET', 'HEAD'] as const) {
        const response = await app.inject({ method, url });
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        if (method === 'GET') expectMessageOnly(response, 404);
      }
    }
  });

  it('answers a missing file (an asset, a path with an extension) with 404 {message}, not the app', async () => {
    for (const url of ['/assets/gone-5678.js', '/assets/', '/favicon.ico', '/sitemap.xml', '/wp-login.php']) {
      const response = await app.inject({ method: 'GET', url });
      expectMessageOnly(response, 404);
    }
    const present = await app.inject({ method: 'GET', url: '/assets/app-1234.js' });
    expect(present.statusCode).toBe(200);
  });

  it('serves a hashed asset a build put there after the server started, cached for good (issue 28)', async () => {
    // A second instance from the same folder built anew: its index.html names assets this one never
    // saw at start. Earlier builds' assets stay beside them (decision 048), served the same way.
    await fs.writeFile(path.join(clientDir, 'assets', 'app-9876.js'), 'console.log(2);');
    for (const url of ['/assets/app-9876.js', '/assets/app-1234.js']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cache-control'], url).toBe('public, max-age=31536000, immutable');
      expect(response.headers['content-type'], url).toMatch(/^(application|text)\/javascript/);
    }
    expect((await app.inject({ method: 'GET', url: '/assets/app-9876.js' })).body).toBe('console.log(2);');
    const robots = await app.inject({ method: 'GET', url: '/robots.txt' });
    expect(robots.headers['cache-control']).toBe('no-cache');
  });

  it('answers a method a file is not served with by 405, and other methods on pages by 404', async () => {
    const robots = await app.inject({ method: 'POST', url: '/robots.txt' });
    expectMessageOnly(robots, 405);
    expect(robots.headers.allow).toBe('GET, HEAD');
    expectMessageOnly(await app.inject({ method: 'POST', url: '/archive' }), 404);
  });
});
