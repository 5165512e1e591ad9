import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, budget, type RunningServer, startServer } from './harness';

/** The built server as an operator meets it: start-up, lock, config errors, SPA, shutdown. */
describe('the built server', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('prints where it runs and how to sign in', () => {
    expect(server.output()).toContain(`running at ${server.url}`);
    expect(server.output()).toContain(`Sign in as "${ADMIN.username}"`);
  });

  it('answers /healthz and /readyz', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('serves the SPA for client routes and unknown paths, with security headers', async () => {
    for (const route of ['/', '/archive', '/no/such/page', '/reset-password/abc']) {
      const response = await fetch(`${server.url}${route}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<div id="root">');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBeTruthy();
    }
  });

  it('answers unknown API paths with JSON 404', async () => {
    const response = await fetch(`${server.url}/api/nothing-here`);
    expect(response.status).toBe(404);
    expect((await response.json()).message).toEqual(expect.any(String));
  });

  it('refuses a second process on the same DATA_DIR with a clear message', () => {
    const second = spawnSync(
      process.execPath,
      [path.resolve(process.env.E2E_DIST_DIR ?? 'dist', 'server/main.js')],
      {
        env: { PATH: process.env.PATH, PORT: '0', DATA_DIR: server.dataDir },
        encoding: 'utf8',
        timeout: budget(15_000),
      },
    );
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/DATA_DIR .* is in use by another Tasklane process/);
  });

  it('stops on a bad variable with one line naming it', () => {
    const bad = spawnSync(
      process.execPath,
      [path.resolve(process.env.E2E_DIST_DIR ?? 'dist', 'server/main.js')],
      {
        env: { PATH: process.env.PATH, PORT: 'not-a-port', DATA_DIR: server.dataDir },
        encoding: 'utf8',
        timeout: budget(15_000),
      },
    );
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('PORT');
  });

  it('drains and exits cleanly on SIGTERM, then starts again on the same data', async () => {
    const own = await startServer();
    const login = await fetch(`${own.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    expect(login.status).toBe(200);
    await own.stop();
    expect(own.output()).not.toMatch(/error/i);
  });
});
