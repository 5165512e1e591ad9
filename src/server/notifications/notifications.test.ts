import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateInZone, instantInZone } from '../../common/due';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  type Notification,
  type NotificationSettings,
  REMINDER_LIMITS,
  REMINDER_MESSAGES,
  type Reminder,
} from '../../common/notifications';
import type { Task } from '../../common/tasks';
import { JOB_DEFAULTS } from '../jobs/queue';
import type { LiveMessage } from '../live/bus';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { createTestClock, type TestClock } from '../testing/clock';
import { testDialects } from '../testing/database';
import { type ReceivedMail, startSmtpServer } from '../testing/smtp';

type Smtp = Awaited<ReturnType<typeof startSmtpServer>>;

describe('local time', () => {
  it('finds 08:00 in a zone on each side of a daylight-saving change', () => {
    // Europe/Berlin springs forward on 29 March 2026, America/New_York on 8 March.
    expect(instantInZone('2026-03-28', '08:00', 'Europe/Berlin')?.toISOString()).toBe(
      '2026-03-28T07:00:00.000Z',
    );
    expect(instantInZone('2026-03-29', '08:00', 'Europe/Berlin')?.toISOString()).toBe(
      '2026-03-29T06:00:00.000Z',
    );
    expect(instantInZone('2026-10-25', '08:00', 'Europe/Berlin')?.toISOString()).toBe(
      '2026-10-25T07:00:00.000Z',
    );
    expect(instantInZone('2026-03-07', '08:00', 'America/New_York')?.toISOString()).toBe(
      '2026-03-07T13:00:00.000Z',
    );
    expect(instantInZone('2026-03-08', '08:00', 'America/New_York')?.toISOString()).toBe(
      '2026-03-08T12:00:00.000Z',
    );
    expect(instantInZone('2026-11-01', '08:00', 'America/New_York')?.toISOString()).toBe(
      '2026-11-01T13:00:00.000Z',
    );
    // 02:30 does not exist on the spring-forward night: it reads forward, 03:30 summer time.
    expect(instantInZone('2026-03-29', '02:30', 'Europe/Berlin')?.toISOString()).toBe(
      '2026-03-29T01:30:00.000Z',
    );
    expect(dateInZone(new Date('2026-03-08T04:59:00Z'), 'America/New_York')).toBe('2026-03-07');
    expect(dateInZone(new Date('2026-03-08T05:00:00Z'), 'America/New_York')).toBe('2026-03-08');
  });
});

describe.each(testDialects)('reminders and notifications on %s', (dialect) => {
  let smtp: Smtp;
  let clock: TestClock;
  let t: TestApp;
  let owner: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let projectId: number;

  const mailsTo = (user: TestUser, subject?: string | RegExp): ReceivedMail[] =>
    smtp.messages.filter(
      (mail) =>
        mail.to.includes(user.user.email!) &&
        (subject === undefined ||
          (typeof subject === 'string' ? mail.subject.includes(subject) : subject.test(mail.subject))),
    );
  const notificationsOf = async (user: TestUser, query = ''): Promise<Notification[]> => {
    const response = await user.request('GET', `/api/notifications${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const newTask = async (user: TestUser, title: string, extra: Record<string, unknown> = {}) => {
    const response = await user.request('POST', '/api/tasks', { title, projectId, ...extra });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<Task>();
  };
  const remind = async (user: TestUser, taskId: number, body: unknown, status = 201) => {
    const response = await user.request('POST', `/api/tasks/${taskId}/reminders`, body);
    expect(response.statusCode, response.body).toBe(status);
    return response.json<Reminder>();
  };
  /** Sets a due date-time directly (the time helper's API writes these columns). */
  const setDue = (taskId: number, date: string, time: string | null, zone: string | null) =>
    t.ctx.db.kysely
      .updateTable('tasks')
      .set({ due_date: date, due_time: time, due_time_zone: zone })
      .where('id', '=', taskId)
      .execute();
  const jobsLike = (prefix: string) =>
    // In the order they were enqueued: PostgreSQL returns rows in no order without one.
    t.ctx.db.kysely.selectFrom('jobs').selectAll().where('key', 'like', `${prefix}%`).orderBy('id').execute();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    clock = createTestClock('2026-03-02T09:00:00Z');
    // The poller waits a minute between passes: the tests run what is due with runDue().
    t = await createTestApp(dialect, { clock, env: { SMTP_URL: smtp.url, JOBS_POLL_INTERVAL_MS: '60000' } });
    [owner, editor, viewer] = await Promise.all([t.signUp(), t.signUp(), t.signUp()]);
    projectId = (await owner.request('POST', '/api/projects', { name: 'Home' })).json<{ id: number }>().id;
    for (const [person, role] of [
      [editor, 'editor'],
      [viewer, 'viewer'],
    ] as const) {
      const shared = await owner.request('POST', `/api/projects/${projectId}/members`, {
        user: person.user.username,
        role,
      });
      expect(shared.statusCode, shared.body).toBe(201);
    }
    await t.ctx.jobs.runDue();
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('tells the person added to a project (shared), in the app and by e-mail with its link', async () => {
    const [shared] = await notificationsOf(editor);
    expect(shared).toMatchObject({
      kind: 'shared',
      projectId,
      taskId: null,
      actorName: owner.user.firstName,
      title: `${owner.user.firstName} shared "Home" with you`,
      readAt: null,
    });
    const [mail] = mailsTo(editor, 'shared "Home"');
    expect(mail?.subject).toBe(`${owner.user.firstName} shared "Home" with you`);
    expect(mail?.text).toContain(`http://localhost:3000/?project=${projectId}`);
    expect(await notificationsOf(owner)).toEqual([]);
  });

  it('notification settings: defaults, saved whole, and 400 naming the field', async () => {
    const person = await t.signUp();
    const got = await person.request('GET', '/api/notification-settings');
    expect(got.json()).toEqual(DEFAULT_NOTIFICATION_SETTINGS);
    expect(DEFAULT_NOTIFICATION_SETTINGS).toEqual({
      email: {
        reminder: true,
        assigned: true,
        mentioned: true,
        commented: false,
        shared: true,
        digest: false,
      },
      push: { reminder: true, assigned: true, mentioned: true, commented: true, shared: true },
    });
    const changed: NotificationSettings = {
      email: { ...DEFAULT_NOTIFICATION_SETTINGS.email, commented: true },
      push: { ...DEFAULT_NOTIFICATION_SETTINGS.push, shared: false },
    };
    const put = await person.request('PUT', '/api/notification-settings', changed);
    expect(put.statusCode, put.body).toBe(200);
    expect((await person.request('GET', '/api/notification-settings')).json()).toEqual(changed);

    const bad = await person.request('PUT', '/api/notification-settings', {
      ...changed,
      email: { ...changed.email, digest: 'yes' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ message: string }>().message).toContain('email.digest');
    const missing = await person.request('PUT', '/api/notification-settings', {
      email: changed.email,
      push: { reminder: true },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json<{ message: string }>().message).toContain('push.');
    const extra = await person.request('PUT', '/api/notification-settings', {
      ...changed,
      push: { ...changed.push, digest: true },
    });
    expect(extra.statusCode).toBe(400);
    expect(extra.json<{ message: string }>().message).toContain('push.digest');
    expect((await person.request('GET', '/api/notification-settings')).json()).toEqual(changed);
  });

  it('reminders: at or relativeMinutes, listed, at most 10, deleted; 400 names the field', async () => {
    const task = await newTask(owner, 'Water the plants');
    const at = await remind(owner, task.id, { at: '2026-03-02T11:00:00+01:00' });
    expect(at).toMatchObject({ at: '2026-03-02T10:00:00.000Z', relativeMinutes: null, firedAt: null });
    const noTime = await owner.request('POST', `/api/tasks/${task.id}/reminders`, { relativeMinutes: 30 });
    expect([noTime.statusCode, noTime.json()]).toEqual([400, { message: REMINDER_MESSAGES.needsDueTime }]);
    expect(REMINDER_MESSAGES.needsDueTime).toContain('dueTime');
    for (const body of [
      {},
      { at: 'tomorrow' },
      { relativeMinutes: -5 },
      { at: '2026-03-02T10:00:00Z', relativeMinutes: 5 },
    ]) {
      const refused = await owner.request('POST', `/api/tasks/${task.id}/reminders`, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
    }
    // A moment without Z or an offset would be read in the server's zone: refused, as the message says.
    for (const at of ['2026-12-09T10:00', '2026-12-09T10:00:00', '2026-12-09T10:00:00.000']) {
      const zoneless = await owner.request('POST', `/api/tasks/${task.id}/reminders`, { at });
      expect([zoneless.statusCode, zoneless.json()], at).toEqual([
        400,
        { message: REMINDER_MESSAGES.atInvalid },
      ]);
    }
    for (const at of ['2026-12-09T10:00Z', '2026-12-09T10:00:00.5-05:30']) {
      const zoned = await remind(owner, task.id, { at });
      await owner.request('DELETE', `/api/reminders/${zoned.id}`);
    }
    await setDue(task.id, '2026-03-10', '14:30', 'Europe/Berlin');
    const relative = await remind(editor, task.id, { relativeMinutes: 30 });
    expect(relative).toMatchObject({ at: null, relativeMinutes: 30 });
    for (let i = 0; i < 8; i++) await remind(owner, task.id, { at: `2026-04-0${i + 1}T09:00:00Z` });
    const eleventh = await owner.request('POST', `/api/tasks/${task.id}/reminders`, { relativeMinutes: 5 });
    expect([eleventh.statusCode, eleventh.json()]).toEqual([400, { message: REMINDER_MESSAGES.tooMany }]);
    expect(REMINDER_MESSAGES.tooMany).toMatch(/^reminders: /);
    const refused = await viewer.request('POST', `/api/tasks/${task.id}/reminders`, { relativeMinutes: 5 });
    expect(refused.statusCode).toBe(403);
    expect((await viewer.request('GET', `/api/tasks/${task.id}/reminders`)).statusCode).toBe(403);
    const list = (await editor.request('GET', `/api/tasks/${task.id}/reminders`)).json<Reminder[]>();
    expect(list).toHaveLength(10);
    expect(list[0]).toEqual(at);
    expect((await viewer.request('DELETE', `/api/reminders/${at.id}`)).statusCode).toBe(403);
    expect((await editor.request('DELETE', `/api/reminders/${at.id}`)).statusCode).toBe(204);
    expect((await editor.request('DELETE', `/api/reminders/${at.id}`)).statusCode).toBe(404);
    expect((await owner.request('GET', `/api/tasks/${task.id}/reminders`)).json()).toHaveLength(9);
    // The deleted one's job, due at 10:00, finds it gone and sends nothing.
    clock.set('2026-03-02T10:00:00Z');
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Water the plants')).toEqual([]);
    await owner.request('DELETE', `/api/tasks/${task.id}`);
  });

  it('assigned, then a reminder at its time: once, by e-mail and in the app, to the assignee only', async () => {
    clock.set('2026-03-03T09:00:00Z');
    const task = await newTask(owner, 'Pay rent');
    const assigned = await owner.request('PATCH', `/api/tasks/${task.id}`, { assigneeIds: [editor.user.id] });
    expect(assigned.statusCode, assigned.body).toBe(200);
    await t.ctx.jobs.runDue();
    const [told] = await notificationsOf(editor);
    expect(told).toMatchObject({
      kind: 'assigned',
      taskId: task.id,
      projectId,
      actorName: owner.user.firstName,
      title: `${owner.user.firstName} assigned you "Pay rent"`,
    });
    expect(mailsTo(editor, 'assigned you "Pay rent"')).toHaveLength(1);

    await remind(owner, task.id, { at: '2026-03-03T09:10:00Z' });
    await t.ctx.jobs.runDue();
    expect(mailsTo(editor, 'Reminder: Pay rent')).toHaveLength(0);
    clock.advance(10 * 60_000);
    await t.ctx.jobs.runDue();
    const [mail] = mailsTo(editor, 'Reminder: Pay rent');
    expect(mail?.subject).toBe('Tasklane: Reminder: Pay rent');
    expect(mail?.text).toContain(`http://localhost:3000/?task=${task.id}`);
    expect(mailsTo(owner, 'Reminder: Pay rent')).toHaveLength(0);
    const [reminder] = (await owner.request('GET', `/api/tasks/${task.id}/reminders`)).json<Reminder[]>();
    expect(reminder?.firedAt).toBe('2026-03-03T09:10:00.000Z');
    expect((await notificationsOf(editor, '?unread=1&limit=1'))[0]).toMatchObject({
      kind: 'reminder',
      taskId: task.id,
      actorName: null,
      title: 'Reminder: Pay rent',
    });
    clock.advance(60 * 60_000);
    await t.ctx.jobs.runDue();
    await t.ctx.jobs.runDue();
    expect(mailsTo(editor, 'Reminder: Pay rent')).toHaveLength(1);
    expect(await jobsLike(`reminder:${reminder!.id}:`)).toEqual([
      expect.objectContaining({
        key: `reminder:${reminder!.id}:2026-03-03T09:10:00.000Z:${editor.user.id}:email`,
        state: 'done',
      }),
    ]);
  });

  it('relative reminders follow the due date-time, and each next occurrence; without assignees the creator', async () => {
    clock.set('2026-03-04T09:00:00Z');
    const task = await newTask(owner, 'Stand-up');
    await setDue(task.id, '2026-03-05', '10:00', 'Europe/Berlin');
    await remind(owner, task.id, { relativeMinutes: 30 });
    clock.set('2026-03-05T08:29:00Z');
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Reminder: Stand-up')).toHaveLength(0);
    clock.set('2026-03-05T08:30:00Z');
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Reminder: Stand-up')).toHaveLength(1);
    expect(mailsTo(owner, 'Reminder: Stand-up')[0]?.text).toContain('Due 2026-03-05 10:00 (Europe/Berlin)');
    // A recurring task, completed, rolls on to its next occurrence: its reminder follows.
    await t.ctx.db.kysely
      .updateTable('tasks')
      .set({ recurrence: 'FREQ=DAILY' })
      .where('id', '=', task.id)
      .execute();
    const rolled = await owner.request('POST', `/api/tasks/${task.id}/complete`, {});
    expect(rolled.statusCode, rolled.body).toBe(200);
    expect(rolled.json<Task>()).toMatchObject({ dueDate: '2026-03-06', dueTime: '10:00' });
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Reminder: Stand-up')).toHaveLength(1);
    clock.set('2026-03-06T08:30:00Z');
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Reminder: Stand-up')).toHaveLength(2);
    const keys = (await jobsLike('remind:')).map((job) => job.key).filter((key) => key.endsWith('Z'));
    expect(keys).toEqual(
      expect.arrayContaining([
        expect.stringContaining(':2026-03-05T09:00:00.000Z'),
        expect.stringContaining(':2026-03-06T09:00:00.000Z'),
      ]),
    );
  });

  it('comments: mentioned to the @named, commented to assignees and creator, nobody about themself', async () => {
    clock.set('2026-03-07T09:00:00Z');
    const task = await newTask(owner, 'Plan the trip');
    await owner.request('PATCH', `/api/tasks/${task.id}`, { assigneeIds: [editor.user.id] });
    const before = {
      owner: (await notificationsOf(owner)).length,
      editor: (await notificationsOf(editor)).length,
      viewer: (await notificationsOf(viewer)).length,
    };
    const first = await owner.request('POST', `/api/tasks/${task.id}/comments`, {
      body: `@${editor.user.username} can you book it? @${viewer.user.username} fyi`,
    });
    expect(first.statusCode, first.body).toBe(201);
    const editors = await notificationsOf(editor);
    expect(editors).toHaveLength(before.editor + 1);
    expect(editors[0]).toMatchObject({ kind: 'mentioned', taskId: task.id, actorName: owner.user.firstName });
    expect((await notificationsOf(viewer))[0]).toMatchObject({ kind: 'mentioned' });
    expect(await notificationsOf(owner)).toHaveLength(before.owner);

    const reply = await editor.request('POST', `/api/tasks/${task.id}/comments`, { body: 'Booked.' });
    expect(reply.statusCode, reply.body).toBe(201);
    const owners = await notificationsOf(owner);
    expect(owners).toHaveLength(before.owner + 1);
    expect(owners[0]).toMatchObject({
      kind: 'commented',
      actorName: editor.user.firstName,
      title: `${editor.user.firstName} commented on "Plan the trip"`,
      body: 'Booked.',
    });
    expect(await notificationsOf(editor)).toHaveLength(before.editor + 1);
    expect(await notificationsOf(viewer)).toHaveLength(before.viewer + 1);
    await t.ctx.jobs.runDue();
    // E-mail for mentions by default; not for comments.
    expect(mailsTo(editor, 'mentioned you on "Plan the trip"')).toHaveLength(1);
    expect(mailsTo(owner, 'commented on "Plan the trip"')).toHaveLength(0);
  });

  it('marks read by ids or all; the unread count arrives live', async () => {
    const heard: LiveMessage[] = [];
    const stop = await t.ctx.live.subscribe(editor.user.id, {
      onEvent: () => {},
      onInterrupted: () => {},
      onMessage: (message) => heard.push(message),
    });
    try {
      const unread = await notificationsOf(editor, '?unread=1');
      expect(unread.length).toBeGreaterThan(1);
      const one = await editor.request('POST', '/api/notifications/read', { ids: [unread[0]!.id] });
      expect(one.json()).toEqual({ unread: unread.length - 1 });
      // Someone else's ids change nothing of theirs.
      await owner.request('POST', '/api/notifications/read', { ids: unread.map((n) => n.id) });
      expect(await notificationsOf(editor, '?unread=1')).toHaveLength(unread.length - 1);
      const all = await editor.request('POST', '/api/notifications/read', { all: true });
      expect(all.json()).toEqual({ unread: 0 });
      expect((await notificationsOf(editor))[0]?.readAt).toBe('2026-03-07T09:00:00.000Z');
      const bad = await editor.request('POST', '/api/notifications/read', { ids: [1], all: true });
      expect(bad.statusCode).toBe(400);
      const task = await newTask(owner, 'Live one');
      await owner.request('PATCH', `/api/tasks/${task.id}`, { assigneeIds: [editor.user.id] });
      await expect.poll(() => heard.at(-1)).toEqual({ type: 'notifications', unread: 1 });
      expect(heard).toContainEqual({ type: 'notifications', unread: unread.length - 1 });
      expect(heard).toContainEqual({ type: 'notifications', unread: 0 });
    } finally {
      stop();
    }
  });

  it('retries a refused e-mail with backoff, at most 5 tries', async () => {
    clock.set('2026-03-09T09:00:00Z');
    const task = await newTask(owner, 'Flaky mail');
    await t.ctx.jobs.runDue();
    smtp.refuseNext(2);
    await remind(owner, task.id, { at: '2026-03-09T09:00:00Z' });
    await t.ctx.jobs.runDue();
    const key = (await jobsLike('reminder:')).find(
      (job) => job.key.includes(`:${owner.user.id}:email`) && job.state === 'pending',
    )?.key;
    const job = async () => (await jobsLike(key!))[0]!;
    expect(await job()).toMatchObject({ attempts: 1, state: 'pending' });
    expect(mailsTo(owner, 'Reminder: Flaky mail')).toHaveLength(0);
    await t.ctx.jobs.runDue();
    expect((await job()).attempts).toBe(1);
    clock.advance(JOB_DEFAULTS.retryBaseMs);
    await t.ctx.jobs.runDue();
    expect(await job()).toMatchObject({ attempts: 2, state: 'pending' });
    clock.advance(JOB_DEFAULTS.retryBaseMs);
    await t.ctx.jobs.runDue();
    expect((await job()).attempts).toBe(2);
    clock.advance(JOB_DEFAULTS.retryBaseMs);
    await t.ctx.jobs.runDue();
    expect(await job()).toMatchObject({ attempts: 3, state: 'done' });
    expect(mailsTo(owner, 'Reminder: Flaky mail')).toHaveLength(1);

    const hopeless = await newTask(owner, 'Never mailed');
    smtp.refuseNext(100);
    await remind(owner, hopeless.id, { at: '2026-03-09T09:02:00Z' });
    for (let i = 0; i < 12; i++) {
      await t.ctx.jobs.runDue();
      clock.advance(10 * 60_000);
    }
    smtp.refuseNext(0);
    const failed = (await jobsLike('reminder:')).find((row) => row.state === 'failed');
    expect(failed).toMatchObject({ attempts: JOB_DEFAULTS.maxAttempts, state: 'failed' });
    expect(failed?.last_error).toContain('Try again later');
    expect(smtp.refused()).toBe(2 + JOB_DEFAULTS.maxAttempts);
    expect(mailsTo(owner, 'Never mailed')).toHaveLength(0);
  });

  it('a job claimed by an instance that died is delivered once, by another, after the lease', async () => {
    clock.set('2026-03-12T09:00:00Z');
    const task = await newTask(owner, 'Lease lapse');
    await remind(owner, task.id, { at: '2026-03-12T09:05:00Z' });
    await t.ctx.jobs.runDue();
    clock.set('2026-03-12T09:05:00Z');
    // 'Instance A' claims the reminder and dies before finishing it.
    const claimed = await t.ctx.jobs.claimOnly();
    expect(claimed.map((job) => job.kind)).toEqual(['remind']);
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Lease lapse')).toHaveLength(0);
    clock.advance(JOB_DEFAULTS.leaseMs - 1000);
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Lease lapse')).toHaveLength(0);
    clock.advance(1000);
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Lease lapse')).toHaveLength(1);
    // A delivery claimed and abandoned in turn is sent once after its lease too.
    const second = await newTask(owner, 'Delivery lapse');
    await remind(owner, second.id, { at: '2026-03-12T09:20:00Z' });
    clock.set('2026-03-12T09:20:00Z');
    smtp.refuseNext(1);
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Delivery lapse')).toHaveLength(0);
    clock.advance(JOB_DEFAULTS.retryBaseMs);
    const abandoned = await t.ctx.jobs.claimOnly();
    expect(abandoned.map((job) => job.kind)).toEqual(['deliver']);
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Delivery lapse')).toHaveLength(0);
    clock.advance(JOB_DEFAULTS.leaseMs);
    await t.ctx.jobs.runDue();
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Delivery lapse')).toHaveLength(1);
    expect(mailsTo(owner, 'Lease lapse')).toHaveLength(1);
  });

  it('the daily digest: 08:00 in the person time zone across a DST change, once a day, nothing when none', async () => {
    clock.set('2026-03-27T06:00:00Z');
    const berliner = await t.signUp();
    const idle = await t.signUp();
    for (const [person, zone] of [
      [berliner, 'Europe/Berlin'],
      [idle, 'America/New_York'],
    ] as const) {
      await t.ctx.db.kysely
        .updateTable('users')
        .set({ time_zone: zone })
        .where('id', '=', person.user.id)
        .execute();
      const on = await person.request('PUT', '/api/notification-settings', {
        ...DEFAULT_NOTIFICATION_SETTINGS,
        email: { ...DEFAULT_NOTIFICATION_SETTINGS.email, digest: true },
      });
      expect(on.statusCode).toBe(200);
    }
    const inbox = (title: string, dueDate: string) =>
      berliner.request('POST', '/api/tasks', { title, dueDate }).then((r) => r.json<Task>());
    await inbox('Overdue thing', '2026-03-20');
    await inbox('Sunday thing', '2026-03-29');
    await inbox('Later thing', '2026-04-15');
    const digests = () => mailsTo(berliner, 'Your tasks for');

    // 28 March, still CET (UTC+1): 08:00 is 07:00Z.
    clock.set('2026-03-28T06:59:00Z');
    await t.ctx.jobs.runDue();
    expect(digests()).toHaveLength(0);
    clock.set('2026-03-28T07:00:00Z');
    await t.ctx.jobs.runDue();
    expect(digests().map((mail) => mail.subject)).toEqual(['Tasklane: Your tasks for 2026-03-28: 1 overdue']);
    clock.set('2026-03-28T20:00:00Z');
    await t.ctx.jobs.runDue();
    expect(digests()).toHaveLength(1);
    // 29 March, CEST (UTC+2) from 02:00: 08:00 is 06:00Z.
    clock.set('2026-03-29T05:59:00Z');
    await t.ctx.jobs.runDue();
    expect(digests()).toHaveLength(1);
    clock.set('2026-03-29T06:00:00Z');
    await t.ctx.jobs.runDue();
    await t.ctx.jobs.runDue();
    expect(digests().map((mail) => mail.subject)).toEqual([
      'Tasklane: Your tasks for 2026-03-28: 1 overdue',
      'Tasklane: Your tasks for 2026-03-29: 1 due today, 1 overdue',
    ]);
    const latest = digests()[1]!;
    expect(latest.text).toContain('Sunday thing');
    expect(latest.text).toContain('Overdue thing');
    expect(latest.text).not.toContain('Later thing');
    expect(latest.text).toMatch(/http:\/\/localhost:3000\/\?task=\d+/);
    const [record] = await notificationsOf(berliner);
    expect(record).toMatchObject({
      kind: 'due_today',
      taskId: null,
      title: 'Your tasks for 2026-03-29: 1 due today, 1 overdue',
    });
    expect(mailsTo(idle)).toEqual([]);
    expect(await notificationsOf(idle)).toEqual([]);
    // One job per person and local day.
    expect(
      (await jobsLike(`digest:${berliner.user.id}:`))
        .map((job) => job.key)
        .filter((key) => !key.endsWith(':email')),
    ).toEqual([`digest:${berliner.user.id}:2026-03-28`, `digest:${berliner.user.id}:2026-03-29`]);
  });

  it('removes finished jobs after 30 days; a reminder that fired does not fire again when its task changes', async () => {
    clock.set('2026-05-01T09:00:00Z');
    await t.ctx.jobs.runDue();
    const db = t.ctx.db.kysely;
    const old = await db
      .selectFrom('jobs')
      .select('key')
      .where('finished_at', '<', '2026-04-01T09:00:00.000Z')
      .execute();
    expect(old).toEqual([]);
    expect(await jobsLike('remind:')).not.toContainEqual(
      expect.objectContaining({ key: expect.stringContaining('2026-03-03T09:10') }),
    );
    const rent = await db
      .selectFrom('tasks')
      .select('id')
      .where('title', '=', 'Pay rent')
      .executeTakeFirstOrThrow();
    const sent = smtp.messages.length;
    const renamed = await owner.request('PATCH', `/api/tasks/${rent.id}`, { title: 'Pay the rent' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    await t.ctx.jobs.runDue();
    expect(smtp.messages).toHaveLength(sent);
    expect(await jobsLike('remind:')).not.toContainEqual(
      expect.objectContaining({ key: expect.stringContaining('2026-03-03T09:10') }),
    );
  });

  it('snoozing again and again: a fired fixed reminder gives way to a new one at the limit, a pending one never', async () => {
    clock.set('2026-07-01T09:00:00Z');
    const task = await newTask(owner, 'Snoozed report');
    // Ten 'Snooze 1 hour's that have fired (the worker posts {at} an hour on, each time).
    const fired: Reminder[] = [];
    for (let i = 0; i < REMINDER_LIMITS.perTask; i++) {
      fired.push(
        await remind(owner, task.id, { at: new Date(clock.now().getTime() + 3_600_000).toISOString() }),
      );
      clock.advance(3_600_000);
      await t.ctx.jobs.runDue();
    }
    expect(mailsTo(owner, 'Reminder: Snoozed report')).toHaveLength(REMINDER_LIMITS.perTask);
    const list = async () =>
      (await owner.request('GET', `/api/tasks/${task.id}/reminders`)).json<Reminder[]>();
    expect((await list()).every((reminder) => reminder.firedAt !== null)).toBe(true);
    // The eleventh snooze is taken: the oldest fired one makes room; the list stays at the limit.
    const eleventh = await remind(owner, task.id, {
      at: new Date(clock.now().getTime() + 3_600_000).toISOString(),
    });
    expect((await list()).map((reminder) => reminder.id)).toEqual([
      ...fired.slice(1).map((reminder) => reminder.id),
      eleventh.id,
    ]);
    clock.advance(3_600_000);
    await t.ctx.jobs.runDue();
    expect(mailsTo(owner, 'Reminder: Snoozed report')).toHaveLength(REMINDER_LIMITS.perTask + 1);
    // Ten still to fire: none gives way.
    const pending = await newTask(owner, 'Ten to come');
    for (let i = 1; i <= REMINDER_LIMITS.perTask; i++) {
      await remind(owner, pending.id, { at: new Date(clock.now().getTime() + i * 3_600_000).toISOString() });
    }
    const refused = await owner.request('POST', `/api/tasks/${pending.id}/reminders`, {
      at: new Date(clock.now().getTime() + 20 * 3_600_000).toISOString(),
    });
    expect([refused.statusCode, refused.json()]).toEqual([400, { message: REMINDER_MESSAGES.tooMany }]);
  });

  it("a reminder's e-mail names the zone as the person chose it (issue 28)", async () => {
    clock.set('2026-03-10T00:00:00Z');
    const kolkata = await t.signUp();
    expect((await kolkata.request('PATCH', '/api/auth/me', { timeZone: 'Asia/Kolkata' })).statusCode).toBe(
      200,
    );
    const created = await kolkata.request('POST', '/api/tasks', {
      title: 'Call the bank',
      dueDate: '2026-03-11',
      dueTime: '10:00',
    });
    expect(created.statusCode, created.body).toBe(201);
    await remind(kolkata, created.json<Task>().id, { relativeMinutes: 30 });
    // 10:00 in Kolkata (UTC+5:30) is 04:30 UTC: the reminder fires at 04:00.
    clock.set('2026-03-11T04:00:00Z');
    await t.ctx.jobs.runDue();
    await t.ctx.jobs.runDue();
    expect(mailsTo(kolkata, 'Reminder: Call the bank')[0]?.text).toContain(
      'Due 2026-03-11 10:00 (Asia/Kolkata)',
    );
  });

  it("removing a task's due time or date removes its relative reminders, not its fixed ones", async () => {
    clock.set('2026-07-02T09:00:00Z');
    for (const removal of [{ dueTime: null }, { dueDate: null }]) {
      const task = await newTask(owner, 'Dentist', { dueDate: '2026-07-10', dueTime: '14:00' });
      const fixed = await remind(owner, task.id, { at: '2026-07-09T18:00:00Z' });
      await remind(owner, task.id, { relativeMinutes: 30 });
      await remind(owner, task.id, { relativeMinutes: 60 });
      const patched = await owner.request('PATCH', `/api/tasks/${task.id}`, removal);
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json<Task>().dueTime).toBeNull();
      const list = (await owner.request('GET', `/api/tasks/${task.id}/reminders`)).json<Reminder[]>();
      expect(list, JSON.stringify(removal)).toEqual([fixed]);
      // Ten fixed ones fit again: the relative ones no longer count.
      for (let i = 0; i < REMINDER_LIMITS.perTask - 1; i++) {
        await remind(owner, task.id, { at: `2026-07-0${i + 1}T20:00:00Z` });
      }
    }
  });
});
