import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUSH_PATHS } from '../../common/push';
import type { Task } from '../../common/tasks';
import { createTestApp, type TestApp } from '../testing/app';
import { createTestClock } from '../testing/clock';
import { createTestDatabase, reopenTestDatabase, type TestDatabase, testDialects } from '../testing/database';
import { startTestPushService, type TestPushService } from '../testing/push-service';
import { startSmtpServer } from '../testing/smtp';

type Smtp = Awaited<ReturnType<typeof startSmtpServer>>;

/**
 * Jobs across instances and restarts (decision 034): exactly once with two instances polling one
 * PostgreSQL database, and a reminder that fell due while no instance ran fires once at the next start.
 */
describe.each(testDialects)('jobs across instances on %s', (dialect) => {
  let smtp: Smtp;
  let push: TestPushService;
  let base: TestDatabase;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    push = await startTestPushService();
    base = await createTestDatabase(dialect);
    // SQLite: one process holds the database's lock; each app below opens it in turn.
    if (dialect === 'sqlite') await base.db.close();
  });
  afterAll(async () => {
    await base?.destroy();
    await smtp?.close();
    await push?.close();
  });

  it('a reminder that fell due while every instance was down fires once at the next start', async () => {
    const clock = createTestClock('2026-05-04T09:00:00Z');
    const env = { SMTP_URL: smtp.url, JOBS_POLL_INTERVAL_MS: '60000' };
    const first = await createTestApp(dialect, { clock, env, database: await reopenTestDatabase(base) });
    const ana = await first.signUp();
    const task = (await ana.request('POST', '/api/tasks', { title: 'While down' })).json<Task>();
    const added = await ana.request('POST', `/api/tasks/${task.id}/reminders`, {
      at: '2026-05-04T09:10:00Z',
    });
    expect(added.statusCode, added.body).toBe(201);
    await first.close();

    clock.set('2026-05-04T12:00:00Z');
    const second = await createTestApp(dialect, { clock, env, database: await reopenTestDatabase(base) });
    try {
      // No runDue: the poller's first pass at start finds it.
      const mails = await smtp.waitFor(1);
      expect(mails.map((mail) => mail.subject)).toEqual(['Tasklane: Reminder: While down']);
      await second.ctx.jobs.runDue();
      clock.advance(60 * 60_000);
      await second.ctx.jobs.runDue();
      expect(smtp.messages).toHaveLength(1);
    } finally {
      await second.close();
      smtp.messages.length = 0;
    }
  });

  it.runIf(dialect === 'postgres')(
    'two instances polling at once: 50 reminders due within a minute are 50 e-mails and 50 pushes, no more',
    async () => {
      const clock = createTestClock('2026-05-05T09:00:00Z');
      const env = { SMTP_URL: smtp.url, JOBS_POLL_INTERVAL_MS: '100' };
      const apps: TestApp[] = [];
      try {
        for (let i = 0; i < 2; i++) {
          apps.push(
            await createTestApp(dialect, {
              clock,
              env,
              pushAgent: push.agent,
              database: await reopenTestDatabase(base),
            }),
          );
        }
        const [a, b] = apps as [TestApp, TestApp];
        const ana = await a.signUp();
        const phone = push.subscribe();
        expect((await ana.request('POST', PUSH_PATHS.subscriptions, phone.json)).statusCode).toBe(201);
        for (let i = 0; i < 50; i++) {
          const task = (await ana.request('POST', '/api/tasks', { title: `Reminder ${i}` })).json<Task>();
          const at = new Date(Date.parse('2026-05-05T09:01:00Z') + i * 1000).toISOString();
          const added = await (i % 2 ? a : b).app.inject({
            method: 'POST',
            url: `/api/tasks/${task.id}/reminders`,
            headers: ana.headers,
            payload: { at },
          });
          expect(added.statusCode, added.body).toBe(201);
        }
        expect(smtp.messages).toHaveLength(0);
        clock.set('2026-05-05T09:02:00Z');
        // Both pollers run every 100 ms; both instances are also asked to run what is due, at once.
        await Promise.all([
          a.ctx.jobs.runDue(),
          b.ctx.jobs.runDue(),
          a.ctx.jobs.runDue(),
          b.ctx.jobs.runDue(),
        ]);
        await smtp.waitFor(50, 20_000);
        await expect.poll(() => push.received.length, { timeout: 20_000 }).toBe(50);
        // Long enough for either poller to send anything twice.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const subjects = smtp.messages.map((mail) => mail.subject).sort();
        expect(subjects).toHaveLength(50);
        expect(new Set(subjects).size).toBe(50);
        const pushed = push.received.map((received) => JSON.parse(received.payload).title as string);
        expect(pushed).toHaveLength(50);
        expect(new Set(pushed).size).toBe(50);
        expect(push.received.every((received) => received.endpoint === phone.endpoint)).toBe(true);
        expect(push.rejected).toEqual([]);
        const notifications = await a.ctx.db.kysely
          .selectFrom('notifications')
          .select('id')
          .where('user_id', '=', ana.user.id)
          .where('kind', '=', 'reminder')
          .execute();
        expect(notifications).toHaveLength(50);
        const states = await a.ctx.db.kysely
          .selectFrom('jobs')
          .select(['kind', 'state', 'attempts'])
          .where('kind', 'in', ['remind', 'deliver'])
          .where('created_at', '>=', '2026-05-05T00:00:00.000Z')
          .execute();
        // One remind job per reminder; one deliver job per reminder and channel (e-mail, push).
        expect(states.filter((job) => job.kind === 'remind')).toHaveLength(50);
        expect(states.filter((job) => job.kind === 'deliver')).toHaveLength(100);
        expect(states).toHaveLength(150);
        expect(states.every((job) => job.state === 'done' && job.attempts === 1)).toBe(true);
      } finally {
        for (const app of apps) await app.close();
        smtp.messages.length = 0;
        push.received.length = 0;
      }
    },
    60_000,
  );
});
