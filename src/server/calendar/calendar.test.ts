import ICAL from 'ical.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CalendarFeedStatus } from '../../common/calendar';
import type { Task } from '../../common/tasks';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';

interface FeedEvent {
  uid: string;
  summary: string;
  description: string | null;
  start: string;
  isDate: boolean;
  url: string;
}

/** The feed read back by a calendar library, as a calendar app would. */
function events(ics: string): FeedEvent[] {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  return calendar.getAllSubcomponents('vevent').map((vevent) => {
    const event = new ICAL.Event(vevent);
    return {
      uid: event.uid,
      summary: event.summary,
      description: event.description ?? null,
      start: event.startDate.toString(),
      isDate: event.startDate.isDate,
      url: String(vevent.getFirstPropertyValue('url')),
    };
  });
}

describe.each(testDialects)('calendar feed on %s', (dialect) => {
  let t: TestApp;
  let alice: TestUser;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    alice = await t.signUp();
  });
  afterEach(async () => {
    await t.close();
  });

  const createFeed = async (user = alice): Promise<string> => {
    const response = await user.request('POST', '/api/calendar-feed');
    expect(response.statusCode, response.body).toBe(201);
    return response.json().url;
  };
  /** The feed as a calendar app fetches it: no session. */
  const fetchFeed = (url: string) => t.app.inject({ method: 'GET', url: new URL(url).pathname });
  const addTask = async (body: Record<string, unknown>): Promise<Task> =>
    (await alice.request('POST', '/api/tasks', body)).json();

  it("writes RELATED-TO;RELTYPE=PARENT with the parent's UID on a sub-task's event (issue 29)", async () => {
    const trip = await addTask({ title: 'Plan trip', dueDate: '2027-05-01' });
    const flights = await addTask({ title: 'Book flights', dueDate: '2027-04-01', parentId: trip.id });
    // A parent with no due date is not in the feed: its sub-task still names its UID.
    const packing = await addTask({ title: 'Packing' });
    const bag = await addTask({
      title: 'Buy a bag, a long name for folding: '.padEnd(90, 'x'),
      dueDate: '2027-04-02',
      parentId: packing.id,
    });
    const response = await fetchFeed(await createFeed());
    expect(response.statusCode).toBe(200);
    const calendar = new ICAL.Component(ICAL.parse(response.body));
    const parentOf = Object.fromEntries(
      calendar.getAllSubcomponents('vevent').map((vevent) => {
        const related = vevent.getFirstProperty('related-to');
        return [
          String(vevent.getFirstPropertyValue('uid')),
          related ? [related.getParameter('reltype'), String(related.getFirstValue())] : null,
        ];
      }),
    );
    expect(parentOf).toEqual({
      [`task-${trip.id}@localhost:3000`]: null,
      [`task-${flights.id}@localhost:3000`]: ['PARENT', `task-${trip.id}@localhost:3000`],
      [`task-${bag.id}@localhost:3000`]: ['PARENT', `task-${packing.id}@localhost:3000`],
    });
    expect(response.body).toContain(`\r\nRELATED-TO;RELTYPE=PARENT:task-${trip.id}@localhost:3000\r\n`);
  });

  it('serves one all-day event per active task with a due date, readable without signing in', async () => {
    const rent = await addTask({
      title: 'Pay rent, then; relax',
      description: 'Transfer to\nthe landlord',
      dueDate: '2027-03-01',
    });
    await addTask({ title: 'No date' });
    const done = await addTask({ title: 'Old one', dueDate: '2027-01-01' });
    await alice.request('PATCH', `/api/tasks/${done.id}`, { completed: true, archived: true });

    const url = await createFeed();
    const secret = /^http:\/\/localhost:3000\/api\/calendar\/([A-Za-z0-9_-]+)\.ics$/.exec(url)?.[1];
    expect(secret, url).toBeDefined();
    // base64url of at least 128 bits.
    expect(Buffer.from(secret!, 'base64url').length).toBeGreaterThanOrEqual(16);

    const response = await fetchFeed(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/calendar; charset=utf-8');
    // RFC 5545 3.1: every content line, the last one too, ends with CRLF.
    expect(response.body.slice(-15)).toBe('END:VCALENDAR\r\n');
    expect(response.body.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
    expect(events(response.body)).toEqual([
      {
        uid: `task-${rent.id}@localhost:3000`,
        summary: 'Pay rent, then; relax',
        description: 'Transfer to\nthe landlord',
        start: '2027-03-01',
        isDate: true,
        url: `http://localhost:3000/?task=${rent.id}`,
      },
    ]);

    // The same task keeps its UID when it changes.
    await alice.request('PATCH', `/api/tasks/${rent.id}`, { title: 'Pay rent', dueDate: '2027-03-02' });
    const [again] = events((await fetchFeed(url)).body);
    expect(again).toMatchObject({
      uid: `task-${rent.id}@localhost:3000`,
      summary: 'Pay rent',
      start: '2027-03-02',
    });

    const status = (await alice.request('GET', '/api/calendar-feed')).json() as CalendarFeedStatus;
    expect(status).toEqual({ enabled: true, createdAt: expect.any(String) });
    expect(JSON.stringify(status)).not.toContain(secret);
  });

  it('a task with a due time is a timed event in its zone; a recurring task is one event with its RRULE', async () => {
    await alice.request('PATCH', '/api/auth/me', { timeZone: 'Europe/Berlin' });
    const standup = await addTask({
      title: 'Stand-up',
      dueDate: '2026-10-22',
      dueTime: '09:00',
      recurrence: 'FREQ=WEEKLY;BYDAY=TH',
    });
    const plants = await addTask({
      title: 'Water plants',
      dueDate: '2027-01-31',
      recurrence: 'FREQ=MONTHLY;BYMONTHDAY=-1',
    });
    const call = await addTask({ title: 'Call', dueDate: '2027-03-01', dueTime: '14:30' });
    const body = (await fetchFeed(await createFeed())).body;
    expect(body).toContain('DTSTART;TZID=Europe/Berlin:20261022T090000');
    expect(body).toContain('RRULE:FREQ=WEEKLY;BYDAY=TH');
    const calendar = new ICAL.Component(ICAL.parse(body));
    const byUid = new Map(
      calendar
        .getAllSubcomponents('vevent')
        .map((vevent) => [String(vevent.getFirstPropertyValue('uid')), vevent]),
    );
    const event = (id: number) => new ICAL.Event(byUid.get(`task-${id}@localhost:3000`)!);
    const weekly = event(standup.id);
    expect(weekly.isRecurring()).toBe(true);
    expect(weekly.startDate.isDate).toBe(false);
    expect(weekly.startDate.toString()).toBe('2026-10-22T09:00:00');
    expect(
      String(
        byUid.get(`task-${standup.id}@localhost:3000`)!.getFirstProperty('dtstart')!.getParameter('tzid'),
      ),
    ).toBe('Europe/Berlin');
    // The next occurrences keep 09:00 local, after Berlin leaves summer time on 25 October.
    const next = weekly.iterator();
    expect([next.next()?.toString(), next.next()?.toString()]).toEqual([
      '2026-10-22T09:00:00',
      '2026-10-29T09:00:00',
    ]);
    const monthly = event(plants.id);
    expect(monthly.startDate.isDate).toBe(true);
    const months = monthly.iterator();
    expect([months.next()?.toString(), months.next()?.toString()]).toEqual(['2027-01-31', '2027-02-28']);
    expect(event(call.id).startDate.toString()).toBe('2027-03-01T14:30:00');
    expect(event(call.id).isRecurring()).toBe(false);
  });

  it('defines each zone its timed events name, once (RFC 5545 3.2.19: a TZID needs its VTIMEZONE)', async () => {
    await alice.request('PATCH', '/api/auth/me', { timeZone: 'Europe/Berlin' });
    const berlin = await addTask({ title: 'Berlin one', dueDate: '2027-01-15', dueTime: '09:00' });
    const reminder = await alice.request('POST', `/api/tasks/${berlin.id}/reminders`, {
      at: '2027-01-15T07:30:00Z',
    });
    expect(reminder.statusCode, reminder.body).toBe(201);
    await addTask({ title: 'Berlin two', dueDate: '2027-07-15', dueTime: '09:00', recurrence: 'FREQ=DAILY' });
    await alice.request('PATCH', '/api/auth/me', { timeZone: 'America/New_York' });
    await addTask({ title: 'New York', dueDate: '2027-01-15', dueTime: '09:00' });
    await addTask({ title: 'All day', dueDate: '2027-01-16' });
    const body = (await fetchFeed(await createFeed())).body;
    const calendar = new ICAL.Component(ICAL.parse(body));
    const zones = calendar.getAllSubcomponents('vtimezone');
    expect(zones.map((zone) => String(zone.getFirstPropertyValue('tzid'))).sort()).toEqual([
      'America/New_York',
      'Europe/Berlin',
    ]);
    // Every TZID an event names is defined.
    const used = new Set([...body.matchAll(/;TZID=([^:;]+)[:;]/g)].map((match) => match[1]));
    expect([...used].sort()).toEqual(['America/New_York', 'Europe/Berlin']);
    // A strict reader resolves the local times with those definitions: 09:00 in each zone.
    for (const zone of zones) ICAL.TimezoneService.register(zone);
    try {
      const instant = (title: string) => {
        const vevent = calendar
          .getAllSubcomponents('vevent')
          .find((event) => event.getFirstPropertyValue('summary') === title)!;
        return new ICAL.Event(vevent).startDate.toJSDate().toISOString();
      };
      expect(instant('Berlin one')).toBe('2027-01-15T08:00:00.000Z');
      expect(instant('Berlin two')).toBe('2027-07-15T07:00:00.000Z');
      expect(instant('New York')).toBe('2027-01-15T14:00:00.000Z');
      // A fixed alarm stays a UTC moment (RFC 5545 3.8.6.3), whatever the event's zone.
      expect(body).toContain('TRIGGER;VALUE=DATE-TIME:20270115T073000Z');
    } finally {
      ICAL.TimezoneService.reset();
    }
    expect(
      events(body)
        .map((event) => event.summary)
        .sort(),
    ).toEqual(['All day', 'Berlin one', 'Berlin two', 'New York']);
  });

  it("names each zone as the person chose it, not ICU's old alias (issue 28)", async () => {
    const zones = ['Asia/Kolkata', 'Europe/Kyiv', 'Asia/Ho_Chi_Minh', 'America/Nuuk'];
    for (const zone of zones) {
      await alice.request('PATCH', '/api/auth/me', { timeZone: zone });
      await addTask({ title: zone, dueDate: '2027-01-15', dueTime: '09:00' });
    }
    const body = (await fetchFeed(await createFeed())).body;
    const calendar = new ICAL.Component(ICAL.parse(body));
    const defined = calendar.getAllSubcomponents('vtimezone');
    expect(defined.map((zone) => String(zone.getFirstPropertyValue('tzid'))).sort()).toEqual(
      [...zones].sort(),
    );
    const used = new Set([...body.matchAll(/;TZID=([^:;]+)[:;]/g)].map((match) => match[1]));
    expect([...used].sort()).toEqual([...zones].sort());
    for (const zone of defined) ICAL.TimezoneService.register(zone);
    try {
      const instant = (title: string) => {
        const vevent = calendar
          .getAllSubcomponents('vevent')
          .find((event) => event.getFirstPropertyValue('summary') === title)!;
        return new ICAL.Event(vevent).startDate.toJSDate().toISOString();
      };
      // 09:00 in each: Kolkata is UTC+5:30, Kyiv +2 in winter, Ho Chi Minh City +7, Nuuk -2.
      expect(instant('Asia/Kolkata')).toBe('2027-01-15T03:30:00.000Z');
      expect(instant('Europe/Kyiv')).toBe('2027-01-15T07:00:00.000Z');
      expect(instant('Asia/Ho_Chi_Minh')).toBe('2027-01-15T02:00:00.000Z');
      expect(instant('America/Nuuk')).toBe('2027-01-15T11:00:00.000Z');
    } finally {
      ICAL.TimezoneService.reset();
    }
  });

  it('answers 404 for a wrong secret, and a new address revokes the old one', async () => {
    await addTask({ title: 'Dentist', dueDate: '2027-05-05' });
    const first = await createFeed();
    expect((await fetchFeed(first)).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/calendar/wrong-secret-0000000000.ics' })).statusCode,
    ).toBe(404);
    expect(
      (await t.app.inject({ method: 'GET', url: first.replace(/\.ics$/, '.txt').slice(21) })).statusCode,
    ).toBe(404);

    const second = await createFeed();
    expect(second).not.toBe(first);
    const revoked = await fetchFeed(first);
    expect(revoked.statusCode).toBe(404);
    expect(revoked.json()).toEqual({ message: expect.any(String) });
    expect(events((await fetchFeed(second)).body)).toHaveLength(1);

    expect((await alice.request('DELETE', '/api/calendar-feed')).statusCode).toBe(204);
    expect((await fetchFeed(second)).statusCode).toBe(404);
    expect((await alice.request('GET', '/api/calendar-feed')).json()).toEqual({
      enabled: false,
      createdAt: null,
    });
  });

  it("shows only the owner's tasks and needs a signed-in user to manage", async () => {
    const bob = await t.signUp();
    await addTask({ title: 'Alice only', dueDate: '2027-05-05' });
    await bob.request('POST', '/api/tasks', { title: 'Bob only', dueDate: '2027-05-06' });
    const feed = events((await fetchFeed(await createFeed(bob))).body);
    expect(feed.map((event) => event.summary)).toEqual(['Bob only']);
    expect((await t.app.inject({ method: 'POST', url: '/api/calendar-feed' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/calendar-feed' })).statusCode).toBe(401);
  });

  it('shows the tasks assigned to the person in a shared project, and drops them when they are removed', async () => {
    const bob = await t.signUp();
    const project = (await alice.request('POST', '/api/projects', { name: 'Launch' })).json() as {
      id: number;
    };
    const shared = await alice.request('POST', `/api/projects/${project.id}/members`, {
      user: bob.user.username,
      role: 'viewer',
    });
    expect(shared.statusCode, shared.body).toBe(201);
    const assigned = await addTask({
      title: 'Assigned to Bob',
      dueDate: '2027-06-01',
      projectId: project.id,
    });
    await addTask({ title: 'Not assigned', dueDate: '2027-06-02', projectId: project.id });
    const patched = await alice.request('PATCH', `/api/tasks/${assigned.id}`, { assigneeIds: [bob.user.id] });
    expect(patched.statusCode, patched.body).toBe(200);
    await bob.request('POST', '/api/tasks', { title: 'Bob inbox', dueDate: '2027-06-03' });

    const feed = await createFeed(bob);
    const summaries = async () => events((await fetchFeed(feed)).body).map((event) => event.summary);
    expect((await summaries()).sort()).toEqual(['Assigned to Bob', 'Bob inbox']);
    // The project's owner sees only their Inbox and what is assigned to them.
    expect(events((await fetchFeed(await createFeed())).body)).toEqual([]);

    const removed = await alice.request('DELETE', `/api/projects/${project.id}/members/${bob.user.id}`);
    expect(removed.statusCode).toBe(204);
    expect(await summaries()).toEqual(['Bob inbox']);
  });

  it("turns a task's reminders into VALARMs: before the due time, or at a moment", async () => {
    const task = await addTask({ title: 'Call the plumber', dueDate: '2027-04-01', dueTime: '14:30' });
    expect(task.dueTime).toBe('14:30');
    for (const body of [{ relativeMinutes: 30 }, { at: '2027-04-01T08:00:00Z' }]) {
      const added = await alice.request('POST', `/api/tasks/${task.id}/reminders`, body);
      expect(added.statusCode, added.body).toBe(201);
    }
    await addTask({ title: 'No reminders', dueDate: '2027-04-02' });
    const ics = (await fetchFeed(await createFeed())).body;
    const calendar = new ICAL.Component(ICAL.parse(ics));
    const byTitle = (title: string) =>
      calendar
        .getAllSubcomponents('vevent')
        .find((event) => event.getFirstPropertyValue('summary') === title);
    const [withAlarms, without] = [byTitle('Call the plumber'), byTitle('No reminders')];
    const triggers = withAlarms!.getAllSubcomponents('valarm').map((alarm) => ({
      action: alarm.getFirstPropertyValue('action'),
      trigger: String(alarm.getFirstPropertyValue('trigger')),
      description: alarm.getFirstPropertyValue('description'),
    }));
    expect(triggers).toEqual([
      { action: 'DISPLAY', trigger: '-PT30M', description: 'Call the plumber' },
      { action: 'DISPLAY', trigger: '2027-04-01T08:00:00Z', description: 'Call the plumber' },
    ]);
    expect(without!.getAllSubcomponents('valarm')).toEqual([]);
  });
});
