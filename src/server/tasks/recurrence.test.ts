import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../common/activity';
import { TIME_ZONE_MESSAGE } from '../../common/auth';
import type { ChecklistItem } from '../../common/checklist';
import { dueAt } from '../../common/due';
import { RECURRENCE_MESSAGES } from '../../common/recurrence';
import { TASK_MESSAGES, type Task } from '../../common/tasks';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { createTestClock, type TestClock } from '../testing/clock';
import { testDialects } from '../testing/database';

describe.each(testDialects)('time and recurring tasks on %s', (dialect) => {
  let t: TestApp;
  let clock: TestClock;
  let ana: TestUser;

  beforeAll(async () => {
    clock = createTestClock('2026-11-30T08:00:00Z');
    t = await createTestApp(dialect, { clock });
    ana = await t.signUp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function create(body: Record<string, unknown>, user = ana): Promise<Task> {
    const response = await user.request('POST', '/api/tasks', { title: 'Water the plants', ...body });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }
  const patch = (id: number, body: unknown, user = ana) => user.request('PATCH', `/api/tasks/${id}`, body);
  const complete = (id: number, body?: unknown, user = ana) =>
    user.request('POST', `/api/tasks/${id}/complete`, body);
  const setZone = async (timeZone: string, user = ana) => {
    const response = await user.request('PATCH', '/api/auth/me', { timeZone });
    expect(response.statusCode, response.body).toBe(200);
  };

  describe('the time zone', () => {
    it("is the server's default until set, then GET /api/auth/me returns it", async () => {
      const bea = await t.signUp();
      expect((await bea.request('GET', '/api/auth/me')).json().user.timeZone).toBe(
        t.ctx.config.defaultTimeZone,
      );
      const set = await bea.request('PATCH', '/api/auth/me', { timeZone: 'America/New_York' });
      expect(set.statusCode, set.body).toBe(200);
      expect(set.json().user.timeZone).toBe('America/New_York');
      expect((await bea.request('GET', '/api/auth/me')).json().user.timeZone).toBe('America/New_York');
    });

    it('is stored under its canonical IANA name, however it was spelled', async () => {
      const bea = await t.signUp();
      for (const [given, stored] of [
        ['europe/berlin', 'Europe/Berlin'],
        ['AMERICA/NEW_YORK', 'America/New_York'],
        ['utc', 'UTC'],
      ]) {
        const set = await bea.request('PATCH', '/api/auth/me', { timeZone: given });
        expect(set.statusCode, set.body).toBe(200);
        expect(set.json().user.timeZone, given).toBe(stored);
        expect((await bea.request('GET', '/api/auth/me')).json().user.timeZone, given).toBe(stored);
      }
    });

    it("keeps the IANA name the person chose, never ICU's old alias, in the account and its tasks (issue 28)", async () => {
      const bea = await t.signUp();
      for (const [given, stored] of [
        ['Asia/Kolkata', 'Asia/Kolkata'],
        ['Europe/Kyiv', 'Europe/Kyiv'],
        ['Asia/Ho_Chi_Minh', 'Asia/Ho_Chi_Minh'],
        ['America/Nuuk', 'America/Nuuk'],
        ['asia/kolkata', 'Asia/Kolkata'],
        // A browser reports ICU's names: they are read as the IANA zone they stand for.
        ['Asia/Calcutta', 'Asia/Kolkata'],
        ['Europe/Kiev', 'Europe/Kyiv'],
        // A link the person chose stays theirs: not the zone it links to.
        ['Europe/Amsterdam', 'Europe/Amsterdam'],
        ['US/Eastern', 'US/Eastern'],
      ]) {
        const set = await bea.request('PATCH', '/api/auth/me', { timeZone: given });
        expect(set.statusCode, set.body).toBe(200);
        expect(set.json().user.timeZone, given).toBe(stored);
        expect((await bea.request('GET', '/api/auth/me')).json().user.timeZone, given).toBe(stored);
        const task = await create({ dueDate: '2026-12-01', dueTime: '09:00' }, bea);
        expect(task.dueTimeZone, given).toBe(stored);
        expect((await bea.request('GET', `/api/tasks/${task.id}`)).json().dueTimeZone, given).toBe(stored);
      }
    });

    it('refuses a zone Intl does not know, naming timeZone', async () => {
      for (const timeZone of ['Mars/Olympus', '', 42, 'x'.repeat(200)]) {
        const response = await ana.request('PATCH', '/api/auth/me', { timeZone });
        expect(response.statusCode, String(timeZone)).toBe(400);
        expect(response.json().message).toContain('timeZone');
      }
      expect(
        (await ana.request('PATCH', '/api/auth/me', { timeZone: 'Nowhere/Land' })).json().message,
      ).toContain(TIME_ZONE_MESSAGE);
    });

    it('is 401 signed out', async () => {
      const response = await t.app.inject({
        method: 'PATCH',
        url: '/api/auth/me',
        payload: { timeZone: 'UTC' },
      });
      expect(response.statusCode).toBe(401);
    });
  });

  describe('dueTime', () => {
    it("is stored with the setter's zone, which it keeps when the setter moves", async () => {
      await setZone('Europe/Berlin');
      const task = await create({ dueDate: '2026-12-01', dueTime: '14:30' });
      expect(task).toMatchObject({
        dueTime: '14:30',
        dueTimeZone: 'Europe/Berlin',
        recurrence: null,
        recurrenceFrom: 'due',
      });
      expect(dueAt(task)?.toISOString()).toBe('2026-12-01T13:30:00.000Z');
      await setZone('America/New_York');
      expect((await ana.request('GET', `/api/tasks/${task.id}`)).json()).toMatchObject({
        dueTimeZone: 'Europe/Berlin',
      });
      // Setting the time again takes the setter's zone of now.
      const changed = await patch(task.id, { dueTime: '09:00' });
      expect(changed.json()).toMatchObject({ dueTime: '09:00', dueTimeZone: 'America/New_York' });
      await setZone('Europe/Berlin');
    });

    it('needs a dueDate, and a real HH:MM', async () => {
      const noDate = await ana.request('POST', '/api/tasks', { title: 'x', dueTime: '09:00' });
      expect(noDate.statusCode).toBe(400);
      expect(noDate.json().message).toBe(TASK_MESSAGES.dueTimeNeedsDate);
      const task = await create({});
      const late = await patch(task.id, { dueTime: '09:00' });
      expect(late.statusCode).toBe(400);
      expect(late.json().message).toContain('dueTime');
      for (const dueTime of ['24:00', '9:00', '09:60', 'noon', 930]) {
        const response = await patch(task.id, { dueDate: '2026-12-01', dueTime });
        expect(response.statusCode, String(dueTime)).toBe(400);
        expect(response.json().message).toContain('dueTime');
      }
    });

    it('goes when the dueDate goes, with the recurrence', async () => {
      const task = await create({ dueDate: '2026-12-01', dueTime: '08:15', recurrence: 'FREQ=DAILY' });
      const cleared = await patch(task.id, { dueDate: null });
      expect(cleared.statusCode, cleared.body).toBe(200);
      expect(cleared.json()).toMatchObject({
        dueDate: null,
        dueTime: null,
        dueTimeZone: null,
        recurrence: null,
      });
      const reset = await patch(task.id, { dueDate: '2026-12-02', dueTime: '' });
      expect(reset.json()).toMatchObject({ dueDate: '2026-12-02', dueTime: null });
    });
  });

  describe('recurrence', () => {
    it('is validated with rrule, written one way, and needs a dueDate', async () => {
      const task = await create({ dueDate: '2026-11-30', recurrence: 'RRULE:freq=weekly;byday=mo,we' });
      expect(task.recurrence).toBe('FREQ=WEEKLY;BYDAY=MO,WE');
      for (const [recurrence, message] of [
        ['every monday', RECURRENCE_MESSAGES.invalid],
        ['FREQ=MINUTELY', RECURRENCE_MESSAGES.frequency],
        ['FREQ=DAILY;COUNT=2', RECURRENCE_MESSAGES.count],
        ['FREQ=WEEKLY;BYDAY=XY', RECURRENCE_MESSAGES.invalid],
      ] as const) {
        const response = await patch(task.id, { recurrence });
        expect(response.statusCode, recurrence).toBe(400);
        expect(response.json().message).toContain(message);
      }
      const noDate = await ana.request('POST', '/api/tasks', { title: 'x', recurrence: 'FREQ=DAILY' });
      expect(noDate.statusCode).toBe(400);
      expect(noDate.json().message).toBe(TASK_MESSAGES.recurrenceNeedsDate);
      const from = await patch(task.id, { recurrenceFrom: 'later' });
      expect(from.statusCode).toBe(400);
      expect(from.json().message).toContain('recurrenceFrom');
    });

    it('completing moves a recurring task on to its next date: checklist unticked, activity says so', async () => {
      clock.set('2026-11-30T08:00:00Z');
      const task = await create({
        dueDate: '2026-11-30',
        dueTime: '09:00',
        recurrence: 'FREQ=WEEKLY;BYDAY=MO',
      });
      for (const title of ['Fill the can', 'Check the soil']) {
        const item = await ana.request('POST', `/api/tasks/${task.id}/checklist`, { title });
        expect(item.statusCode, item.body).toBe(201);
        const ticked = await ana.request('PATCH', `/api/checklist/${item.json().id}`, { done: true });
        expect(ticked.statusCode, ticked.body).toBe(200);
      }
      const response = await patch(task.id, { completed: true });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        dueDate: '2026-12-07',
        dueTime: '09:00',
        dueTimeZone: 'Europe/Berlin',
        completed: false,
        archived: false,
        archivedAt: null,
        checklist: { done: 0, total: 2 },
      });
      const items: ChecklistItem[] = (await ana.request('GET', `/api/tasks/${task.id}/checklist`)).json();
      expect(items.map((item) => item.done)).toEqual([false, false]);
      const activity: ActivityEntry[] = (await ana.request('GET', `/api/tasks/${task.id}/activity`)).json();
      expect(activity[0]).toMatchObject({
        kind: 'completed',
        data: { next: '2026-12-07', text: 'completed (next: Mon 7 Dec)' },
      });
      const active: Task[] = (await ana.request('GET', '/api/tasks')).json();
      expect(active.some((each) => each.id === task.id)).toBe(true);
    });

    it('POST /complete moves it on; {final: true} ends the series and archives it', async () => {
      const task = await create({ dueDate: '2026-11-30', recurrence: 'FREQ=DAILY' });
      const next = await complete(task.id);
      expect(next.statusCode, next.body).toBe(200);
      expect(next.json()).toMatchObject({ dueDate: '2026-12-01', archived: false });
      const empty = await complete(task.id, {});
      expect(empty.json()).toMatchObject({ dueDate: '2026-12-02', archived: false });
      const final = await complete(task.id, { final: true });
      expect(final.statusCode, final.body).toBe(200);
      expect(final.json()).toMatchObject({
        archived: true,
        completed: true,
        recurrence: null,
        dueDate: '2026-12-02',
      });
      const bad = await complete(task.id, { final: 'yes' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toContain('final');
    });

    it('POST /complete just completes a task that does not repeat', async () => {
      const task = await create({ dueDate: '2026-11-30' });
      const response = await complete(task.id);
      expect(response.json()).toMatchObject({ archived: true, completed: true });
      expect((await complete(999_999)).statusCode).toBe(404);
    });

    it("'due' skips dates already past; 'completion' counts from the completion day", async () => {
      clock.set('2026-12-16T10:00:00Z');
      const due = await create({ dueDate: '2026-11-30', recurrence: 'FREQ=WEEKLY;BYDAY=MO' });
      expect((await complete(due.id)).json().dueDate).toBe('2026-12-21');
      const fromCompletion = await create({
        dueDate: '2026-11-30',
        recurrence: 'FREQ=DAILY;INTERVAL=3',
        recurrenceFrom: 'completion',
      });
      expect(fromCompletion.recurrenceFrom).toBe('completion');
      expect((await complete(fromCompletion.id)).json().dueDate).toBe('2026-12-19');
    });

    it('the completion day is read in the zone of the due time', async () => {
      // 23:30 UTC on 16 Dec is already 17 Dec in Berlin.
      clock.set('2026-12-16T23:30:00Z');
      const task = await create({
        dueDate: '2026-12-10',
        dueTime: '09:00',
        recurrence: 'FREQ=DAILY',
      });
      expect((await complete(task.id)).json().dueDate).toBe('2026-12-18');
    });

    it('keeps 09:00 local across daylight-saving changes (Berlin, New York)', async () => {
      clock.set('2026-10-22T06:00:00Z');
      const berlin = await create({ dueDate: '2026-10-22', dueTime: '09:00', recurrence: 'FREQ=WEEKLY' });
      expect(dueAt(berlin)?.toISOString()).toBe('2026-10-22T07:00:00.000Z');
      const after = (await complete(berlin.id)).json() as Task;
      expect(after).toMatchObject({ dueDate: '2026-10-29', dueTime: '09:00', dueTimeZone: 'Europe/Berlin' });
      expect(dueAt(after)?.toISOString()).toBe('2026-10-29T08:00:00.000Z');

      await setZone('America/New_York');
      clock.set('2026-10-31T12:00:00Z');
      const ny = await create({ dueDate: '2026-10-31', dueTime: '09:00', recurrence: 'FREQ=DAILY' });
      expect(dueAt(ny)?.toISOString()).toBe('2026-10-31T13:00:00.000Z');
      const nyAfter = (await complete(ny.id)).json() as Task;
      expect(nyAfter).toMatchObject({
        dueDate: '2026-11-01',
        dueTime: '09:00',
        dueTimeZone: 'America/New_York',
      });
      expect(dueAt(nyAfter)?.toISOString()).toBe('2026-11-01T14:00:00.000Z');
      await setZone('Europe/Berlin');
    });

    it('every month on the 31st skips the months without one', async () => {
      clock.set('2027-01-31T10:00:00Z');
      const task = await create({ dueDate: '2027-01-31', recurrence: 'FREQ=MONTHLY;BYMONTHDAY=31' });
      expect((await complete(task.id)).json().dueDate).toBe('2027-03-31');
      const last = await create({ dueDate: '2027-01-31', recurrence: 'FREQ=MONTHLY;BYMONTHDAY=-1' });
      expect((await complete(last.id)).json().dueDate).toBe('2027-02-28');
    });

    it('weekly on several days (BYDAY)', async () => {
      clock.set('2026-11-30T10:00:00Z');
      const task = await create({ dueDate: '2026-11-30', recurrence: 'FREQ=WEEKLY;BYDAY=MO,WE,FR' });
      expect((await complete(task.id)).json().dueDate).toBe('2026-12-02');
      expect((await complete(task.id)).json().dueDate).toBe('2026-12-04');
      expect((await complete(task.id)).json().dueDate).toBe('2026-12-07');
    });

    it('a series past its UNTIL just completes', async () => {
      clock.set('2026-11-30T10:00:00Z');
      const task = await create({ dueDate: '2026-11-30', recurrence: 'FREQ=DAILY;UNTIL=20261130T235959Z' });
      expect((await complete(task.id)).json()).toMatchObject({ archived: true });
    });

    it('a viewer cannot complete; archiving by PATCH archived:true also rolls a series on', async () => {
      const bea = await t.signUp();
      const project = (await ana.request('POST', '/api/projects', { name: 'Home' })).json();
      await ana.request('POST', `/api/projects/${project.id}/members`, {
        user: bea.user.username,
        role: 'viewer',
      });
      clock.set('2026-11-30T10:00:00Z');
      const task = await create({ dueDate: '2026-11-30', recurrence: 'FREQ=DAILY', projectId: project.id });
      expect((await complete(task.id, undefined, bea)).statusCode).toBe(403);
      expect((await patch(task.id, { archived: true })).json()).toMatchObject({
        dueDate: '2026-12-01',
        archived: false,
      });
    });
  });
});
