import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '../../common/tasks';
import { nowIso } from '../db/values';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { localDate } from './repository';
import { foldForSearch } from './search';

describe('search folding', () => {
  it('folds case and accents, so cafe finds Café', () => {
    expect(foldForSearch('Café CRÈME Ångström naïve')).toBe('cafe creme angstrom naive');
  });
  it('counts days from the local date', () => {
    expect(localDate(0, new Date(2027, 0, 31, 23, 30))).toBe('2027-01-31');
    expect(localDate(6, new Date(2027, 1, 25, 0, 5))).toBe('2027-03-03');
  });
});

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

  it('filters by due date from the server local today', async () => {
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
