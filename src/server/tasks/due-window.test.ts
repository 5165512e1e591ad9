import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Project } from '../../common/projects';
import type { Task } from '../../common/tasks';
import { expectStatus } from '../testing/answers';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';

/** Issue 23: GET /api/tasks?dueFrom=&dueTo=, what Today, Upcoming and the calendar ask for. */
describe.each(testDialects)('the due window of the task lists on %s', (dialect) => {
  let t: TestApp;
  let ana: TestUser;
  let ben: TestUser;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    ana = await t.signUp();
    ben = await t.signUp();
  });
  afterEach(async () => {
    await t.close();
  });

  const ok = <T>(user: TestUser, method: string, url: string, body?: unknown, status = 200) =>
    expectStatus<T>(user.request(method, url, body), status);
  const task = (user: TestUser, title: string, fields: Record<string, unknown> = {}) =>
    ok<Task>(user, 'POST', '/api/tasks', { title, ...fields }, 201);
  const titles = async (user: TestUser, query: string) =>
    (await ok<Task[]>(user, 'GET', `/api/tasks?${query}`)).map((x) => x.title).sort();
  const setZone = (user: TestUser, timeZone: string) => ok(user, 'PATCH', '/api/auth/me', { timeZone });

  it('keeps the tasks due from dueFrom to dueTo, both days included', async () => {
    await task(ana, 'before', { dueDate: '2026-11-30' });
    await task(ana, 'first', { dueDate: '2026-12-01' });
    await task(ana, 'middle', { dueDate: '2026-12-07' });
    await task(ana, 'last', { dueDate: '2026-12-14' });
    await task(ana, 'after', { dueDate: '2026-12-15' });
    await task(ana, 'undated');
    expect(await titles(ana, 'dueFrom=2026-12-01&dueTo=2026-12-14')).toEqual(['first', 'last', 'middle']);
    expect(await titles(ana, 'dueFrom=2026-12-07&dueTo=2026-12-07')).toEqual(['middle']);
    // One bound alone: everything due up to dueTo (Today's overdue and today), or from dueFrom on.
    expect(await titles(ana, 'dueTo=2026-12-01')).toEqual(['before', 'first']);
    expect(await titles(ana, 'dueFrom=2026-12-14')).toEqual(['after', 'last']);
    // Empty is no bound, as with the other filters.
    expect(await titles(ana, 'dueFrom=&dueTo=')).toHaveLength(6);
  });

  it('refuses a date that is not one, or a window that ends before it starts, naming the field', async () => {
    for (const [query, message] of [
      ['dueFrom=2026-02-30', 'dueFrom must be a real date written YYYY-MM-DD'],
      ['dueTo=tomorrow', 'dueTo must be a real date written YYYY-MM-DD'],
      ['dueTo=2026-12-01T10:00', 'dueTo must be a real date written YYYY-MM-DD'],
      ['dueFrom=2026-12-02&dueTo=2026-12-01', 'dueFrom must not be after dueTo'],
      ['projectId=all&assignee=me&dueFrom=2026-12-02&dueTo=2026-12-01', 'dueFrom must not be after dueTo'],
    ]) {
      const response = await ana.request('GET', `/api/tasks?${query}`);
      expect([response.statusCode, response.json()], query).toEqual([400, { message }]);
    }
    const archived = await ana.request('GET', '/api/tasks/archived?dueFrom=2026-13-01');
    expect(archived.json()).toEqual({ message: 'dueFrom must be a real date written YYYY-MM-DD' });
  });

  it('with projectId=all&assignee=me spans the Inbox and what is assigned to me, and combines with the filters', async () => {
    const site = await ok<Project>(ana, 'POST', '/api/projects', { name: 'Website' }, 201);
    await ok(
      ana,
      'POST',
      `/api/projects/${site.id}/members`,
      { user: ben.user.username, role: 'editor' },
      201,
    );
    await task(ben, 'ben inbox today', { dueDate: '2026-12-01' });
    await task(ben, 'ben inbox next week', { dueDate: '2026-12-08' });
    const mine = await task(ana, 'assigned to ben', { dueDate: '2026-12-01', projectId: site.id });
    await ok(ana, 'PATCH', `/api/tasks/${mine.id}`, { assigneeIds: [ben.user.id] });
    await task(ana, 'not assigned', { dueDate: '2026-12-01', projectId: site.id });
    await task(ana, 'ana inbox', { dueDate: '2026-12-01' });

    const today = 'projectId=all&assignee=me&dueTo=2026-12-01';
    expect(await titles(ben, today)).toEqual(['assigned to ben', 'ben inbox today']);
    expect(await titles(ana, today)).toEqual(['ana inbox']);
    expect(await titles(ben, 'projectId=all&assignee=me&dueFrom=2026-12-02&dueTo=2026-12-15')).toEqual([
      'ben inbox next week',
    ]);
    // The other filters narrow it further.
    expect(await titles(ben, `${today}&q=inbox`)).toEqual(['ben inbox today']);
    // assignee=me alone is still what is assigned to me ('Assigned to me').
    expect(await titles(ben, 'assignee=me&dueTo=2026-12-01')).toEqual(['assigned to ben']);
    // And one project's window.
    expect(await titles(ana, `projectId=${site.id}&dueFrom=2026-12-01&dueTo=2026-12-31`)).toEqual([
      'assigned to ben',
      'not assigned',
    ]);
  });

  it('with projectId=all&assignee=me_or_unassigned adds the unassigned tasks of the projects I edit or own', async () => {
    const cleo = await t.signUp();
    const dan = await t.signUp();
    const site = await ok<Project>(ana, 'POST', '/api/projects', { name: 'Website' }, 201);
    for (const [member, role] of [
      [ben, 'editor'],
      [cleo, 'commenter'],
      [dan, 'admin'],
    ] as const) {
      await ok(ana, 'POST', `/api/projects/${site.id}/members`, { user: member.user.username, role }, 201);
    }
    const viewer = await t.signUp();
    await ok(
      ana,
      'POST',
      `/api/projects/${site.id}/members`,
      { user: viewer.user.username, role: 'viewer' },
      201,
    );
    await task(ana, 'unassigned tomorrow', { dueDate: '2026-12-02', projectId: site.id });
    await task(ana, 'unassigned undated', { projectId: site.id });
    const forCleo = await task(ana, 'assigned to cleo', { dueDate: '2026-12-02', projectId: site.id });
    await ok(ana, 'PATCH', `/api/tasks/${forCleo.id}`, { assigneeIds: [cleo.user.id] });
    await task(ana, 'ana inbox', { dueDate: '2026-12-02' });
    await task(ben, 'ben inbox', { dueDate: '2026-12-02' });

    const upcoming = (assignee: string) =>
      `projectId=all&assignee=${assignee}&dueFrom=2026-12-01&dueTo=2026-12-14`;
    // The owner sees the project's unassigned work coming, with her Inbox; not what is someone else's.
    expect(await titles(ana, upcoming('me_or_unassigned'))).toEqual(['ana inbox', 'unassigned tomorrow']);
    // 'Only tasks assigned to me': as before, the Inbox and what is assigned to her.
    expect(await titles(ana, upcoming('me'))).toEqual(['ana inbox']);
    // An editor and an admin too; a commenter and a viewer only what is theirs.
    expect(await titles(ben, upcoming('me_or_unassigned'))).toEqual(['ben inbox', 'unassigned tomorrow']);
    expect(await titles(dan, upcoming('me_or_unassigned'))).toEqual(['unassigned tomorrow']);
    expect(await titles(cleo, upcoming('me_or_unassigned'))).toEqual(['assigned to cleo']);
    expect(await titles(viewer, upcoming('me_or_unassigned'))).toEqual([]);
    // Without a window: undated unassigned work too; and the other filters narrow it.
    expect(await titles(ana, 'projectId=all&assignee=me_or_unassigned')).toEqual([
      'ana inbox',
      'unassigned tomorrow',
      'unassigned undated',
    ]);
    expect(await titles(ana, 'projectId=all&assignee=me_or_unassigned&q=undated')).toEqual([
      'unassigned undated',
    ]);
    // Assigning it to someone else takes it off the owner's list.
    const [unassigned] = await ok<Task[]>(ana, 'GET', `/api/tasks?projectId=${site.id}&q=tomorrow`);
    await ok(ana, 'PATCH', `/api/tasks/${unassigned!.id}`, { assigneeIds: [ben.user.id] });
    expect(await titles(ana, upcoming('me_or_unassigned'))).toEqual(['ana inbox']);
    expect(await titles(ben, upcoming('me_or_unassigned'))).toEqual(['ben inbox', 'unassigned tomorrow']);
  });

  it('refuses an assignee that is neither me nor me_or_unassigned, naming both', async () => {
    for (const path of ['/api/tasks?projectId=all&assignee=you', '/api/tasks/archived?assignee=ME']) {
      const response = await ana.request('GET', path);
      expect([response.statusCode, response.json()], path).toEqual([
        400,
        { message: 'assignee must be one of me, me_or_unassigned' },
      ]);
    }
  });

  it("reads a timed task's day in the caller's time zone", async () => {
    await setZone(ana, 'America/New_York');
    // 23:30 in New York on 1 December is 05:30 on 2 December in Paris.
    await task(ana, 'late call', { dueDate: '2026-12-01', dueTime: '23:30' });
    await task(ana, 'all day', { dueDate: '2026-12-01' });
    const day = (date: string) => `projectId=all&assignee=me&dueFrom=${date}&dueTo=${date}`;
    expect(await titles(ana, day('2026-12-01'))).toEqual(['all day', 'late call']);
    await setZone(ana, 'Europe/Paris');
    expect(await titles(ana, day('2026-12-01'))).toEqual(['all day']);
    expect(await titles(ana, day('2026-12-02'))).toEqual(['late call']);
    // Across the date line: 23:30 in New York is already the 2nd's evening in Kiritimati (UTC+14).
    await setZone(ana, 'Pacific/Kiritimati');
    expect(await titles(ana, day('2026-12-02'))).toEqual(['late call']);
  });
});
