import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';

/**
 * Every route, fed garbage: malformed JSON, wrong types, huge strings, odd ids.
 * The answer must be a 2xx/4xx with a JSON {message} on errors, never a 500.
 */
const FIELDS = [
  'title',
  'description',
  'notes',
  'dueDate',
  'contextId',
  'completed',
  'archived',
  'aiDraft',
  'aiAssisted',
  'taskIds',
  'username',
  'password',
  'email',
  'requestedUsername',
  'message',
  'currentPassword',
  'newPassword',
  'token',
  'firstName',
  'prompt',
  'taskTitle',
  'taskDescription',
  'taskId',
  'apiKey',
  'baseUrl',
  'model',
  'name',
  'expiresInDays',
  'body',
  'at',
  'relativeMinutes',
  'ids',
  'all',
  'push',
  'dueTime',
  'recurrence',
  'recurrenceFrom',
  'timeZone',
  'final',
  'scopes',
  'projectIds',
];
const HUGE = 'x'.repeat(1_000_000);
const BODIES: Array<{ name: string; payload: string }> = [
  { name: 'malformed JSON', payload: '{"title": "oops",' },
  { name: 'JSON null', payload: 'null' },
  { name: 'JSON array', payload: '[1,2,3]' },
  { name: 'JSON string', payload: '"hello"' },
  { name: 'numbers everywhere', payload: JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, 12345]))) },
  {
    name: 'objects everywhere',
    payload: JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, { a: 1 }]))),
  },
  {
    name: 'a 1 MB string everywhere',
    payload: JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, HUGE]))),
  },
];
const IDS = ['abc', '-1', '0', '1.5', '99999999999999999999', '%00'];
// Streams stay open by design; they are tested on their own.
const SKIP = new Set(['GET /api/events']);
/**
 * The API routes that answer without a session: signing in, the document (and, under /api/docs,
 * its reference page), the calendar feed with its secret.
 */
const PUBLIC = new Set([
  'GET /api/openapi.json',
  'GET /api/auth/providers',
  'POST /api/auth/login',
  'POST /api/auth/login/2fa',
  'POST /api/auth/logout',
  'POST /api/auth/send-password',
  'POST /api/auth/reset-password',
  'POST /api/access-requests',
  'GET /api/auth/oidc/start',
  'GET /api/auth/oidc/callback',
  'POST /api/auth/passkeys/login/options',
  'POST /api/auth/passkeys/login',
  'GET /api/calendar/:file',
]);

describe('robustness: no input gives a 500', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    admin = await t.signUp({ isAdmin: true });
  });
  afterAll(async () => {
    await t.close();
  });

  const expectClean = (label: string, status: number, body: string) => {
    expect(status, `${label} -> ${status} ${body.slice(0, 200)}`).toBeLessThan(500);
    if (status >= 400) expect(JSON.parse(body).message, label).toEqual(expect.any(String));
  };

  it('walks every API route', async () => {
    const apiRoutes = t.routes.filter(
      (r) => r.url.startsWith('/api/') && r.method !== 'HEAD' && !SKIP.has(`${r.method} ${r.url}`),
    );
    expect(apiRoutes.length).toBeGreaterThan(5);
    // Sign-out last: it ends the session the other calls use.
    apiRoutes.sort((a, b) => Number(a.url.endsWith('/logout')) - Number(b.url.endsWith('/logout')));
    for (const route of apiRoutes) {
      const urls = route.url.includes(':')
        ? IDS.map((id) => route.url.replace(/:[A-Za-z]+/g, id))
        : [route.url];
      for (const url of urls) {
        const label = `${route.method} ${url}`;
        if (route.method === 'GET' || route.method === 'DELETE') {
          const response = await t.app.inject({ method: route.method, url, headers: admin.headers });
          expectClean(label, response.statusCode, response.body);
          continue;
        }
        for (const body of BODIES) {
          const response = await t.app.inject({
            method: route.method as 'POST',
            url,
            headers: { ...admin.headers, 'content-type': 'application/json' },
            payload: body.payload,
          });
          expectClean(`${label} with ${body.name}`, response.statusCode, response.body);
        }
        const wrongType = await t.app.inject({
          method: route.method as 'POST',
          url,
          headers: { ...admin.headers, 'content-type': 'text/plain' },
          payload: 'plain text',
        });
        expectClean(`${label} with text/plain`, wrongType.statusCode, wrongType.body);
      }
    }
  }, 120_000);

  it('answers a malformed id with 404 on every route that takes one', async () => {
    const withIds = t.routes.filter(
      (r) => r.url.startsWith('/api/') && r.url.includes(':') && r.method !== 'HEAD',
    );
    expect(withIds.length).toBeGreaterThan(10);
    // The route walk above signed the first admin out.
    const caller = await t.signUp({ isAdmin: true });
    for (const route of withIds) {
      for (const id of IDS) {
        const url = route.url.replace(/:[A-Za-z]+/g, id);
        const response = await t.app.inject({
          method: route.method as 'POST',
          url,
          ...(route.method === 'GET' || route.method === 'DELETE'
            ? { headers: caller.headers }
            : { headers: { ...caller.headers, 'content-type': 'application/json' }, payload: '{}' }),
        });
        expect(response.statusCode, `${route.method} ${url}: ${response.body}`).toBe(404);
        expect(response.json().message).toEqual(expect.any(String));
      }
    }
  });

  it('answers 401 without a session on every other route, before looking at the id, query or body', async () => {
    const guarded = t.routes.filter(
      (r) =>
        r.url.startsWith('/api/') &&
        r.method !== 'HEAD' &&
        !r.url.startsWith('/api/docs') &&
        !SKIP.has(`${r.method} ${r.url}`) &&
        !PUBLIC.has(`${r.method} ${r.url}`),
    );
    expect(guarded.length).toBeGreaterThan(50);
    const bodies = [
      { name: 'an empty object', payload: '{}' },
      ...BODIES.filter((b) => b.payload.length < 10_000),
    ];
    for (const route of guarded) {
      for (const id of ['1', 'abc']) {
        const url = `${route.url.replace(/:[A-Za-z]+/g, id)}?due=nope&view=nope&format=nope&limit=-1`;
        for (const body of route.method === 'GET' || route.method === 'DELETE' ? [undefined] : bodies) {
          const response = await t.app.inject({
            method: route.method as 'POST',
            url,
            ...(body ? { headers: { 'content-type': 'application/json' }, payload: body.payload } : {}),
          });
          const label = `${route.method} ${url}${body ? ` with ${body.name}` : ''}: ${response.body}`;
          expect(response.statusCode, label).toBe(401);
        }
      }
    }
  });

  it('answers a body over the limit with 413 and a message', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'x'.repeat(3_000_000), password: 'y' }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().message).toEqual(expect.any(String));
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/nope' });
    expect(response.statusCode).toBe(404);
    expect(response.json().message).toEqual(expect.any(String));
  });
});
