import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoginResponse } from '../src/common/auth';
import type { Task } from '../src/common/tasks';
import { createPgSchema, type PgSchema } from '../src/server/testing/database';
import { startSmtpServer } from '../src/server/testing/smtp';
import { ADMIN, budget, type RunningServer, startServer } from './harness';

const BASE_URL = process.env.TEST_DATABASE_URL;
if (!BASE_URL && process.env.CI === 'true') throw new Error('TEST_DATABASE_URL is needed for e2e/reminders');

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

  const until = async (what: string, done: () => boolean | Promise<boolean>, ms = budget(20_000)) => {
    const start = Date.now();
    while (!(await done())) {
      if (Date.now() - start > ms) throw new Error(`waited ${ms} ms for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

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
    const login = await fetch(`${first.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const headers = {
      'user-session': ((await login.json()) as LoginResponse).sessionId,
      'Content-Type': 'application/json',
    };
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
