import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoginResponse } from '../src/common/auth';
import type { Task } from '../src/common/tasks';
import type { CreatedWebhook, WebhookDelivery } from '../src/common/webhooks';
import { createPgSchema, type PgSchema } from '../src/server/testing/database';
import { startSmtpServer } from '../src/server/testing/smtp';
import { ADMIN, budget, type RunningServer, startServer } from './harness';

const BASE_URL = process.env.TEST_DATABASE_URL;
if (!BASE_URL && process.env.CI === 'true') throw new Error('TEST_DATABASE_URL is needed for e2e/reminders');

const until = async (what: string, done: () => boolean | Promise<boolean>, ms = budget(20_000)) => {
  const start = Date.now();
  while (!(await done())) {
    if (Date.now() - start > ms) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** Signs the admin in on `url`: the headers of its requests. */
async function signIn(url: string) {
  const login = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  return {
    'user-session': ((await login.json()) as LoginResponse).sessionId,
    'Content-Type': 'application/json',
  };
}

/**
 * Issue 22: an instance killed (kill -9) in the middle of sending a reminder's e-mail loses
 * nothing and repeats nothing: another instance on the same database sends it once, after the
 * dead one's lease (decision 034). Real server processes, a real SMTP server that hangs on the
 * first message, PostgreSQL (TEST_DATABASE_URL).
 */
describe.runIf(BASE_URL)('a reminder whose instance is killed mid-delivery', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let schema: PgSchema;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    smtp = await startSmtpServer();
    schema = await createPgSchema(BASE_URL!, 'reminders');
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await smtp?.close();
    await schema?.drop();
  });

  async function jobs(): Promise<Array<{ kind: string; state: string; attempts: number }>> {
    const client = new pg.Client({ connectionString: BASE_URL });
    await client.connect();
    try {
      await client.query(`set search_path = ${schema.name}`);
      return (await client.query('select kind, state, attempts from jobs order by id')).rows;
    } finally {
      await client.end();
    }
  }

  it('is sent once, by the next instance, after the lease', async () => {
    const env = {
      DATABASE_URL: schema.url,
      SMTP_URL: smtp.url,
      ADMIN_EMAIL: 'admin@example.com',
      JOBS_POLL_INTERVAL_MS: '200',
      JOBS_LEASE_MS: '4000',
    };
    const first = await startServer(env);
    servers.push(first);
    const headers = await signIn(first.url);
    const task = (await (
      await fetch(`${first.url}/api/tasks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ title: 'Killed mid-delivery' }),
      })
    ).json()) as Task;
    // The SMTP server takes the first message and never answers: the instance hangs in the send.
    smtp.stallNext(1);
    const added = await fetch(`${first.url}/api/tasks/${task.id}/reminders`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ at: new Date(Date.now() + 1000).toISOString() }),
    });
    expect(added.status).toBe(201);
    await until('the first instance to be sending', () => smtp.stalled() === 1);
    await first.crash();
    expect(await jobs()).toEqual([
      { kind: 'remind', state: 'done', attempts: 1 },
      { kind: 'deliver', state: 'pending', attempts: 1 },
    ]);

    const second = await startServer(env);
    servers.push(second);
    const [mail] = await smtp.waitFor(1, budget(20_000));
    expect(mail?.subject).toBe('Tasklane: Reminder: Killed mid-delivery');
    expect(mail?.to).toEqual(['admin@example.com']);
    // Several more polls: nothing is sent again.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(smtp.messages).toHaveLength(1);
    expect(await jobs()).toEqual([
      { kind: 'remind', state: 'done', attempts: 1 },
      { kind: 'deliver', state: 'done', attempts: 2 },
    ]);
  });
});

/**
 * Issue 24: a webhook delivery whose instance is killed (kill -9) while the receiver has not yet
 * answered is sent again by the next instance after the lease: the same event, the same id, signed
 * so the receiver verifies it; and once delivered, never again.
 */
describe.runIf(BASE_URL)('a webhook delivery whose instance is killed mid-send', () => {
  let schema: PgSchema;
  const servers: RunningServer[] = [];
  const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  // The first request is held open and never answered: its instance hangs in the send.
  const receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      if (received.length > 1) response.writeHead(204).end();
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    schema = await createPgSchema(BASE_URL!, 'webhooks_crash');
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await schema?.drop();
  });

  it('is delivered once, by the next instance, after the lease', async () => {
    const env = {
      DATABASE_URL: schema.url,
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      // Shared by every instance (each has its own DATA_DIR), as the README says: it seals the
      // signing secrets, which another key could not read.
      AI_SECRET: 'a shared secret of at least thirty-two characters',
      JOBS_POLL_INTERVAL_MS: '200',
      JOBS_LEASE_MS: '4000',
    };
    const first = await startServer(env);
    servers.push(first);
    const headers = await signIn(first.url);
    const { port } = receiver.address() as AddressInfo;
    const hook = (await (
      await fetch(`${first.url}/api/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['task.created'] }),
      })
    ).json()) as CreatedWebhook;
    const created = await fetch(`${first.url}/api/tasks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: 'Killed mid-delivery' }),
    });
    expect(created.status).toBe(201);
    await until('the first instance to be sending', () => received.length === 1);
    await first.crash();

    const second = await startServer(env);
    servers.push(second);
    await until('the next instance to send it again', () => received.length === 2);
    const [held, sent] = received;
    expect(sent!.headers['webhook-id']).toBe(held!.headers['webhook-id']);
    expect(sent!.body).toBe(held!.body);
    const event = new Webhook(hook.secret).verify(sent!.body, sent!.headers as Record<string, string>) as {
      type: string;
      data: Task;
    };
    expect([event.type, event.data.title]).toEqual(['task.created', 'Killed mid-delivery']);
    // Several more polls: nothing is sent again, and the log says so.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(received).toHaveLength(2);
    const log = (await (
      await fetch(`${second.url}/api/webhooks/${hook.id}/deliveries`, { headers: await signIn(second.url) })
    ).json()) as WebhookDelivery[];
    expect(log.find((entry) => entry.status === 'succeeded')).toMatchObject({
      type: 'task.created',
      responseStatus: 204,
    });
    expect(log.filter((entry) => entry.status === 'succeeded')).toHaveLength(1);
  });
});
