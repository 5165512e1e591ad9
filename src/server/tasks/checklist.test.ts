import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECKLIST_LIMITS, CHECKLIST_MESSAGES, type ChecklistItem } from '../../common/checklist';
import type { Task } from '../../common/tasks';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';

describe.each(testDialects)('checklists on %s', (dialect) => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let task: Task;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    alice = await t.signUp();
    bob = await t.signUp();
    task = (await alice.request('POST', '/api/tasks', { title: 'Move house' })).json();
  });
  afterEach(async () => {
    await t.close();
  });

  const add = async (title: string, taskId = task.id): Promise<ChecklistItem> => {
    const response = await alice.request('POST', `/api/tasks/${taskId}/checklist`, { title });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const items = async (user = alice, taskId = task.id) =>
    (await user.request('GET', `/api/tasks/${taskId}/checklist`)).json() as ChecklistItem[];
  const counts = async () => ((await alice.request('GET', '/api/tasks')).json() as Task[])[0]!.checklist;

  it('adds items to the bottom, ticks, renames and deletes them, and the task counts them', async () => {
    const boxes = await add('  Buy boxes ');
    expect(boxes).toEqual({
      id: expect.any(Number),
      taskId: task.id,
      title: 'Buy boxes',
      done: false,
      position: 0,
    });
    const van = await add('Book a van');
    const keys = await add('Hand over keys');
    expect((await items()).map((item) => item.title)).toEqual(['Buy boxes', 'Book a van', 'Hand over keys']);
    expect(await counts()).toEqual({ done: 0, total: 3 });

    const ticked = await alice.request('PATCH', `/api/checklist/${van.id}`, { done: true });
    expect(ticked.json()).toMatchObject({ id: van.id, done: true, title: 'Book a van' });
    const renamed = await alice.request('PATCH', `/api/checklist/${boxes.id}`, { title: 'Buy 20 boxes' });
    expect(renamed.json()).toMatchObject({ title: 'Buy 20 boxes', done: false });
    expect(await counts()).toEqual({ done: 1, total: 3 });
    expect((await alice.request('GET', `/api/tasks/${task.id}`)).json().checklist).toEqual({
      done: 1,
      total: 3,
    });

    expect((await alice.request('DELETE', `/api/checklist/${keys.id}`)).statusCode).toBe(204);
    expect(await counts()).toEqual({ done: 1, total: 2 });
    expect((await alice.request('DELETE', `/api/checklist/${keys.id}`)).statusCode).toBe(404);
  });

  it('reorders the items; those left out keep their order after the listed ones', async () => {
    const [a, b, c] = [await add('A'), await add('B'), await add('C')];
    const response = await alice.request('POST', `/api/tasks/${task.id}/checklist/reorder`, {
      itemIds: [c!.id],
    });
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as ChecklistItem[]).map((item) => [item.title, item.position])).toEqual([
      ['C', 0],
      ['A', 1],
      ['B', 2],
    ]);
    expect((await items()).map((item) => item.title)).toEqual(['C', 'A', 'B']);
    // A new item still goes to the bottom.
    await add('D');
    expect((await items()).map((item) => item.title)).toEqual(['C', 'A', 'B', 'D']);

    const repeated = await alice.request('POST', `/api/tasks/${task.id}/checklist/reorder`, {
      itemIds: [a!.id, a!.id],
    });
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json().message).toBe(CHECKLIST_MESSAGES.duplicateInReorder(a!.id));
    const other = (await alice.request('POST', '/api/tasks', { title: 'Other' })).json() as Task;
    const foreignItem = await add('Elsewhere', other.id);
    const wrongTask = await alice.request('POST', `/api/tasks/${task.id}/checklist/reorder`, {
      itemIds: [b!.id, foreignItem.id],
    });
    expect(wrongTask.statusCode).toBe(404);
    expect((await items()).map((item) => item.title)).toEqual(['C', 'A', 'B', 'D']);
  });

  it('refuses a blank or missing title, and unknown fields, naming them', async () => {
    for (const body of [{ title: '   ' }, {}, { title: 42 }]) {
      const response = await alice.request('POST', `/api/tasks/${task.id}/checklist`, body);
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toContain('title');
    }
    const item = await add('Fine');
    const blank = await alice.request('PATCH', `/api/checklist/${item.id}`, { title: '' });
    expect(blank.statusCode).toBe(400);
    const wrongDone = await alice.request('PATCH', `/api/checklist/${item.id}`, { done: 'yes' });
    expect(wrongDone.statusCode).toBe(400);
    expect(wrongDone.json().message).toContain('done');
    const unknown = await alice.request('PATCH', `/api/checklist/${item.id}`, { color: 'red' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toContain('color');
    expect((await items()).map((i) => i.title)).toEqual(['Fine']);
  });

  it("answers 404 for another person's task or item on every route and changes nothing", async () => {
    const item = await add('Mine');
    const attempts: [string, string, unknown?][] = [
      ['GET', `/api/tasks/${task.id}/checklist`],
      ['POST', `/api/tasks/${task.id}/checklist`, { title: 'Sneaky' }],
      ['POST', `/api/tasks/${task.id}/checklist/reorder`, { itemIds: [item.id] }],
      ['PATCH', `/api/checklist/${item.id}`, { done: true }],
      ['DELETE', `/api/checklist/${item.id}`],
      ['GET', '/api/tasks/999999/checklist'],
      ['PATCH', '/api/checklist/abc', { done: true }],
    ];
    for (const [method, url, body] of attempts) {
      expect((await bob.request(method, url, body)).statusCode, `${method} ${url}`).toBe(404);
    }
    expect(await items()).toEqual([item]);
  });

  it('holds at most the limit of items per task', async () => {
    const now = new Date().toISOString();
    await t.ctx.db.kysely
      .insertInto('checklist_items')
      .values(
        Array.from({ length: CHECKLIST_LIMITS.itemsMax }, (_, position) => ({
          task_id: task.id,
          user_id: alice.user.id,
          title: `Step ${position}`,
          done: false,
          position,
          search_text: `step ${position}`,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    const response = await alice.request('POST', `/api/tasks/${task.id}/checklist`, { title: 'One more' });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(CHECKLIST_MESSAGES.tooMany);
  });

  it('goes with its task when the task is deleted', async () => {
    await add('Gone soon');
    expect((await alice.request('DELETE', `/api/tasks/${task.id}`)).statusCode).toBe(204);
    const left = await t.ctx.db.kysely.selectFrom('checklist_items').select('id').execute();
    expect(left).toEqual([]);
  });
});
