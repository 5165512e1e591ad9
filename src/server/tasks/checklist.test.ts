import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ActivityEntry, taskActivityPath } from '../../common/activity';
import {
  CHECKLIST_LIMITS,
  CHECKLIST_MESSAGES,
  type ChecklistItem,
  checklistPath,
} from '../../common/checklist';
import { PROJECT_MESSAGES } from '../../common/projects';
import type { Task } from '../../common/tasks';
import { ACCESS_MESSAGES } from '../access';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import {
  CALLERS,
  type Caller,
  expectedAnswers,
  listenToTeam,
  shareProject,
  signUpTeam,
  type Team,
} from '../testing/team';

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

describe.each(testDialects)('checklists in a shared project on %s', (dialect) => {
  let t: TestApp;
  let team: Team;
  let projectId: number;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    team = await signUpTeam(t);
    projectId = await shareProject(team);
  });
  afterAll(async () => {
    await t.close();
  });

  /** A task of the shared project with two items, the second ticked. */
  async function taskWithItems(): Promise<{ task: Task; items: ChecklistItem[] }> {
    const created = await team.editor.request('POST', '/api/tasks', { title: 'Launch', projectId });
    expect(created.statusCode, created.body).toBe(201);
    const task = created.json() as Task;
    const items: ChecklistItem[] = [];
    for (const title of ['Write notes', 'Book room']) {
      const added = await team.editor.request('POST', `/api/tasks/${task.id}/checklist`, { title });
      items.push(added.json());
    }
    await team.editor.request('PATCH', `/api/checklist/${items[1]!.id}`, { done: true });
    return { task, items: (await team.owner.request('GET', `/api/tasks/${task.id}/checklist`)).json() };
  }
  const checklistActivity = async (taskId: number) =>
    ((await team.owner.request('GET', `/api/tasks/${taskId}/activity`)).json() as ActivityEntry[])
      .filter((entry) => entry.kind === 'checklist_changed')
      .map((entry) => entry.data);

  type Route = {
    name: string;
    call: (caller: TestUser, task: Task, items: ChecklistItem[]) => Promise<LightMyRequestResponse>;
    expected: Record<Caller, number>;
    /** The newest activity entry a successful call writes. */
    activity?: (items: ChecklistItem[]) => Record<string, unknown>;
  };
  const routes: Route[] = [
    {
      name: 'GET /api/tasks/:id/checklist',
      call: (caller, task) => caller.request('GET', `/api/tasks/${task.id}/checklist`),
      expected: expectedAnswers('viewer', 200),
    },
    {
      name: 'POST /api/tasks/:id/checklist',
      call: (caller, task) => caller.request('POST', `/api/tasks/${task.id}/checklist`, { title: 'Print' }),
      expected: expectedAnswers('editor', 201),
      activity: () => ({ action: 'added', title: 'Print' }),
    },
    {
      name: 'POST /api/tasks/:id/checklist/reorder',
      call: (caller, task, items) =>
        caller.request('POST', `/api/tasks/${task.id}/checklist/reorder`, { itemIds: [items[1]!.id] }),
      expected: expectedAnswers('editor', 200),
      activity: () => ({ action: 'reordered', title: 'Book room' }),
    },
    {
      name: 'PATCH /api/checklist/:id ticking',
      call: (caller, _task, items) =>
        caller.request('PATCH', `/api/checklist/${items[0]!.id}`, { done: true }),
      expected: expectedAnswers('commenter', 200),
      activity: () => ({ action: 'ticked', title: 'Write notes' }),
    },
    {
      name: 'PATCH /api/checklist/:id unticking',
      call: (caller, _task, items) =>
        caller.request('PATCH', `/api/checklist/${items[1]!.id}`, { done: false }),
      expected: expectedAnswers('commenter', 200),
      activity: () => ({ action: 'unticked', title: 'Book room' }),
    },
    {
      name: 'PATCH /api/checklist/:id renaming',
      call: (caller, _task, items) =>
        caller.request('PATCH', `/api/checklist/${items[0]!.id}`, { title: 'Write the notes' }),
      expected: expectedAnswers('editor', 200),
      activity: () => ({ action: 'renamed', title: 'Write the notes' }),
    },
    {
      name: 'PATCH /api/checklist/:id renaming and ticking',
      call: (caller, _task, items) =>
        caller.request('PATCH', `/api/checklist/${items[0]!.id}`, { title: 'Notes', done: true }),
      expected: expectedAnswers('editor', 200),
      activity: () => ({ action: 'ticked', title: 'Notes' }),
    },
    {
      name: 'DELETE /api/checklist/:id',
      call: (caller, _task, items) => caller.request('DELETE', `/api/checklist/${items[0]!.id}`),
      expected: expectedAnswers('editor', 204),
      activity: () => ({ action: 'deleted', title: 'Write notes' }),
    },
  ];

  it.each(routes)(
    '$name follows the role table; a non-member gets 404 and changes nothing',
    async (route) => {
      const got: Record<string, number> = {};
      for (const caller of CALLERS) {
        const { task, items } = await taskWithItems();
        const before = await checklistActivity(task.id);
        const response = await route.call(team[caller], task, items);
        got[caller] = response.statusCode;
        const after = await checklistActivity(task.id);
        if (response.statusCode >= 400) {
          const { message } = response.json() as { message: string };
          expect(response.json()).toEqual({ message });
          if (response.statusCode === 403) expect(Object.values(ACCESS_MESSAGES)).toContain(message);
          else expect(message).toMatch(/^(Task|Checklist item) not found$/);
          expect((await team.owner.request('GET', `/api/tasks/${task.id}/checklist`)).json()).toEqual(items);
          expect(after).toEqual(before);
        } else if (route.activity) {
          expect(after.length).toBeGreaterThan(before.length);
          expect(after[0]).toEqual(route.activity(items));
        } else {
          expect(after).toEqual(before);
        }
      }
      expect(got).toEqual(route.expected);
    },
  );

  it("a change reaches every member's streams, not the non-member's", async () => {
    const { task, items } = await taskWithItems();
    const { heard, stop } = await listenToTeam(t, team);
    try {
      expect(
        (await team.commenter.request('PATCH', `/api/checklist/${items[0]!.id}`, { done: true })).statusCode,
      ).toBe(200);
      await expect
        .poll(() => CALLERS.filter((caller) => heard[caller].includes(checklistPath(task.id))))
        .toEqual(CALLERS.filter((caller) => caller !== 'non-member'));
      expect(heard.viewer).toContain(taskActivityPath(task.id));
      expect(heard['non-member']).toEqual([]);
    } finally {
      stop();
    }
  });

  it('an archived project is read-only: 409 for a tick, the list still answers', async () => {
    const oldProject = await shareProject(team, 'Old');
    const task = (
      await team.owner.request('POST', '/api/tasks', { title: 'Old', projectId: oldProject })
    ).json() as Task;
    const item = (
      await team.owner.request('POST', `/api/tasks/${task.id}/checklist`, { title: 'Step' })
    ).json() as ChecklistItem;
    expect(
      (await team.owner.request('PATCH', `/api/projects/${oldProject}`, { archived: true })).statusCode,
    ).toBe(200);
    const tick = await team.commenter.request('PATCH', `/api/checklist/${item.id}`, { done: true });
    expect([tick.statusCode, tick.json()]).toEqual([409, { message: PROJECT_MESSAGES.archived }]);
    expect((await team.viewer.request('GET', `/api/tasks/${task.id}/checklist`)).json()).toEqual([item]);
  });
});
