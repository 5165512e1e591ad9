import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { loadConfig } from '../config';
import { openDatabase } from '../db';
import type { UserRow } from '../db/schema';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { fakeBus } from '../testing/bus';
import { testDialects } from '../testing/database';
import { createSessionCache } from './session-cache';
import { hashToken } from './tokens';

const user = (id: number) => ({ id }) as UserRow;

describe('session cache', () => {
  it('serves a session for its time, then asks again', () => {
    let now = 1000;
    const cache = createSessionCache(fakeBus(), { ttlMs: 5000, now: () => now });
    cache.set('s1', { user: user(1), idHash: 'h1', expiresAt: 100_000 }, cache.generation());
    expect(cache.get('s1')?.user.id).toBe(1);
    now += 5000;
    expect(cache.get('s1')).toBeUndefined();
  });

  it('never serves an expired session', () => {
    let now = 1000;
    const cache = createSessionCache(fakeBus(), { now: () => now });
    cache.set('s1', { user: user(1), idHash: 'h1', expiresAt: 1500 }, cache.generation());
    now = 1500;
    expect(cache.get('s1')).toBeUndefined();
  });

  it('forgets by user, by session and wholly', async () => {
    const cache = createSessionCache(fakeBus());
    const put = (id: string, userId: number) =>
      cache.set(
        id,
        { user: user(userId), idHash: `h-${id}`, expiresAt: Date.now() + 60_000 },
        cache.generation(),
      );
    put('a', 1);
    put('b', 1);
    put('c', 2);
    await cache.invalidate({ userId: 1 });
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, undefined]);
    expect(cache.get('c')).toBeDefined();
    put('d', 3);
    await cache.invalidate({ idHash: 'h-c' });
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('d')).toBeDefined();
    await cache.invalidate({ all: true });
    expect(cache.size()).toBe(0);
  });

  it('does not keep what was read before an invalidation', async () => {
    const cache = createSessionCache(fakeBus());
    const readAt = cache.generation();
    await cache.invalidate({ userId: 1 });
    cache.set('s1', { user: user(1), idHash: 'h1', expiresAt: Date.now() + 60_000 }, readAt);
    expect(cache.get('s1')).toBeUndefined();
  });

  it('serves and keeps nothing while the other instances cannot reach this one', () => {
    const bus = fakeBus();
    const cache = createSessionCache(bus);
    cache.set('s1', { user: user(1), idHash: 'h1', expiresAt: Date.now() + 60_000 }, cache.generation());
    bus.connected = false;
    expect(cache.get('s1')).toBeUndefined();
    cache.set('s2', { user: user(1), idHash: 'h2', expiresAt: Date.now() + 60_000 }, cache.generation());
    bus.connected = true;
    expect(cache.get('s2')).toBeUndefined();
  });
});

describe.each(testDialects)('cached sessions end at once (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => t.close());

  /** Removes the session row behind the app's back: only the cache can still answer for it. */
  /** The user signed in a second time: a read of the task list in that session. */
  const secondSession = async (user: TestUser) => {
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: user.user.username, password: user.password },
    });
    const headers = { 'user-session': other.json().sessionId as string };
    return () => t.app.inject({ method: 'GET', url: '/api/tasks', headers });
  };
  const dropRow = (sessionId: string) =>
    sql`delete from sessions where id_hash = ${hashToken(sessionId)}`.execute(t.ctx.db.kysely);

  it('answers a read from the cache, and asks the database for a change', async () => {
    const user = await t.signUp();
    expect((await user.request('GET', '/api/tasks')).statusCode).toBe(200);
    // On PostgreSQL the cache holds sessions once the instance listens for invalidations.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await user.request('GET', '/api/tasks')).statusCode).toBe(200);
    await dropRow(user.sessionId);
    expect((await user.request('GET', '/api/tasks')).statusCode).toBe(200);
    expect((await user.request('POST', '/api/tasks', { title: 'Refused' })).statusCode).toBe(401);
    // The fresh read found no session and dropped it from the cache: reads stop too.
    expect((await user.request('GET', '/api/auth/me')).statusCode).toBe(401);
  });

  it('signing out ends the session for reads at once', async () => {
    const user = await t.signUp();
    expect((await user.request('GET', '/api/tasks')).statusCode).toBe(200);
    expect((await user.request('POST', '/api/auth/logout')).statusCode).toBeLessThan(300);
    expect((await user.request('GET', '/api/tasks')).statusCode).toBe(401);
  });

  it('ending a device session or all others ends them for reads at once', async () => {
    const user = await t.signUp();
    const read = await secondSession(user);
    expect((await read()).statusCode).toBe(200);
    const devices = (await user.request('GET', '/api/auth/sessions')).json() as Array<{
      id: string;
      current: boolean;
    }>;
    const target = devices.find((d) => !d.current)!;
    expect((await user.request('DELETE', `/api/auth/sessions/${target.id}`)).statusCode).toBeLessThan(300);
    expect((await read()).statusCode).toBe(401);
    expect((await user.request('GET', '/api/tasks')).statusCode).toBe(200);
  });

  it('a password change ends the other sessions for reads at once', async () => {
    const user = await t.signUp();
    const read = await secondSession(user);
    expect((await read()).statusCode).toBe(200);
    const changed = await user.request('POST', '/api/auth/change-password', {
      currentPassword: user.password,
      newPassword: 'another-secret-password',
    });
    expect(changed.statusCode).toBe(200);
    expect((await read()).statusCode).toBe(401);
    expect((await user.request('GET', '/api/tasks')).statusCode).toBe(200);
  });

  it('suspension and deletion end the user’s sessions for reads at once', async () => {
    const admin = await t.signUp({ isAdmin: true });
    const suspended = await t.signUp();
    const deleted = await t.signUp();
    for (const user of [suspended, deleted])
      expect((await user.request('GET', '/api/tasks')).statusCode).toBe(200);
    expect((await admin.request('PATCH', `/api/admin/users/${suspended.user.id}/suspend`)).statusCode).toBe(
      200,
    );
    expect((await suspended.request('GET', '/api/tasks')).statusCode).toBe(401);
    expect((await admin.request('DELETE', `/api/admin/users/${deleted.user.id}`)).statusCode).toBeLessThan(
      300,
    );
    expect((await deleted.request('GET', '/api/tasks')).statusCode).toBe(401);
  });
});

describe.runIf(testDialects.includes('postgres'))('cached sessions across instances', () => {
  let a: TestApp;
  let b: Awaited<ReturnType<typeof buildApp>>;
  let closeB: () => Promise<void>;

  beforeAll(async () => {
    a = await createTestApp('postgres');
    const databaseUrl = a.ctx.config.databaseUrl!;
    const db = await openDatabase({ databaseUrl, dataDir: a.dataDir });
    const config = loadConfig({
      DATA_DIR: a.dataDir,
      APP_URL: 'http://localhost:3000',
      DATABASE_URL: databaseUrl,
    });
    b = await buildApp({ config, db, logger: false });
    await b.app.ready();
    closeB = async () => {
      await b.app.close();
      await db.close();
    };
  });
  afterAll(async () => {
    await closeB?.();
    await a?.close();
  });

  /** B's answer to a read, once its LISTEN connection is up (so it caches). */
  const readOnB = (headers: Record<string, string>) =>
    b.app.inject({ method: 'GET', url: '/api/tasks', headers });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('a sign-out on one instance ends the session on the other at once', async () => {
    const user = await a.signUp();
    expect((await readOnB(user.headers)).statusCode).toBe(200);
    await settle();
    expect((await readOnB(user.headers)).statusCode).toBe(200);
    // Cached on B now: the row is gone, B still answers from memory.
    expect((await user.request('POST', '/api/auth/logout')).statusCode).toBeLessThan(300);
    const started = Date.now();
    let status = (await readOnB(user.headers)).statusCode;
    while (status === 200 && Date.now() - started < 1000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      status = (await readOnB(user.headers)).statusCode;
    }
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('a suspension on one instance ends the sessions on the other at once', async () => {
    const admin = await a.signUp({ isAdmin: true });
    const user = await a.signUp();
    await readOnB(user.headers);
    await settle();
    expect((await readOnB(user.headers)).statusCode).toBe(200);
    expect((await admin.request('PATCH', `/api/admin/users/${user.user.id}/suspend`)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await readOnB(user.headers)).statusCode).toBe(401);
  });
});
