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
});
