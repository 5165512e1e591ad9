import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Comment } from '../../common/comments';
import type { Task } from '../../common/tasks';
import {
  type CreatedWebhook,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_LIMITS,
  WEBHOOK_MESSAGES,
  type Webhook,
  type WebhookDelivery,
} from '../../common/webhooks';
import { urlGuardMessages } from '../http/url-guard';
import { expectStatus } from '../testing/answers';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { createTestClock, type TestClock } from '../testing/clock';
import { createTestDatabase, reopenTestDatabase, type TestDatabase, testDialects } from '../testing/database';
import { insertProposal } from '../testing/proposals';
import { startSmtpServer } from '../testing/smtp';

/** What the receiver got: the raw body and the three Standard Webhooks headers. */
interface Received {
  body: string;
  headers: Record<string, string>;
  path: string;
}

/** A real HTTP receiver on a loopback port; it answers `answer()`'s status. */
async function startReceiver() {
  const received: Received[] = [];
  let answer = () => 204;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type']) {
        headers[name] = String(request.headers[name] ?? '');
      }
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers, path: request.url ?? '' });
      const status = answer();
      response.writeHead(status, status >= 300 && status < 400 ? { location: '/elsewhere' } : {});
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    answerWith(status: number | (() => number)) {
      answer = typeof status === 'number' ? () => status : status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * Verifies a delivery with the standardwebhooks library, as a receiver would, at the test clock's
 * time (the library checks the timestamp against its own clock: five minutes either way).
 */
function verify(secret: string, delivery: Received, at: Date) {
  vi.useFakeTimers({ toFake: ['Date'], now: at });
  try {
    return new Verifier(secret).verify(delivery.body, delivery.headers) as {
      id: string;
      type: string;
      createdAt: string;
      data: unknown;
    };
  } finally {
    vi.useRealTimers();
  }
}

const summary = (task: Task) => {
  const { notes: _notes, aiDraft: _aiDraft, ...rest } = task;
  return rest;
};

const ALL_EVENTS = [...WEBHOOK_EVENT_TYPES];

describe.each(testDialects)('webhooks on %s', (dialect) => {
  let receiver: Receiver;
  let t: TestApp;
  let clock: TestClock;

  beforeAll(async () => {
    receiver = await startReceiver();
    clock = createTestClock('2026-06-01T09:00:00Z');
    t = await createTestApp(dialect, {
      clock,
      env: { WEBHOOKS_ALLOW_PRIVATE: 'true', JOBS_POLL_INTERVAL_MS: '60000' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  afterEach(() => {
    receiver.received.length = 0;
    receiver.answerWith(204);
  });

  const ok = expectStatus;
  const createHook = (user: TestUser, body: Record<string, unknown>) =>
    ok<CreatedWebhook>(
      user.request('POST', '/api/webhooks', { url: receiver.url, events: ALL_EVENTS, ...body }),
      201,
    );
  const deliveriesOf = (user: TestUser, id: number) =>
    ok<WebhookDelivery[]>(user.request('GET', `/api/webhooks/${id}/deliveries`));

  it('creates, lists, changes and deletes a webhook; the secret is shown once; 20 per person; others get 404', async () => {
    const ana = await t.signUp();
    const ben = await t.signUp();
    const created = await createHook(ana, { events: ['task.created', 'task.created'] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    expect(created).toMatchObject({
      url: receiver.url,
      events: ['task.created'],
      projectId: null,
      active: true,
    });
    const listed = await ok<Webhook[]>(ana.request('GET', '/api/webhooks'));
    expect(listed).toEqual([
      {
        id: created.id,
        url: receiver.url,
        events: ['task.created'],
        projectId: null,
        active: true,
        failuresInARow: 0,
        createdAt: created.createdAt,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect(await ok<Webhook[]>(ben.request('GET', '/api/webhooks'))).toEqual([]);

    const changed = await ok<Webhook>(
      ana.request('PATCH', `/api/webhooks/${created.id}`, { events: ['task.deleted'], active: false }),
    );
    expect(changed).toMatchObject({ events: ['task.deleted'], active: false });
    // Every event the issue lists may be named, ping included.
    const everything = await ok<Webhook>(
      ana.request('PATCH', `/api/webhooks/${created.id}`, { events: [...WEBHOOK_EVENT_TYPES, 'ping'] }),
    );
    expect(everything.events).toEqual([...WEBHOOK_EVENT_TYPES, 'ping']);

    for (const [method, path] of [
      ['PATCH', `/api/webhooks/${created.id}`],
      ['DELETE', `/api/webhooks/${created.id}`],
      ['POST', `/api/webhooks/${created.id}/test`],
      ['GET', `/api/webhooks/${created.id}/deliveries`],
      ['POST', `/api/webhooks/${created.id}/deliveries/1/redeliver`],
    ] as const) {
      const answer = await ben.request(method, path, method === 'PATCH' ? { active: true } : undefined);
      expect([method, path, answer.statusCode, answer.json()]).toEqual([
        method,
        path,
        404,
        { message: 'Webhook not found' },
      ]);
    }

    for (const [body, message] of [
      [{ url: receiver.url, events: [] }, WEBHOOK_MESSAGES.eventsRequired],
      [{ url: receiver.url, events: ['task.exploded'] }, WEBHOOK_MESSAGES.eventUnknown],
      [{ url: '', events: ['task.created'] }, WEBHOOK_MESSAGES.urlRequired],
      [{ url: 'ftp://example.com/', events: ['task.created'] }, urlGuardMessages('url').invalid],
      [{ url: 'http://u:p@example.com/', events: ['task.created'] }, urlGuardMessages('url').credentials],
    ] as const) {
      const answer = await ana.request('POST', '/api/webhooks', body);
      expect([answer.statusCode, answer.json()]).toEqual([400, { message }]);
    }

    for (let i = 1; i < WEBHOOK_LIMITS.perPerson; i++) await createHook(ana, {});
    const tooMany = await ana.request('POST', '/api/webhooks', {
      url: receiver.url,
      events: ['task.created'],
    });
    expect([tooMany.statusCode, tooMany.json()]).toEqual([400, { message: WEBHOOK_MESSAGES.tooMany }]);

    expect((await ana.request('DELETE', `/api/webhooks/${created.id}`)).statusCode).toBe(204);
    expect((await ana.request('DELETE', `/api/webhooks/${created.id}`)).statusCode).toBe(404);
  });

  it('a token limited to some projects may not see or manage webhooks, which reach beyond them (issue 24)', async () => {
    const ana = await t.signUp();
    const hook = await createHook(ana, {});
    const minted = await ok<{ token: string }>(
      ana.request('POST', '/api/tokens', { name: 'limited', projectIds: [ana.inboxId] }),
      201,
    );
    const limited = { message: 'This token is limited to some projects' };
    for (const [method, url, payload] of [
      ['GET', '/api/webhooks', undefined],
      ['POST', '/api/webhooks', { url: receiver.url, events: ['task.created'] }],
      ['PATCH', `/api/webhooks/${hook.id}`, { active: false }],
      ['POST', `/api/webhooks/${hook.id}/test`, undefined],
      ['GET', `/api/webhooks/${hook.id}/deliveries`, undefined],
      ['DELETE', `/api/webhooks/${hook.id}`, undefined],
    ] as const) {
      const answer = await t.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${minted.token}` },
        ...(payload ? { payload } : {}),
      });
      expect([method, url, answer.statusCode, answer.json()]).toEqual([method, url, 403, limited]);
    }
    // Nothing changed; the same token for all projects may.
    expect(await ok<Webhook[]>(ana.request('GET', '/api/webhooks'))).toMatchObject([
      { id: hook.id, active: true },
    ]);
  });

  it("a project's webhook needs admin or more there", async () => {
    const owner = await t.signUp();
    const editor = await t.signUp();
    const stranger = await t.signUp();
    const project = await ok<{ id: number }>(owner.request('POST', '/api/projects', { name: 'Hooks' }), 201);
    await ok(
      owner.request('POST', `/api/projects/${project.id}/members`, {
        user: editor.user.username,
        role: 'editor',
      }),
      201,
    );
    const byEditor = await editor.request('POST', '/api/webhooks', {
      url: receiver.url,
      events: ['task.created'],
      projectId: project.id,
    });
    expect(byEditor.statusCode).toBe(403);
    const byStranger = await stranger.request('POST', '/api/webhooks', {
      url: receiver.url,
      events: ['task.created'],
      projectId: project.id,
    });
    expect([byStranger.statusCode, byStranger.json()]).toEqual([404, { message: 'Project not found' }]);
    await createHook(owner, { projectId: project.id });
  });

  it('every event fires once, signed, with the documented body', async () => {
    const owner = await t.signUp();
    const member = await t.signUp();
    const project = await ok<{ id: number }>(owner.request('POST', '/api/projects', { name: 'Events' }), 201);
    const hook = await createHook(owner, { projectId: project.id });
    const expected: Array<{ type: string; data: unknown }> = [];

    const task = await ok<Task>(
      owner.request('POST', '/api/tasks', { title: 'Ship it', projectId: project.id }),
      201,
    );
    expected.push({ type: 'task.created', data: summary(task) });
    const renamed = await ok<Task>(owner.request('PATCH', `/api/tasks/${task.id}`, { title: 'Ship it now' }));
    expected.push({ type: 'task.updated', data: summary(renamed) });
    const completed = await ok<Task>(owner.request('POST', `/api/tasks/${task.id}/complete`, {}));
    expected.push({ type: 'task.completed', data: summary(completed) });
    const restored = await ok<Task>(owner.request('PATCH', `/api/tasks/${task.id}`, { completed: false }));
    expected.push({ type: 'task.restored', data: summary(restored) });
    await ok(owner.request('POST', '/api/tasks', { title: 'Other', projectId: project.id }), 201);
    expected.push({ type: 'task.created', data: expect.objectContaining({ title: 'Other' }) });
    const moved = await ok<Task>(owner.request('POST', `/api/tasks/${task.id}/move`, { afterId: null }));
    expected.push({ type: 'task.moved', data: summary(moved) });
    const comment = await ok<Comment>(
      owner.request('POST', `/api/tasks/${task.id}/comments`, { body: 'Looks good' }),
      201,
    );
    expected.push({ type: 'comment.created', data: comment });
    await ok(owner.request('POST', `/api/tasks/${task.id}/checklist`, { title: 'Step one' }), 201);
    const withItem = await ok<Task>(owner.request('GET', `/api/tasks/${task.id}`));
    expected.push({ type: 'checklist.changed', data: summary(withItem) });
    const added = await ok<Record<string, unknown>>(
      owner.request('POST', `/api/projects/${project.id}/members`, {
        user: member.user.username,
        role: 'viewer',
      }),
      201,
    );
    expected.push({ type: 'project.member_added', data: { projectId: project.id, member: added } });
    const assigned = await ok<Task>(
      owner.request('PATCH', `/api/tasks/${task.id}`, { assigneeIds: [member.user.id] }),
    );
    expected.push({ type: 'task.updated', data: summary(assigned) });
    expect(
      (await owner.request('DELETE', `/api/projects/${project.id}/members/${member.user.id}`)).statusCode,
    ).toBe(204);
    // Removed, they come off the task: a change of its assignees like any other.
    const unassigned = await ok<Task>(owner.request('GET', `/api/tasks/${task.id}`));
    expect(unassigned.assigneeIds).toEqual([]);
    expected.push({ type: 'task.updated', data: summary(unassigned) });
    expected.push({ type: 'project.member_removed', data: { projectId: project.id, member: added } });
    const before = await ok<Task>(owner.request('GET', `/api/tasks/${task.id}`));
    expect((await owner.request('DELETE', `/api/tasks/${task.id}`)).statusCode).toBe(204);
    expected.push({ type: 'task.deleted', data: summary(before) });
    const ping = await ok<{ eventId: string }>(owner.request('POST', `/api/webhooks/${hook.id}/test`), 202);
    expected.push({ type: 'ping', data: { webhookId: hook.id } });

    await t.ctx.jobs.runDue();
    expect(receiver.received).toHaveLength(expected.length);
    const bodies = receiver.received.map((delivery) => verify(hook.secret, delivery, clock.now()));
    expect(bodies.map(({ type, data }) => ({ type, data }))).toEqual(expected);
    // Every type once (task.created twice: two tasks), each its own id, the id in webhook-id too.
    expect(new Set(bodies.map((body) => body.type))).toEqual(new Set([...WEBHOOK_EVENT_TYPES, 'ping']));
    expect(new Set(bodies.map((body) => body.id)).size).toBe(bodies.length);
    for (const [i, delivery] of receiver.received.entries()) {
      expect(delivery.headers['webhook-id']).toBe(bodies[i]!.id);
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(delivery.headers['webhook-timestamp']).toBe(String(clock.now().getTime() / 1000));
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(bodies[i]!.createdAt).toBe(clock.now().toISOString());
    }
    expect(bodies.at(-1)!.id).toBe(ping.eventId);
    // A signature made with another secret does not verify.
    expect(() =>
      verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, receiver.received[0]!, clock.now()),
    ).toThrow();

    const log = await deliveriesOf(owner, hook.id);
    expect(log).toHaveLength(expected.length);
    expect(log[0]).toMatchObject({
      eventId: ping.eventId,
      type: 'ping',
      attempt: 1,
      status: 'succeeded',
      responseStatus: 204,
      error: null,
    });
    expect(log.map((entry) => entry.type)).toEqual(expected.map((entry) => entry.type).reverse());
    expect(log.every((entry) => entry.status === 'succeeded' && typeof entry.durationMs === 'number')).toBe(
      true,
    );
  });

  it("without a project: the owner's Inbox and the tasks assigned to them, nothing else", async () => {
    const owner = await t.signUp();
    const ana = await t.signUp();
    const hook = await createHook(ana, { events: ['task.created', 'task.updated'] });
    const project = await ok<{ id: number }>(owner.request('POST', '/api/projects', { name: 'Shared' }), 201);
    await ok(
      owner.request('POST', `/api/projects/${project.id}/members`, {
        user: ana.user.username,
        role: 'editor',
      }),
      201,
    );
    const inInbox = await ok<Task>(ana.request('POST', '/api/tasks', { title: 'Mine' }), 201);
    const notMine = await ok<Task>(
      owner.request('POST', '/api/tasks', { title: 'Not mine', projectId: project.id }),
      201,
    );
    const assigned = await ok<Task>(
      owner.request('PATCH', `/api/tasks/${notMine.id}`, { assigneeIds: [ana.user.id] }),
    );
    // Someone else's Inbox is not hers.
    await ok(owner.request('POST', '/api/tasks', { title: 'Owner inbox' }), 201);
    await t.ctx.jobs.runDue();
    const bodies = receiver.received.map((delivery) => verify(hook.secret, delivery, clock.now()));
    expect(bodies.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'task.created', data: summary(inInbox) },
      { type: 'task.updated', data: summary(assigned) },
    ]);
  });

  it("an AI agent's split (an applied create_tasks proposal) is one task.created per new task", async () => {
    const ana = await t.signUp();
    const hook = await createHook(ana, { events: ['task.created'] });
    const task = await ok<Task>(ana.request('POST', '/api/tasks', { title: 'Big job' }), 201);
    const { proposalId } = await insertProposal(t.ctx.db.kysely, {
      userId: ana.user.id,
      taskId: task.id,
      tool: 'create_tasks',
      args: { tasks: [{ title: 'Half one' }, { title: 'Half two' }] },
      at: clock.now().toISOString(),
    });
    await ok(ana.request('POST', `/api/ai/proposals/${proposalId}/apply`));
    await t.ctx.jobs.runDue();
    const bodies = receiver.received.map((delivery) => verify(hook.secret, delivery, clock.now()));
    const listed = await ok<Task[]>(ana.request('GET', '/api/tasks'));
    const halves = listed.filter((one) => one.title.startsWith('Half')).map(summary);
    expect(bodies.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'task.created', data: summary(task) },
      ...halves.sort((a, b) => a.id - b.id).map((data) => ({ type: 'task.created', data })),
    ]);
  });

  it('retries after about 1 min, 5 min, 30 min, 2 h and 6 h, logging each attempt; a 3xx is a failure; Redeliver sends the same event', async () => {
    const ana = await t.signUp();
    const hook = await createHook(ana, {});
    receiver.answerWith(302);
    const { eventId } = await ok<{ eventId: string }>(
      ana.request('POST', `/api/webhooks/${hook.id}/test`),
      202,
    );
    await t.ctx.jobs.runDue();
    expect(receiver.received.map((delivery) => delivery.path)).toEqual(['/hook']);
    let log = await deliveriesOf(ana, hook.id);
    expect(log.map(({ attempt, status }) => [attempt, status])).toEqual([
      [2, 'pending'],
      [1, 'failed'],
    ]);
    expect(log[1]).toMatchObject({ responseStatus: 302, error: 'Answered 302: redirects are not followed' });
    expect(log[0]!.at).toBe(new Date(clock.now().getTime() + 60_000).toISOString());
    receiver.answerWith(500);
    for (const [i, delay] of WEBHOOK_LIMITS.retryDelaysMs.entries()) {
      clock.advance(delay - 1000);
      await t.ctx.jobs.runDue();
      expect(receiver.received, `attempt ${i + 2} waits`).toHaveLength(i + 1);
      clock.advance(1000);
      await t.ctx.jobs.runDue();
      expect(receiver.received, `attempt ${i + 2}`).toHaveLength(i + 2);
    }
    clock.advance(24 * 60 * 60_000);
    await t.ctx.jobs.runDue();
    expect(receiver.received).toHaveLength(6);
    const ids = receiver.received.map(
      (delivery) =>
        verify(hook.secret, delivery, new Date(Number(delivery.headers['webhook-timestamp']) * 1000)).id,
    );
    expect(new Set(ids)).toEqual(new Set([eventId]));
    log = await deliveriesOf(ana, hook.id);
    expect(log.map(({ attempt, status, responseStatus }) => [attempt, status, responseStatus])).toEqual([
      [6, 'failed', 500],
      [5, 'failed', 500],
      [4, 'failed', 500],
      [3, 'failed', 500],
      [2, 'failed', 500],
      [1, 'failed', 302],
    ]);
    const job = await t.ctx.db.kysely
      .selectFrom('jobs')
      .select(['state', 'attempts'])
      .where('key', '=', `webhook:${hook.id}:${eventId}`)
      .executeTakeFirstOrThrow();
    expect(job).toEqual({ state: 'failed', attempts: 6 });

    receiver.answerWith(200);
    const again = await ok<{ eventId: string }>(
      ana.request('POST', `/api/webhooks/${hook.id}/deliveries/${log[0]!.id}/redeliver`),
      202,
    );
    expect(again.eventId).toBe(eventId);
    await t.ctx.jobs.runDue();
    expect(receiver.received).toHaveLength(7);
    expect(receiver.received[6]!.body).toBe(receiver.received[0]!.body);
    expect(verify(hook.secret, receiver.received[6]!, clock.now()).id).toBe(eventId);
    expect((await deliveriesOf(ana, hook.id))[0]).toMatchObject({
      eventId,
      attempt: 1,
      status: 'succeeded',
      responseStatus: 200,
    });
    const missing = await ana.request('POST', `/api/webhooks/${hook.id}/deliveries/99999999/redeliver`);
    expect([missing.statusCode, missing.json()]).toEqual([404, { message: 'Delivery not found' }]);
  });

  it('a delivery that never answers fails after 10 s, holding no other delivery back', async () => {
    const ana = await t.signUp();
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const hook = await ok<CreatedWebhook>(
        ana.request('POST', '/api/webhooks', {
          url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`,
          events: ['comment.created'],
        }),
        201,
      );
      await createHook(ana, { events: ['task.created'] });
      await ok(ana.request('POST', `/api/webhooks/${hook.id}/test`), 202);
      await ok(ana.request('POST', '/api/tasks', { title: 'Told at once' }), 201);
      const started = Date.now();
      const run = t.ctx.jobs.runDue();
      // The other receiver hears of the task while the silent one is still being waited for.
      await expect.poll(() => receiver.received.length, { timeout: 5_000 }).toBe(1);
      expect(Date.now() - started).toBeLessThan(WEBHOOK_LIMITS.timeoutMs / 2);
      await run;
      expect(Date.now() - started).toBeGreaterThanOrEqual(WEBHOOK_LIMITS.timeoutMs - 100);
      const [, failed] = await deliveriesOf(ana, hook.id);
      expect(failed).toMatchObject({
        status: 'failed',
        responseStatus: null,
        error: 'No answer within 10 s',
      });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  }, 30_000);
});

describe.each(testDialects)('webhooks that fail, and the guard, on %s', (dialect) => {
  let receiver: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await receiver?.close();
    await smtp?.close();
  });

  it('20 failures in a row turn the webhook off and e-mail its owner; turned on, it counts afresh', async () => {
    const clock = createTestClock('2026-06-02T09:00:00Z');
    const t = await createTestApp(dialect, {
      clock,
      env: { WEBHOOKS_ALLOW_PRIVATE: 'true', JOBS_POLL_INTERVAL_MS: '60000', SMTP_URL: smtp.url },
    });
    try {
      receiver.answerWith(503);
      const ana = await t.signUp({ email: 'ana-hooks@example.com' });
      const hook = (
        await ana.request('POST', '/api/webhooks', { url: receiver.url, events: ['task.created'] })
      ).json<CreatedWebhook>();
      for (let i = 0; i < WEBHOOK_LIMITS.failuresBeforeOff - 1; i++) {
        await ana.request('POST', '/api/tasks', { title: `Task ${i}` });
      }
      await t.ctx.jobs.runDue();
      expect(receiver.received).toHaveLength(19);
      let listed = (await ana.request('GET', '/api/webhooks')).json<Webhook[]>();
      expect(listed[0]).toMatchObject({ active: true, failuresInARow: 19 });
      expect(smtp.messages).toHaveLength(0);

      await ana.request('POST', '/api/tasks', { title: 'The twentieth' });
      await t.ctx.jobs.runDue();
      listed = (await ana.request('GET', '/api/webhooks')).json<Webhook[]>();
      expect(listed[0]).toMatchObject({ active: false, failuresInARow: 20 });
      const [mail] = await smtp.waitFor(1);
      expect(mail!.to).toEqual(['ana-hooks@example.com']);
      expect(mail!.subject).toBe('Tasklane: A webhook was turned off');
      expect(mail!.text).toContain(receiver.url);

      // Off: the retries of those events and new events are not sent; nothing more is e-mailed.
      clock.advance(60 * 60_000);
      await ana.request('POST', '/api/tasks', { title: 'While off' });
      await t.ctx.jobs.runDue();
      expect(receiver.received).toHaveLength(20);
      expect(smtp.messages).toHaveLength(1);

      receiver.answerWith(200);
      const on = (await ana.request('PATCH', `/api/webhooks/${hook.id}`, { active: true })).json<Webhook>();
      expect(on).toMatchObject({ active: true, failuresInARow: 0 });
      const task = (await ana.request('POST', '/api/tasks', { title: 'Back on' })).json<Task>();
      await t.ctx.jobs.runDue();
      const last = verify(hook.secret, receiver.received.at(-1)!, clock.now());
      expect(last).toMatchObject({ type: 'task.created', data: { id: task.id, title: 'Back on' } });
    } finally {
      await t.close();
      receiver.received.length = 0;
      receiver.answerWith(204);
    }
  });

  it('refuses loopback, private, link-local and metadata destinations (400 naming url), and at send time too', async () => {
    const t = await createTestApp(dialect, { env: { JOBS_POLL_INTERVAL_MS: '60000' } });
    try {
      const ana = await t.signUp();
      for (const url of [
        receiver.url,
        'http://10.1.2.3/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://192.168.1.10/',
        'http://[::1]/hook',
        `http://localhost:${receiver.port}/hook`,
      ]) {
        const answer = await ana.request('POST', '/api/webhooks', { url, events: ['task.created'] });
        expect([url, answer.statusCode, answer.json()]).toEqual([
          url,
          400,
          { message: urlGuardMessages('url').private },
        ]);
      }
      // A public address passes; when its name later resolves to loopback (here: the row changed to
      // localhost, as DNS rebinding would), the attempt fails and nothing reaches the address.
      const hook = (
        await ana.request('POST', '/api/webhooks', {
          url: 'http://93.184.216.34/hook',
          events: ['task.created'],
        })
      ).json<CreatedWebhook>();
      expect(hook.id).toBeGreaterThan(0);
      const refused = await ana.request('PATCH', `/api/webhooks/${hook.id}`, { url: 'http://127.0.0.1/' });
      expect([refused.statusCode, refused.json()]).toEqual([
        400,
        { message: urlGuardMessages('url').private },
      ]);
      await t.ctx.db.kysely
        .updateTable('webhooks')
        .set({ url: `http://localhost:${receiver.port}/hook` })
        .where('id', '=', hook.id)
        .execute();
      await ana.request('POST', `/api/webhooks/${hook.id}/test`);
      await t.ctx.jobs.runDue();
      expect(receiver.received).toHaveLength(0);
      const log = (await ana.request('GET', `/api/webhooks/${hook.id}/deliveries`)).json<WebhookDelivery[]>();
      expect(log[1]).toMatchObject({
        attempt: 1,
        status: 'failed',
        responseStatus: null,
        error: urlGuardMessages('url').private,
      });
    } finally {
      await t.close();
    }
  });

  it('a delivery whose instance died mid-send (its lease lapsed) is sent later, once', async () => {
    const clock = createTestClock('2026-06-03T09:00:00Z');
    const t = await createTestApp(dialect, {
      clock,
      env: { WEBHOOKS_ALLOW_PRIVATE: 'true', JOBS_POLL_INTERVAL_MS: '60000', JOBS_LEASE_MS: '5000' },
    });
    try {
      // This instance's poller is stopped: the job waits for the claim below, as a dying instance's.
      await t.ctx.jobs.stop();
      const ana = await t.signUp();
      const hook = (
        await ana.request('POST', '/api/webhooks', { url: receiver.url, events: ['task.created'] })
      ).json<CreatedWebhook>();
      await ana.request('POST', '/api/tasks', { title: 'Survives' });
      expect(await t.ctx.jobs.claimOnly()).toHaveLength(1);
      await t.ctx.jobs.runDue();
      expect(receiver.received).toHaveLength(0);
      clock.advance(5000);
      await t.ctx.jobs.runDue();
      expect(receiver.received).toHaveLength(1);
      expect(verify(hook.secret, receiver.received[0]!, clock.now())).toMatchObject({
        type: 'task.created',
        data: { title: 'Survives' },
      });
      clock.advance(60 * 60_000);
      await t.ctx.jobs.runDue();
      expect(receiver.received).toHaveLength(1);
      const log = (await ana.request('GET', `/api/webhooks/${hook.id}/deliveries`)).json<WebhookDelivery[]>();
      expect(log.map(({ attempt, status }) => [attempt, status])).toEqual([[2, 'succeeded']]);
    } finally {
      await t.close();
      receiver.received.length = 0;
    }
  });
});

describe.runIf(testDialects.includes('postgres'))(
  'webhooks with two instances on one PostgreSQL database',
  () => {
    let receiver: Receiver;
    let base: TestDatabase;

    beforeAll(async () => {
      receiver = await startReceiver();
      base = await createTestDatabase('postgres');
    });
    afterAll(async () => {
      await base?.destroy();
      await receiver?.close();
    });

    it('each event goes out once per webhook', async () => {
      const clock = createTestClock('2026-06-04T09:00:00Z');
      const env = { WEBHOOKS_ALLOW_PRIVATE: 'true', JOBS_POLL_INTERVAL_MS: '100' };
      const apps: TestApp[] = [];
      try {
        for (let i = 0; i < 2; i++)
          apps.push(
            await createTestApp('postgres', { clock, env, database: await reopenTestDatabase(base) }),
          );
        const [a, b] = apps as [TestApp, TestApp];
        const ana = await a.signUp();
        const hooks: CreatedWebhook[] = [];
        for (let i = 0; i < 2; i++) {
          hooks.push(
            (
              await ana.request('POST', '/api/webhooks', { url: receiver.url, events: ['task.created'] })
            ).json<CreatedWebhook>(),
          );
        }
        for (let i = 0; i < 20; i++) {
          const created = await (i % 2 ? a : b).app.inject({
            method: 'POST',
            url: '/api/tasks',
            headers: ana.headers,
            payload: { title: `Task ${i}` },
          });
          expect(created.statusCode).toBe(201);
        }
        await Promise.all([
          a.ctx.jobs.runDue(),
          b.ctx.jobs.runDue(),
          a.ctx.jobs.runDue(),
          b.ctx.jobs.runDue(),
        ]);
        await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(40);
        // Every delivery job done at its first try: none was sent by both instances.
        const jobs = () =>
          a.ctx.db.kysely
            .selectFrom('jobs')
            .select(['state', 'attempts'])
            .where('kind', '=', 'webhook')
            .execute();
        await expect.poll(async () => (await jobs()).filter((job) => job.state === 'done').length).toBe(40);
        expect((await jobs()).every((job) => job.attempts === 1)).toBe(true);
        expect(receiver.received).toHaveLength(40);
        const pairs = receiver.received.map((delivery) => {
          const hook = hooks.find((candidate) => {
            try {
              verify(candidate.secret, delivery, clock.now());
              return true;
            } catch {
              return false;
            }
          });
          return `${hook?.id}:${delivery.headers['webhook-id']}`;
        });
        expect(new Set(pairs).size).toBe(40);
        expect(pairs.every((pair) => !pair.startsWith('undefined'))).toBe(true);
      } finally {
        for (const app of apps) await app.close();
      }
    }, 60_000);
  },
);
