import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app';

/** What @fastify/helmet 13 sent with the options Tasklane gave it (decision 006), header for header. */
const HELMET_HEADERS = {
  'content-security-policy':
    "default-src 'self';script-src 'self';style-src 'self' 'unsafe-inline';img-src 'self' data: blob:;font-src 'self' data:;connect-src 'self';worker-src 'self' blob:;manifest-src 'self';object-src 'none';base-uri 'self';form-action 'self';frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

describe('security headers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => t.close());

  it('sends the same set helmet sent, on answers, errors and unknown routes alike', async () => {
    const user = await t.signUp();
    for (const response of [
      await user.request('GET', '/api/tasks'),
      await t.app.inject({ method: 'GET', url: '/api/tasks' }),
      await t.app.inject({ method: 'GET', url: '/api/nothing-here' }),
      await t.app.inject({ method: 'PUT', url: '/api/tasks' }),
      // The router's own errors, raised before any hook runs.
      await t.app.inject({ method: 'GET', url: `/api/tasks/${'a'.repeat(150)}` }),
      await t.app.inject({ method: 'GET', url: '/api/tasks/%zz' }),
      await t.app.inject({ method: 'GET', url: '/healthz' }),
    ]) {
      expect(response.headers).toMatchObject(HELMET_HEADERS);
      expect(response.headers['strict-transport-security']).toBeUndefined();
      expect(response.headers['cross-origin-embedder-policy']).toBeUndefined();
    }
  });
});
