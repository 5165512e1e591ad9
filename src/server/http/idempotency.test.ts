import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { NOTIFICATIONS_READ_PATH } from '../../common/notifications';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_LIMITS,
  IDEMPOTENCY_MESSAGES,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../../common/offline';
import type { Task } from '../../common/tasks';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { createTestClock, type TestClock } from '../testing/clock';
import { createTestDatabase, reopenTestDatabase, type TestDatabase, testDialects } from '../testing/database';
import { IDEMPOTENCY_IN_FLIGHT_MS } from './idempotency';

const REPLAYED = IDEMPOTENT_REPLAYED_HEADER.toLowerCase();
/** The poller's first pass runs at start; no other pass comes during a test (the prune is asked for). */
const env = { JOBS_POLL_INTERVAL_MS: '60000' };

/** `inject` as this user on this app, with an Idempotency-Key when given. */
function send(
  t: TestApp,
  user: TestUser,
  method: string,
  url: string,
  body?: unknown,
  key?: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: method as 'POST',
    url,
    headers: { ...user.headers, ...(key === undefined ? {} : { [IDEMPOTENCY_KEY_HEADER]: key }), ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  });
}

const message = (response: LightMyRequestResponse) => (response.json() as { message: string }).message;

/** A promise and the function that settles it: a request held in its handler until the test lets go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Resolves when the spy has been called `times` times: the request is in its handler. */
async function calledTimes(spy: { mock: { calls: unknown[] } }, times: number) {
  await vi.waitFor(() => expect(spy.mock.calls.length).toBe(times));
}

async function tasksTitled(t: TestApp, title: string) {
  const rows = await t.ctx.db.kysely.selectFrom('tasks').select('id').where('title', '=', title).execute();
  return rows.length;
}

async function keyRows(t: TestApp) {
  return t.ctx.db.kysely.selectFrom('idempotency_keys').selectAll().execute();
}

describe.each(testDialects)('Idempotency-Key on %s', (dialect) => {
  let t: TestApp;
  let clock: TestClock;
  let ana: TestUser;
  let ben: TestUser;

  beforeEach(async () => {
    clock = createTestClock('2026-06-01T09:00:00Z');
    t = await createTestApp(dialect, { clock, env });
    ana = await t.signUp();
    ben = await t.signUp();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await t.close();
  });

  it('replays the first answer to a repeat (same status and body, Idempotent-Replayed: true): the task is created once', async () => {
    const body = { title: 'Buy milk', priority: 2 };
    const first = await send(t, ana, 'POST', '/api/tasks', body, 'create-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers[REPLAYED]).toBeUndefined();

    const again = await send(t, ana, 'POST', '/api/tasks', body, 'create-1');
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers[REPLAYED]).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(await tasksTitled(t, 'Buy milk')).toBe(1);

    // A change and a deletion, repeated: the second PATCH is not applied again, the second DELETE is
    // the first's 204, not a 404.
    const task = first.json<Task>();
    const renamed = await send(
      t,
      ana,
      'PATCH',
      `/api/tasks/${task.id}`,
      { title: 'Buy oat milk' },
      'rename-1',
    );
    expect(renamed.statusCode, renamed.body).toBe(200);
    await send(t, ana, 'PATCH', `/api/tasks/${task.id}`, { title: 'Buy rice milk' });
    const renamedAgain = await send(
      t,
      ana,
      'PATCH',
      `/api/tasks/${task.id}`,
      { title: 'Buy oat milk' },
      'rename-1',
    );
    expect(renamedAgain.body).toBe(renamed.body);
    expect(renamedAgain.headers[REPLAYED]).toBe('true');
    expect(await tasksTitled(t, 'Buy rice milk')).toBe(1);

    const deleted = await send(t, ana, 'DELETE', `/api/tasks/${task.id}`, undefined, 'delete-1');
    expect(deleted.statusCode, deleted.body).toBe(204);
    const deletedAgain = await send(t, ana, 'DELETE', `/api/tasks/${task.id}`, undefined, 'delete-1');
    expect(deletedAgain.statusCode).toBe(204);
    expect(deletedAgain.body).toBe('');
    expect(deletedAgain.headers[REPLAYED]).toBe('true');
    expect((await send(t, ana, 'DELETE', `/api/tasks/${task.id}`)).statusCode).toBe(404);
  });

  it('answers 422 to the same key with another body, path or method, and does nothing', async () => {
    const first = await send(t, ana, 'POST', '/api/tasks', { title: 'Call Ana' }, 'k-422');
    expect(first.statusCode).toBe(201);
    const task = first.json<Task>();

    for (const [method, url, body] of [
      ['POST', '/api/tasks', { title: 'Call Ben' }],
      ['POST', '/api/tasks?projectId=1', { title: 'Call Ana' }],
      ['PATCH', `/api/tasks/${task.id}`, { title: 'Call Ana' }],
    ] as const) {
      const other = await send(t, ana, method, url, body, 'k-422');
      expect(other.statusCode, `${method} ${url}`).toBe(422);
      expect(message(other)).toBe(IDEMPOTENCY_MESSAGES.reused);
      expect(message(other)).toBe('This Idempotency-Key was used for another request');
    }
    expect(await tasksTitled(t, 'Call Ben')).toBe(0);
    expect(await tasksTitled(t, 'Call Ana')).toBe(1);
  });

  it('answers 409 to a repeat while the first is still running, and does nothing; the first answer is replayed after', async () => {
    const { opened, open } = gate();
    const real = t.ctx.notifications.markRead.bind(t.ctx.notifications);
    const markRead = vi.spyOn(t.ctx.notifications, 'markRead').mockImplementation(async (...args) => {
      await opened;
      return real(...args);
    });

    const first = send(t, ana, 'POST', NOTIFICATIONS_READ_PATH, { all: true }, 'read-all');
    await calledTimes(markRead, 1);
    const repeat = await send(t, ana, 'POST', NOTIFICATIONS_READ_PATH, { all: true }, 'read-all');
    expect(repeat.statusCode, repeat.body).toBe(409);
    expect(message(repeat)).toBe(IDEMPOTENCY_MESSAGES.inFlight);
    expect(repeat.headers['retry-after']).toBe('1');
    // Another body with that key is another request, whether or not the first has ended.
    const other = await send(t, ana, 'POST', NOTIFICATIONS_READ_PATH, { ids: [1] }, 'read-all');
    expect(other.statusCode).toBe(422);
    expect(markRead).toHaveBeenCalledTimes(1);

    open();
    const answer = await first;
    expect(answer.statusCode, answer.body).toBe(200);
    const after = await send(t, ana, 'POST', NOTIFICATIONS_READ_PATH, { all: true }, 'read-all');
    expect(after.statusCode).toBe(200);
    expect(after.body).toBe(answer.body);
    expect(after.headers[REPLAYED]).toBe('true');
    expect(markRead).toHaveBeenCalledTimes(1);
  });

  it('lets a key go after a 5xx, so the write can be tried again with it; a 4xx is kept', async () => {
    vi.spyOn(t.ctx.notifications, 'markRead').mockRejectedValueOnce(new Error('the disk is on fire'));
    const failed = await send(t, ana, 'POST', NOTIFICATIONS_READ_PATH, { all: true }, 'retry-me');
    expect(failed.statusCode).toBe(500);
    expect(await keyRows(t)).toEqual([]);
    const retried = await send(t, ana, 'POST', NOTIFICATIONS_READ_PATH, { all: true }, 'retry-me');
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.headers[REPLAYED]).toBeUndefined();
    const replayed = await send(t, ana, 'POST', NOTIFICATIONS_READ_PATH, { all: true }, 'retry-me');
    expect(replayed.headers[REPLAYED]).toBe('true');

    // A refusal stays a refusal: the same blank title answers the same 400, from the key.
    const refused = await send(t, ana, 'POST', '/api/tasks', { title: '' }, 'blank');
    expect(refused.statusCode).toBe(400);
    const refusedAgain = await send(t, ana, 'POST', '/api/tasks', { title: '' }, 'blank');
    expect(refusedAgain.statusCode).toBe(400);
    expect(refusedAgain.body).toBe(refused.body);
    expect(refusedAgain.headers[REPLAYED]).toBe('true');
  });

  it('keeps each person’s keys apart', async () => {
    const anas = await send(t, ana, 'POST', '/api/tasks', { title: 'Water plants' }, 'same-key');
    const bens = await send(t, ben, 'POST', '/api/tasks', { title: 'Water plants' }, 'same-key');
    expect(anas.statusCode).toBe(201);
    expect(bens.statusCode).toBe(201);
    expect(bens.headers[REPLAYED]).toBeUndefined();
    expect(bens.json<Task>().id).not.toBe(anas.json<Task>().id);
    // Ben's other body is his own first use of the key, not Ana's 422.
    const bensOther = await send(t, ben, 'POST', '/api/tasks', { title: 'Feed cat' }, 'other-key');
    expect(bensOther.statusCode).toBe(201);
    expect((await send(t, ana, 'POST', '/api/tasks', { title: 'Feed dog' }, 'other-key')).statusCode).toBe(
      201,
    );
    expect(await tasksTitled(t, 'Water plants')).toBe(2);
  });

  it('forgets a key after 24 hours (it counts as unused), and the job queue’s prune deletes it', async () => {
    const body = { title: 'Yearly check' };
    expect((await send(t, ana, 'POST', '/api/tasks', body, 'daily')).statusCode).toBe(201);
    clock.advance(IDEMPOTENCY_LIMITS.ttlMs - 1);
    expect((await send(t, ana, 'POST', '/api/tasks', body, 'daily')).headers[REPLAYED]).toBe('true');
    clock.advance(1);
    // Not pruned yet: still, a day-old key is unused.
    expect(await keyRows(t)).toHaveLength(1);
    const again = await send(t, ana, 'POST', '/api/tasks', body, 'daily');
    expect(again.statusCode).toBe(201);
    expect(again.headers[REPLAYED]).toBeUndefined();
    expect(await tasksTitled(t, 'Yearly check')).toBe(2);

    // The hourly prune of the job queue deletes what is a day old, and nothing younger.
    expect((await send(t, ana, 'POST', '/api/tasks', { title: 'Later' }, 'later')).statusCode).toBe(201);
    clock.advance(IDEMPOTENCY_LIMITS.ttlMs - 60_000);
    await t.ctx.jobs.runDue();
    expect((await keyRows(t)).map((row) => row.key).sort()).toEqual(['daily', 'later']);
    clock.advance(2 * 60 * 60_000);
    await t.ctx.jobs.runDue();
    expect((await keyRows(t)).map((row) => row.key)).toEqual([]);
  });

  it('answers 400 naming the header to a key that is empty, too long or not printable', async () => {
    for (const key of ['', 'x'.repeat(IDEMPOTENCY_LIMITS.keyMaxLength + 1), 'tab\there']) {
      const refused = await send(t, ana, 'POST', '/api/tasks', { title: 'Bad key' }, key);
      expect(refused.statusCode, JSON.stringify(key)).toBe(400);
      expect(message(refused)).toBe(IDEMPOTENCY_MESSAGES.invalid);
      expect(message(refused)).toContain(IDEMPOTENCY_KEY_HEADER);
    }
    const longest = await send(t, ana, 'POST', '/api/tasks', { title: 'Good key' }, 'y'.repeat(255));
    expect(longest.statusCode).toBe(201);
    const spaced = await send(t, ana, 'POST', '/api/tasks', { title: 'Good key' }, ' a key ~ with spaces ');
    expect(spaced.statusCode).toBe(201);
    expect(await tasksTitled(t, 'Bad key')).toBe(0);
  });

  it('costs nothing without the header, and is ignored on reads, for no one signed in and where the answer shows a secret', async () => {
    expect((await send(t, ana, 'POST', '/api/tasks', { title: 'Plain' })).statusCode).toBe(201);
    expect((await send(t, ana, 'GET', '/api/tasks', undefined, 'a-read')).statusCode).toBe(200);
    const signIn = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { [IDEMPOTENCY_KEY_HEADER]: 'sign-in' },
        payload: { username: ana.user.username, password: ana.password },
      });
    const [one, two] = [await signIn(), await signIn()];
    expect(one.statusCode).toBe(200);
    expect(two.headers[REPLAYED]).toBeUndefined();
    expect(two.json<{ sessionId: string }>().sessionId).not.toBe(one.json<{ sessionId: string }>().sessionId);
    // An API token is shown once: it is never written down with the key.
    const token = (key: string) => send(t, ana, 'POST', '/api/tokens', { name: 'CI' }, key);
    const [first, second] = [await token('token'), await token('token')];
    expect(first.statusCode, first.body).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.body).not.toBe(first.body);
    expect(await keyRows(t)).toEqual([]);
  });

  it('keeps the answer as JSON text and compresses the replay as it did the first answer', async () => {
    const body = { title: 'Long one', description: 'words '.repeat(400) };
    const headers = { 'accept-encoding': 'br' };
    const first = await send(t, ana, 'POST', '/api/tasks', body, 'long', headers);
    expect(first.statusCode).toBe(201);
    expect(first.headers['content-encoding']).toBe('br');
    const again = await send(t, ana, 'POST', '/api/tasks', body, 'long', headers);
    expect(again.headers['content-encoding']).toBe('br');
    expect(again.headers[REPLAYED]).toBe('true');
    const text = (response: LightMyRequestResponse) =>
      zlib.brotliDecompressSync(response.rawPayload).toString();
    expect(text(again)).toBe(text(first));
    const [row] = await keyRows(t);
    expect(row?.response_body).toBe(text(first));
    expect(JSON.parse(row?.response_headers ?? '{}')).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
    });
  });

  it('takes over a key left in flight by an instance that died, once it is older than the bound', async () => {
    const body = { title: 'Orphan' };
    // What an instance that died in the handler leaves: the claim, no answer.
    await t.ctx.db.kysely
      .insertInto('idempotency_keys')
      .values({
        user_id: ana.user.id,
        key: 'orphan',
        method: 'POST',
        path: '/api/tasks',
        body_hash: crypto.createHash('sha256').update(JSON.stringify(body)).digest('hex'),
        status: null,
        response_body: null,
        response_headers: null,
        created_at: clock.now().toISOString(),
      })
      .execute();
    clock.advance(IDEMPOTENCY_IN_FLIGHT_MS - 1);
    expect((await send(t, ana, 'POST', '/api/tasks', body, 'orphan')).statusCode).toBe(409);
    clock.advance(1);
    const taken = await send(t, ana, 'POST', '/api/tasks', body, 'orphan');
    expect(taken.statusCode, taken.body).toBe(201);
    const replayed = await send(t, ana, 'POST', '/api/tasks', body, 'orphan');
    expect(replayed.headers[REPLAYED]).toBe('true');
    expect(await tasksTitled(t, 'Orphan')).toBe(1);
  });
});

/** The keys live in the database: they hold across instances on one PostgreSQL, and through a restart. */
describe.each(testDialects)('Idempotency-Key across instances and restarts on %s', (dialect) => {
  let base: TestDatabase;

  beforeAll(async () => {
    base = await createTestDatabase(dialect);
    // SQLite: one process holds the database's lock; each app below opens it in turn.
    if (dialect === 'sqlite') await base.db.close();
  });
  afterAll(async () => {
    await base?.destroy();
  });

  const open = async () => createTestApp(dialect, { env, database: await reopenTestDatabase(base) });

  it('replays after a restart: a new app on the same database', async () => {
    const first = await open();
    const ana = await first.signUp();
    const created = await send(first, ana, 'POST', '/api/tasks', { title: 'Survives' }, 'restart');
    expect(created.statusCode).toBe(201);
    await first.close();

    const second = await open();
    try {
      const again = await send(second, ana, 'POST', '/api/tasks', { title: 'Survives' }, 'restart');
      expect(again.statusCode).toBe(201);
      expect(again.body).toBe(created.body);
      expect(again.headers[REPLAYED]).toBe('true');
      expect(await tasksTitled(second, 'Survives')).toBe(1);
    } finally {
      await second.close();
    }
  });

  it.runIf(dialect === 'postgres')(
    'two instances on one database: one runs the write, the other replays it or answers 409 while it runs',
    async () => {
      const [a, b] = [await open(), await open()];
      try {
        const ana = await a.signUp();
        // The row is the lock: ten at once, five on each instance, create one task.
        const body = { title: 'Raced' };
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) => send(i % 2 ? a : b, ana, 'POST', '/api/tasks', body, 'race')),
        );
        const ran = answers.filter((r) => r.statusCode === 201 && r.headers[REPLAYED] === undefined);
        expect(ran).toHaveLength(1);
        for (const answer of answers) {
          if (answer.statusCode === 201) expect(answer.body).toBe(ran[0]?.body);
          else expect(answer.statusCode).toBe(409);
        }
        expect(await tasksTitled(a, 'Raced')).toBe(1);
        expect((await send(b, ana, 'POST', '/api/tasks', body, 'race')).headers[REPLAYED]).toBe('true');

        // Held in its handler on one instance: the other answers 409, then replays it.
        const { opened, open: letGo } = gate();
        const real = a.ctx.notifications.markRead.bind(a.ctx.notifications);
        const markRead = vi.spyOn(a.ctx.notifications, 'markRead').mockImplementation(async (...args) => {
          await opened;
          return real(...args);
        });
        const first = send(a, ana, 'POST', NOTIFICATIONS_READ_PATH, { all: true }, 'held');
        await calledTimes(markRead, 1);
        const elsewhere = await send(b, ana, 'POST', NOTIFICATIONS_READ_PATH, { all: true }, 'held');
        expect(elsewhere.statusCode).toBe(409);
        letGo();
        expect((await first).statusCode).toBe(200);
        const replayed = await send(b, ana, 'POST', NOTIFICATIONS_READ_PATH, { all: true }, 'held');
        expect(replayed.statusCode).toBe(200);
        expect(replayed.headers[REPLAYED]).toBe('true');
      } finally {
        vi.restoreAllMocks();
        await a.close();
        await b.close();
      }
    },
  );
});
