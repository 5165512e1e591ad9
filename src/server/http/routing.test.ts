import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { createTestApp, type TestApp } from '../testing/app';
import { SECURITY_HEADERS } from './security';

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

  it('answers a missing file (an asset, a path with an extension) with 404 {message}, not the app', async () => {
    for (const url of ['/assets/gone-5678.js', '/assets/', '/favicon.ico', '/sitemap.xml', '/wp-login.php']) {
      const response = await app.inject({ method: 'GET', url });
      expectMessageOnly(response, 404);
    }
    const present = await app.inject({ method: 'GET', url: '/assets/app-1234.js' });
    expect(present.statusCode).toBe(200);
  });

  it('answers a method a file is not served with by 405, and other methods on pages by 404', async () => {
    const robots = await app.inject({ method: 'POST', url: '/robots.txt' });
    expectMessageOnly(robots, 405);
    expect(robots.headers.allow).toBe('GET, HEAD');
    expectMessageOnly(await app.inject({ method: 'POST', url: '/archive' }), 404);
  });
});
