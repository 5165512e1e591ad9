import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '../../common/tasks';
import { nowIso } from '../db/values';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { createTestClock } from '../testing/clock';
import { testDialects } from '../testing/database';
import { foldForSearch } from './search';

describe('search folding', () => {
  it('folds case and accents, so cafe finds Café', () => {
    expect(foldForSearch('Café CRÈME Ångström naïve')).toBe('cafe creme angstrom naive');
  });
});

/** The server's local date, `days` from today. */
function localDate(days = 0): string {
  const now = new Date();
  const date = new Date(now.getFullYear(), now.getMonth(), now.getDate() + days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

describe.each(testDialects)('task search and filters on %s', (dialect) => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    alice = await t.signUp();
    bob = await t.signUp();
  });
  afterEach(async () => {
    await t.close();
  });

  const create = async (user: TestUser, body: Record<string, unknown>): Promise<Task> => {
    const response = await user.request('POST', '/api/tasks', body);
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const titles = async (user: TestUser, url: string) => {
    const response = await user.request('GET', url);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as Task[]).map((task) => task.title);
  };

  it('matches every word in title, description, notes or a checklist item, case and accents aside', async () => {
    await create(alice, { title: 'Pay rent', description: 'Landlord wants it by the 1st' });
    const cafe = await create(alice, { title: 'Meet at the Café' });
    const notes = await create(alice, { title: 'Plan trip' });
    await alice.request('PATCH', `/api/tasks/${notes.id}`, { notes: 'Book the Zürich hotel' });
    const steps = await create(alice, { title: 'Groceries' });
    await alice.request('POST', `/api/tasks/${steps.id}/checklist`, { title: 'Crème fraîche' });
    await create(bob, { title: 'Bob pays rent too' });

    expect(await titles(alice, '/api/tasks?q=rent')).toEqual(['Pay rent']);
    expect(await titles(alice, '/api/tasks?q=CAFE')).toEqual(['Meet at the Café']);
    expect(await titles(alice, '/api/tasks?q=zurich%20hotel')).toEqual(['Plan trip']);
    expect(await titles(alice, '/api/tasks?q=creme')).toEqual(['Groceries']);
    expect(await titles(alice, '/api/tasks?q=landlord%20rent')).toEqual(['Pay rent']);
    expect(await titles(alice, '/api/tasks?q=landlord%20cafe')).toEqual([]);
    // LIKE's own wildcards are plain characters in a query.
    expect(await titles(alice, '/api/tasks?q=%25')).toEqual([]);
    expect(await titles(alice, '/api/tasks?q=_')).toEqual([]);

    // A renamed task is found by its new title at once (the filtered answer is never cached).
    await alice.request('PATCH', `/api/tasks/${cafe.id}`, { title: 'Meet at the bakery' });
    expect(await titles(alice, '/api/tasks?q=cafe')).toEqual([]);
    expect(await titles(alice, '/api/tasks?q=bakery')).toEqual(['Meet at the bakery']);
  });

  it('treats an empty or blank q as no filter, with the full ordered list', async () => {
    for (const title of ['Third', 'Second', 'First']) await create(alice, { title });
    const full = await titles(alice, '/api/tasks');
    expect(full).toEqual(['First', 'Second', 'Third']);
    expect(await titles(alice, '/api/tasks?q=')).toEqual(full);
    expect(await titles(alice, '/api/tasks?q=%20%20')).toEqual(full);
  });

  it("filters by due date from the server's local today, for a person who has set no zone", async () => {
    const today = localDate();
    await create(alice, { title: 'Overdue', dueDate: localDate(-1) });
    await create(alice, { title: 'Today', dueDate: today });
    await create(alice, { title: 'In six days', dueDate: localDate(6) });
    await create(alice, { title: 'In seven days', dueDate: localDate(7) });
    await create(alice, { title: 'Someday' });
    const sorted = async (url: string) => (await titles(alice, url)).sort();
    expect(await sorted('/api/tasks?due=overdue')).toEqual(['Overdue']);
    expect(await sorted('/api/tasks?due=today')).toEqual(['Today']);
    expect(await sorted('/api/tasks?due=week')).toEqual(['In six days', 'Today']);
    expect(await sorted('/api/tasks?due=none')).toEqual(['Someday']);
  });

  it('filters by files and by agent, and combines filters', async () => {
    const now = nowIso();
    const agent = await t.ctx.db.kysely
      .insertInto('agents')
      .values({ user_id: alice.user.id, title: 'Writer', prompt: 'Write.', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const withFile = await create(alice, { title: 'Report with file', contextId: agent.id });
    await create(alice, { title: 'Report plain' });
    await t.ctx.db.kysely
      .insertInto('files')
      .values({
        task_id: withFile.id,
        user_id: alice.user.id,
        original_name: 'a.txt',
        file_size: 1,
        content_type: 'text/plain',
        storage_key: 'k1',
        created_at: now,
      })
      .execute();
    expect(await titles(alice, '/api/tasks?hasFiles=true')).toEqual(['Report with file']);
    expect(await titles(alice, '/api/tasks?hasFiles=false')).toEqual(['Report plain']);
    expect(await titles(alice, `/api/tasks?agentId=${agent.id}`)).toEqual(['Report with file']);
    expect(await titles(alice, `/api/tasks?q=report&agentId=${agent.id}&hasFiles=true`)).toEqual([
      'Report with file',
    ]);
  });

  it('filters the archive the same way, newest first', async () => {
    for (const title of ['Old rent', 'New rent', 'Other']) {
      const task = await create(alice, { title });
      await alice.request('PATCH', `/api/tasks/${task.id}`, { archived: true });
    }
    expect(await titles(alice, '/api/tasks/archived?q=rent')).toEqual(['New rent', 'Old rent']);
    expect(await titles(alice, '/api/tasks?q=rent')).toEqual([]);
  });

  it('answers 400 naming the field for a bad filter', async () => {
    for (const [url, field] of [
      ['/api/tasks?due=tomorrow', 'due'],
      ['/api/tasks/archived?due=soon', 'due'],
      ['/api/tasks?hasFiles=yes', 'hasFiles'],
      ['/api/tasks?agentId=abc', 'agentId'],
      [`/api/tasks?q=${'x'.repeat(501)}`, 'q'],
    ]) {
      const response = await alice.request('GET', url!);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().message, url).toContain(field);
    }
  });
});

/** Issue 28: 'Due today' and Today list the same tasks: the due filters read today in the person's zone. */
describe.each(testDialects)("the due filters in the person's time zone on %s", (dialect) => {
  let t: TestApp;
  let ana: TestUser;
  let ben: TestUser;
  // 11:30 UTC on 2 March is 00:30 on 3 March in Auckland (UTC+13 in March).
  const clock = createTestClock('2026-03-02T11:30:00Z');

  beforeEach(async () => {
    clock.set('2026-03-02T11:30:00Z');
    t = await createTestApp(dialect, { clock });
    ana = await t.signUp();
    ben = await t.signUp();
  });
  afterEach(async () => {
    await t.close();
  });

  const ok = async <T>(user: TestUser, method: string, url: string, body?: unknown): Promise<T> => {
    const response = await user.request(method, url, body);
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json();
  };
  const titles = async (user: TestUser, query: string) =>
    (await ok<Task[]>(user, 'GET', `/api/tasks?${query}`)).map((task) => task.title).sort();
  const setZone = (user: TestUser, timeZone: string) => ok(user, 'PATCH', '/api/auth/me', { timeZone });

  it("reads today, overdue and this week in the person's zone, as Today and Upcoming do", async () => {
    await setZone(ana, 'UTC');
    // Set at noon UTC on the 2nd: 01:00 on the 3rd in Auckland.
    await ok(ana, 'POST', '/api/tasks', {
      title: 'call at noon UTC',
      dueDate: '2026-03-02',
      dueTime: '12:00',
    });
    await setZone(ana, 'Pacific/Auckland');
    for (const [title, dueDate] of [
      ['yesterday UTC', '2026-03-01'],
      ['today UTC', '2026-03-02'],
      ['today Auckland', '2026-03-03'],
      ['sixth day', '2026-03-09'],
      ['seventh day', '2026-03-10'],
    ]) {
      await ok(ana, 'POST', '/api/tasks', { title, dueDate });
    }
    await ok(ana, 'POST', '/api/tasks', { title: 'undated' });

    // Ana's today is 3 March: the 2nd is overdue for her.
    expect(await titles(ana, 'due=today')).toEqual(['call at noon UTC', 'today Auckland']);
    expect(await titles(ana, 'due=overdue')).toEqual(['today UTC', 'yesterday UTC']);
    expect(await titles(ana, 'due=week')).toEqual(['call at noon UTC', 'sixth day', 'today Auckland']);
    expect(await titles(ana, 'due=none')).toEqual(['undated']);
    // Today (everything due up to her today) is exactly 'Overdue' and 'Due today' together.
    const today = await titles(ana, 'projectId=all&assignee=me&dueTo=2026-03-03');
    expect(today).toEqual(
      [...(await titles(ana, 'due=overdue')), ...(await titles(ana, 'due=today'))].sort(),
    );
    // The saved-filter and MCP paths read the same query: a project's list and the archive too.
    expect(await titles(ana, `projectId=${ana.inboxId}&due=today`)).toEqual([
      'call at noon UTC',
      'today Auckland',
    ]);

    // Ben, in the server's zone (UTC), keeps the server's days: the 2nd is his today.
    await setZone(ben, 'UTC');
    for (const [title, dueDate] of [
      ['b yesterday', '2026-03-01'],
      ['b today', '2026-03-02'],
      ['b sixth day', '2026-03-08'],
      ['b seventh day', '2026-03-09'],
    ]) {
      await ok(ben, 'POST', '/api/tasks', { title, dueDate });
    }
    expect(await titles(ben, 'due=today')).toEqual(['b today']);
    expect(await titles(ben, 'due=overdue')).toEqual(['b yesterday']);
    expect(await titles(ben, 'due=week')).toEqual(['b sixth day', 'b today']);

    // Near midnight the other way: at 10:59 UTC it is still 2 March in Auckland (23:59).
    clock.set('2026-03-02T10:59:00Z');
    expect(await titles(ana, 'due=today')).toEqual(['today UTC']);
    expect(await titles(ana, 'due=overdue')).toEqual(['yesterday UTC']);
  });
});
