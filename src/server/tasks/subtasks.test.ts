import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../common/activity';
import { TASK_LIMITS, TASK_MESSAGES, type Task } from '../../common/tasks';
import { nowIso } from '../db/values';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { TASK_ERRORS } from './service';

/** Issue 29: sub-tasks through the API, on both databases. */
describe.each(testDialects)('sub-tasks on %s', (dialect) => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;

  beforeEach(async () => {
    t = await createTestApp(dialect, { env: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
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
  const patch = async (user: TestUser, id: number, body: Record<string, unknown>): Promise<Task> => {
    const response = await user.request('PATCH', `/api/tasks/${id}`, body);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const get = async (user: TestUser, id: number): Promise<Task> => {
    const response = await user.request('GET', `/api/tasks/${id}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const list = async (user: TestUser, query = ''): Promise<Task[]> => {
    const response = await user.request('GET', `/api/tasks${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const refused = async (
    user: TestUser,
    method: string,
    url: string,
    body: Record<string, unknown> | undefined,
    status: number,
    message: string,
  ) => {
    const response = await user.request(method, url, body);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json().message).toBe(message);
  };
  const activity = async (user: TestUser, id: number): Promise<ActivityEntry[]> =>
    (await user.request('GET', `/api/tasks/${id}/activity`)).json();
  const project = async (user: TestUser, name: string): Promise<number> => {
    const response = await user.request('POST', '/api/projects', { name });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().id;
  };
  const share = async (projectId: number, member: TestUser, role: string) => {
    const response = await alice.request('POST', `/api/projects/${projectId}/members`, {
      user: member.user.username,
      role,
    });
    expect(response.statusCode, response.body).toBe(201);
  };
  /** A chain of `levels` sub-tasks under a new top-level task: [top, level 1, ..., level n]. */
  const chain = async (user: TestUser, levels: number, extra: Record<string, unknown> = {}) => {
    const tasks = [await create(user, { title: 'level 0', ...extra })];
    for (let level = 1; level <= levels; level++) {
      tasks.push(await create(user, { title: `level ${level}`, parentId: tasks.at(-1)!.id }));
    }
    return tasks;
  };

  describe('create and list', () => {
    it('creates a sub-task in its parent project and section, last among its siblings, with counts and activity', async () => {
      const projectId = await project(alice, 'Trip');
      const section = (
        await alice.request('POST', `/api/projects/${projectId}/sections`, { name: 'Bookings' })
      ).json() as { id: number };
      const parent = await create(alice, { title: 'Plan trip', projectId, sectionId: section.id });
      const first = await create(alice, { title: 'Book flights', parentId: parent.id });
      const second = await create(alice, { title: 'Book hotel', parentId: parent.id, projectId });
      expect(first).toMatchObject({
        parentId: parent.id,
        projectId,
        sectionId: section.id,
        completed: false,
        archived: false,
        subtasks: { done: 0, total: 0 },
        blockedBy: 0,
      });
      expect(second.position).toBeGreaterThan(first.position);
      // A new top-level task still goes on top.
      const top = await create(alice, { title: 'Other', projectId });
      expect(top.position).toBeLessThan(parent.position);

      expect((await get(alice, parent.id)).subtasks).toEqual({ done: 0, total: 2 });
      await patch(alice, first.id, { completed: true });
      expect((await get(alice, parent.id)).subtasks).toEqual({ done: 1, total: 2 });

      // The whole list: every open task, sub-tasks included with their parentId (cached and not).
      for (const query of [`?projectId=${projectId}`, `?projectId=${projectId}&view=summary`]) {
        for (let twice = 0; twice < 2; twice++) {
          const all = await list(alice, query);
          expect(all.map((task) => [task.title, task.parentId, task.completed])).toEqual(
            expect.arrayContaining([
              ['Plan trip', null, false],
              ['Book flights', parent.id, true],
              ['Book hotel', parent.id, false],
              ['Other', null, false],
            ]),
          );
          expect(all.find((task) => task.id === parent.id)?.subtasks).toEqual({ done: 1, total: 2 });
        }
      }
      // Filtered lists count too.
      const filtered = await list(alice, `?projectId=${projectId}&q=plan`);
      expect(filtered.map((task) => [task.id, task.subtasks])).toEqual([[parent.id, { done: 1, total: 2 }]]);

      // ?parentId=: the direct sub-tasks in their order.
      expect((await list(alice, `?parentId=${parent.id}`)).map((task) => task.title)).toEqual([
        'Book flights',
        'Book hotel',
      ]);
      expect(await list(alice, `?parentId=${first.id}`)).toEqual([]);

      const entries = await activity(alice, parent.id);
      expect(entries[0]).toMatchObject({
        kind: 'subtask_added',
        data: { taskId: second.id, title: 'Book hotel' },
      });
    });

    it('refuses a parent in another project, unknown, unseen or archived, a depth over 4, and viewers (editor+)', async () => {
      const projectId = await project(alice, 'Shared');
      await share(projectId, bob, 'viewer');
      const parent = await create(alice, { title: 'Parent', projectId });
      await refused(
        alice,
        'POST',
        '/api/tasks',
        { title: 'x', parentId: parent.id, projectId: alice.inboxId },
        400,
        TASK_MESSAGES.parentOtherProject,
      );
      await refused(
        alice,
        'POST',
        '/api/tasks',
        { title: 'x', parentId: 999_999 },
        404,
        TASK_MESSAGES.parentNotFound,
      );
      const bobs = await create(bob, { title: 'Bob only' });
      await refused(
        alice,
        'POST',
        '/api/tasks',
        { title: 'x', parentId: bobs.id },
        404,
        TASK_MESSAGES.parentNotFound,
      );
      expect((await bob.request('POST', '/api/tasks', { title: 'x', parentId: parent.id })).statusCode).toBe(
        403,
      );
      await refused(
        bob,
        'GET',
        `/api/tasks?parentId=${(await create(alice, { title: 'private' })).id}`,
        undefined,
        404,
        TASK_MESSAGES.parentNotFound,
      );
      expect((await bob.request('GET', `/api/tasks?parentId=${parent.id}`)).statusCode).toBe(200);

      const done = await create(alice, { title: 'Done' });
      await patch(alice, done.id, { completed: true });
      await refused(
        alice,
        'POST',
        '/api/tasks',
        { title: 'x', parentId: done.id },
        400,
        TASK_ERRORS.parentArchived(done.id),
      );

      // Four levels below a top-level task; a fifth is refused.
      const levels = await chain(alice, TASK_LIMITS.subtaskDepth);
      await refused(
        alice,
        'POST',
        '/api/tasks',
        { title: 'level 5', parentId: levels.at(-1)!.id },
        400,
        TASK_MESSAGES.parentTooDeep,
      );
      // Schema: parentId must be an id.
      const bad = await alice.request('POST', '/api/tasks', { title: 'x', parentId: 'one' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toMatch(/parentId/);
    });
  });

  describe('moves in the tree', () => {
    it('puts a task (with its subtree) under another, refusing loops and depth, and takes it out again', async () => {
      const [a, a1, a2] = await chain(alice, 2);
      const b = await create(alice, { title: 'b' });
      await refused(
        alice,
        'PATCH',
        `/api/tasks/${a!.id}`,
        { parentId: a!.id },
        400,
        TASK_MESSAGES.parentLoop,
      );
      await refused(
        alice,
        'PATCH',
        `/api/tasks/${a!.id}`,
        { parentId: a2!.id },
        400,
        TASK_MESSAGES.parentLoop,
      );
      await refused(
        alice,
        'PATCH',
        `/api/tasks/${a1!.id}`,
        { parentId: a2!.id },
        400,
        TASK_MESSAGES.parentLoop,
      );
      await refused(
        alice,
        'PATCH',
        `/api/tasks/${b.id}`,
        { parentId: 999_999 },
        404,
        TASK_MESSAGES.parentNotFound,
      );
      const other = await create(alice, { title: 'elsewhere', projectId: await project(alice, 'Other') });
      await refused(
        alice,
        'PATCH',
        `/api/tasks/${b.id}`,
        { parentId: other.id },
        400,
        TASK_MESSAGES.parentOtherProject,
      );

      // a (3 levels: a, a1, a2) under a chain 2 deep: a2 would be at level 5.
      const [, , c2] = await chain(alice, 2);
      await refused(
        alice,
        'PATCH',
        `/api/tasks/${a!.id}`,
        { parentId: c2!.id },
        400,
        TASK_MESSAGES.parentTooDeep,
      );
      // Under a level-1 task it fits exactly (a2 at level 4).
      const [c] = [await get(alice, c2!.parentId!)];
      const moved = await patch(alice, a!.id, { parentId: c!.id });
      expect(moved.parentId).toBe(c!.id);
      expect((await get(alice, a2!.id)).parentId).toBe(a1!.id);
      expect((await activity(alice, a!.id))[0]).toMatchObject({
        kind: 'moved_under',
        data: { parentId: c!.id, parentTitle: 'level 1' },
      });

      const out = await patch(alice, a!.id, { parentId: null });
      expect(out.parentId).toBeNull();
      expect((await activity(alice, a!.id))[0]).toMatchObject({ kind: 'made_top_level' });
      // Nothing else in the tree changed.
      expect((await get(alice, a1!.id)).parentId).toBe(a!.id);
    });

    it('orders siblings with POST /move: afterId a sibling, null first among them', async () => {
      const parent = await create(alice, { title: 'p' });
      const [x, y, z] = [
        await create(alice, { title: 'x', parentId: parent.id }),
        await create(alice, { title: 'y', parentId: parent.id }),
        await create(alice, { title: 'z', parentId: parent.id }),
      ];
      const titles = async () => (await list(alice, `?parentId=${parent.id}`)).map((task) => task.title);
      expect(await titles()).toEqual(['x', 'y', 'z']);
      expect((await alice.request('POST', `/api/tasks/${z!.id}/move`, { afterId: null })).statusCode).toBe(
        200,
      );
      expect(await titles()).toEqual(['z', 'x', 'y']);
      expect((await alice.request('POST', `/api/tasks/${z!.id}/move`, { afterId: x!.id })).statusCode).toBe(
        200,
      );
      expect(await titles()).toEqual(['x', 'z', 'y']);
      await refused(
        alice,
        'POST',
        `/api/tasks/${y!.id}/move`,
        { afterId: parent.id },
        400,
        TASK_MESSAGES.moveAfterSibling,
      );
      await refused(
        alice,
        'POST',
        `/api/tasks/${parent.id}/move`,
        { afterId: y!.id },
        400,
        TASK_MESSAGES.moveAfterSibling,
      );
      // Many moves into the same gap keep the order.
      for (let i = 0; i < 60; i++) {
        const [first, second] = i % 2 === 0 ? [y!, z!] : [z!, y!];
        expect(
          (await alice.request('POST', `/api/tasks/${second.id}/move`, { afterId: x!.id })).statusCode,
        ).toBe(200);
        void first;
      }
      expect((await titles())[0]).toBe('x');
    });

    it('a parent moved to another project takes its subtree (assignees outside it dropped); a sub-task alone becomes top-level there', async () => {
      const from = await project(alice, 'From');
      const to = await project(alice, 'To');
      await share(from, bob, 'editor');
      const [top, one, two] = await chain(alice, 2, { projectId: from });
      await patch(alice, two!.id, { assigneeIds: [bob.user.id] });
      const section = (await alice.request('POST', `/api/projects/${to}/sections`, { name: 'S' })).json() as {
        id: number;
      };
      const moved = await patch(alice, top!.id, { projectId: to, sectionId: section.id });
      expect(moved).toMatchObject({ projectId: to, sectionId: section.id, parentId: null });
      for (const task of [one!, two!]) {
        expect(await get(alice, task.id)).toMatchObject({ projectId: to, sectionId: section.id });
      }
      expect((await get(alice, two!.id)).assigneeIds).toEqual([]);
      expect((await list(alice, `?projectId=${from}`)).length).toBe(0);
      expect((await list(alice, `?projectId=${to}`)).length).toBe(3);

      // A sub-task alone to another project: top-level there, its own subtree with it.
      const alone = await patch(alice, one!.id, { projectId: from });
      expect(alone).toMatchObject({ projectId: from, parentId: null, sectionId: null });
      expect(await get(alice, two!.id)).toMatchObject({ projectId: from, parentId: one!.id });
      expect((await get(alice, top!.id)).subtasks).toEqual({ done: 0, total: 0 });
      expect((await activity(alice, one!.id)).map((entry) => entry.kind)).toEqual(
        expect.arrayContaining(['moved', 'made_top_level']),
      );
      // A parent of the same project named with a move elsewhere is refused.
      await refused(
        alice,
        'PATCH',
        `/api/tasks/${two!.id}`,
        { projectId: to, parentId: one!.id },
        400,
        TASK_MESSAGES.parentOtherProject,
      );
    });

    it("a parent's section change takes its subtree; a sub-task given another section leaves its parent", async () => {
      const projectId = await project(alice, 'Sections');
      const [s1, s2] = await Promise.all(
        ['One', 'Two'].map(
          async (name) =>
            (await alice.request('POST', `/api/projects/${projectId}/sections`, { name })).json() as {
              id: number;
            },
        ),
      );
      const [top, one, two] = await chain(alice, 2, { projectId });
      await patch(alice, top!.id, { sectionId: s1!.id });
      expect((await get(alice, two!.id)).sectionId).toBe(s1!.id);
      const detached = await patch(alice, one!.id, { sectionId: s2!.id });
      expect(detached).toMatchObject({ parentId: null, sectionId: s2!.id });
      expect((await get(alice, two!.id)).sectionId).toBe(s2!.id);
      // Moving a top-level task to another section with /move takes its subtree too.
      expect(
        (await alice.request('POST', `/api/tasks/${one!.id}/move`, { afterId: null, sectionId: null }))
          .statusCode,
      ).toBe(200);
      expect((await get(alice, two!.id)).sectionId).toBeNull();
      // Put back under a parent, it takes the parent's section.
      const under = await patch(alice, one!.id, { parentId: top!.id });
      expect(under.sectionId).toBe(s1!.id);
      expect((await get(alice, two!.id)).sectionId).toBe(s1!.id);
    });
  });

  describe('completion', () => {
    it('a completed sub-task stays under its parent; reopening works', async () => {
      const parent = await create(alice, { title: 'p' });
      const child = await create(alice, { title: 'c', parentId: parent.id });
      const done = await patch(alice, child.id, { completed: true });
      expect(done).toMatchObject({ completed: true, archived: false, archivedAt: null, parentId: parent.id });
      expect((await list(alice)).find((task) => task.id === child.id)?.completed).toBe(true);
      expect((await activity(alice, child.id))[0]?.kind).toBe('completed');
      const reopened = await patch(alice, child.id, { completed: false });
      expect(reopened).toMatchObject({ completed: false, archived: false });
      const viaRoute = (await alice.request('POST', `/api/tasks/${child.id}/complete`, {})).json() as Task;
      expect(viaRoute).toMatchObject({ completed: true, archived: false });
    });

    it('completing a parent completes and archives its subtree together; restoring restores it; a sub-task restored alone comes back top-level', async () => {
      const [top, one, two] = await chain(alice, 2);
      const sibling = await create(alice, { title: 'sibling', parentId: top!.id });
      await patch(alice, sibling.id, { completed: true });
      const completed = (await alice.request('POST', `/api/tasks/${top!.id}/complete`, {})).json() as Task;
      expect(completed).toMatchObject({ completed: true, archived: true });
      const archived = await list(alice, '/archived');
      const subtree = archived.filter((task) => [top!.id, one!.id, two!.id, sibling.id].includes(task.id));
      expect(subtree).toHaveLength(4);
      expect(new Set(subtree.map((task) => task.archivedAt))).toEqual(new Set([completed.archivedAt]));
      expect(subtree.every((task) => task.completed)).toBe(true);
      expect((await list(alice)).length).toBe(0);
      expect((await list(alice, `/archived?parentId=${top!.id}`)).map((task) => task.id).sort()).toEqual(
        [one!.id, sibling.id].sort(),
      );

      const restored = await patch(alice, top!.id, { completed: false });
      expect(restored).toMatchObject({ completed: false, archived: false, subtasks: { done: 0, total: 2 } });
      for (const task of await list(alice)) expect(task).toMatchObject({ completed: false, archived: false });
      expect((await list(alice)).length).toBe(4);

      // Archived again, one sub-task restored on its own: top-level.
      await patch(alice, top!.id, { completed: true });
      const alone = await patch(alice, one!.id, { completed: false });
      expect(alone).toMatchObject({ parentId: null, archived: false, completed: false });
      expect(await get(alice, two!.id)).toMatchObject({ parentId: one!.id, archived: false });
      expect((await activity(alice, one!.id)).map((entry) => entry.kind)).toEqual(
        expect.arrayContaining(['restored', 'made_top_level']),
      );
    });

    it('completing a recurring parent moves it to its next date and reopens its sub-tasks', async () => {
      const parent = await create(alice, {
        title: 'weekly',
        dueDate: '2026-01-05',
        recurrence: 'FREQ=WEEKLY',
      });
      const a = await create(alice, { title: 'a', parentId: parent.id });
      const b = await create(alice, { title: 'b', parentId: parent.id });
      await patch(alice, a.id, { completed: true });
      const grandchild = await create(alice, { title: 'g', parentId: b.id, completed: true });
      const next = (await alice.request('POST', `/api/tasks/${parent.id}/complete`, {})).json() as Task;
      expect(next.completed).toBe(false);
      expect(next.archived).toBe(false);
      expect(next.dueDate).not.toBe('2026-01-05');
      for (const id of [a.id, b.id, grandchild.id]) {
        expect(await get(alice, id)).toMatchObject({ completed: false, archived: false });
      }
      expect(next.subtasks).toEqual({ done: 0, total: 2 });
    });

    it('completes a parent of 200 sub-tasks in a few statements', async () => {
      const parent = await create(alice, { title: 'big' });
      const { insertTasksOnTop } = await import('./bulk');
      const ids = await insertTasksOnTop(
        t.ctx.db.kysely,
        alice.user.id,
        alice.inboxId,
        Array.from({ length: 200 }, (_, i) => ({
          title: `child ${i}`,
          description: null,
          dueDate: null,
          completed: false,
          archived: false,
          contextId: null,
          notes: null,
          aiDraft: null,
          aiAssisted: false,
          checklistItems: [],
        })),
      );
      await t.ctx.db.kysely
        .updateTable('tasks')
        .set({ parent_id: parent.id })
        .where('id', 'in', ids)
        .execute();
      expect((await get(alice, parent.id)).subtasks).toEqual({ done: 0, total: 200 });
      const started = performance.now();
      const response = await alice.request('PATCH', `/api/tasks/${parent.id}`, { completed: true });
      const elapsed = performance.now() - started;
      expect(response.statusCode).toBe(200);
      expect(response.json().subtasks).toEqual({ done: 200, total: 200 });
      expect(elapsed).toBeLessThan(2000);
      const open = await t.ctx.db.kysely
        .selectFrom('tasks')
        .select('id')
        .where('parent_id', '=', parent.id)
        .where('archived', '=', false)
        .execute();
      expect(open).toEqual([]);
    });
  });

  describe('bulk inserts (imports)', () => {
    it('nest tasks by parentIndex: the parent section, completed sub-tasks of an open parent stay out of the archive', async () => {
      const { insertTasksOnTop } = await import('./bulk');
      const base = {
        description: null,
        dueDate: null,
        completed: false,
        archived: false,
        contextId: null,
        notes: null,
        aiDraft: null,
        aiAssisted: false,
        checklistItems: [],
      };
      const ids = await insertTasksOnTop(t.ctx.db.kysely, alice.user.id, alice.inboxId, [
        { ...base, title: 'Plan trip' },
        { ...base, title: 'Book flights', parentIndex: 0, completed: true },
        { ...base, title: 'Compare fares', parentIndex: 1 },
        { ...base, title: 'Old', completed: true },
        { ...base, title: 'Old step', parentIndex: 3 },
        { ...base, title: 'Not nested', parentIndex: 9 },
      ]);
      const tasks = await Promise.all(ids.map((id) => get(alice, id)));
      expect(tasks.map((task) => [task.title, task.parentId, task.completed, task.archived])).toEqual([
        ['Plan trip', null, false, false],
        ['Book flights', ids[0], true, false],
        ['Compare fares', ids[1], false, false],
        ['Old', null, true, true],
        ['Old step', ids[3], true, true],
        ['Not nested', null, false, false],
      ]);
      expect(tasks[0]!.subtasks).toEqual({ done: 1, total: 1 });
      expect((await list(alice, `?parentId=${ids[0]}`)).map((task) => task.title)).toEqual(['Book flights']);
    });
  });

  describe('blockedBy', () => {
    it("counts open blockers, changes when a blocker is completed, restored or deleted, and the blocked task's cached list follows", async () => {
      const otherProject = await project(alice, 'Blockers');
      const blocked = await create(alice, { title: 'blocked' });
      const [blocker, second] = [
        await create(alice, { title: 'blocker', projectId: otherProject }),
        await create(alice, { title: 'second', projectId: otherProject }),
      ];
      const child = await create(alice, { title: 'child blocker', parentId: second.id });
      const now = nowIso();
      await t.ctx.db.kysely
        .insertInto('task_relations')
        .values(
          [blocker, child].map((task) => ({
            task_id: task.id,
            other_task_id: blocked.id,
            kind: 'blocks' as const,
            created_by: alice.user.id,
            created_at: now,
          })),
        )
        .execute();
      // The relations feature bumps on create; here the row is touched as it would.
      await patch(alice, blocked.id, { title: 'blocked!' });
      const inList = async () =>
        (await list(alice, '?view=summary')).find((task) => task.id === blocked.id)!.blockedBy;
      expect(await inList()).toBe(2);
      expect((await get(alice, blocked.id)).blockedBy).toBe(2);
      await patch(alice, blocker.id, { completed: true });
      expect(await inList()).toBe(1);
      await patch(alice, blocker.id, { completed: false });
      expect(await inList()).toBe(2);
      // The child blocker is archived with its parent.
      await patch(alice, second.id, { completed: true });
      expect(await inList()).toBe(1);
      await patch(alice, second.id, { completed: false });
      expect(await inList()).toBe(2);
      // Deleting its parent deletes the child blocker.
      expect((await alice.request('DELETE', `/api/tasks/${second.id}`)).statusCode).toBe(204);
      expect(await inList()).toBe(1);
      expect((await get(alice, blocked.id)).blockedBy).toBe(1);
    });
  });

  describe('deleting a parent', () => {
    it('deletes its subtree, leaving no row in any task-keyed table and no stored file', async () => {
      const keep = await create(alice, { title: 'keep' });
      const [top, one, two] = await chain(alice, 2);
      const ids = [top!.id, one!.id, two!.id];
      const now = nowIso();
      const keys: string[] = [];
      for (const id of ids) {
        const stored = await t.ctx.fileStore.put(Readable.from([Buffer.from(`file of ${id}`)]));
        keys.push(stored.key);
        await t.ctx.db.kysely
          .insertInto('files')
          .values({
            task_id: id,
            user_id: alice.user.id,
            original_name: 'a.txt',
            file_size: 10,
            content_type: 'text/plain',
            storage_key: stored.key,
            created_at: now,
          })
          .execute();
        expect((await alice.request('POST', `/api/tasks/${id}/comments`, { body: 'note' })).statusCode).toBe(
          201,
        );
        expect(
          (await alice.request('POST', `/api/tasks/${id}/checklist`, { title: 'step' })).statusCode,
        ).toBe(201);
        await t.ctx.db.kysely
          .insertInto('reminders')
          .values({
            task_id: id,
            at: '2030-01-01T09:00:00.000Z',
            relative_minutes: null,
            fired_at: null,
            created_by: alice.user.id,
            created_at: now,
          })
          .execute();
        await t.ctx.db.kysely
          .insertInto('ai_runs')
          .values({
            user_id: alice.user.id,
            task_id: id,
            agent_id: null,
            agent_title: null,
            model: 'm',
            started_at: now,
            duration_ms: 1,
            status: 'succeeded',
            error: null,
          })
          .execute();
        await t.ctx.db.kysely
          .insertInto('task_relations')
          .values({
            task_id: id,
            other_task_id: keep.id,
            kind: 'blocks',
            created_by: alice.user.id,
            created_at: now,
          })
          .execute();
        await patch(alice, id, { assigneeIds: [alice.user.id] });
      }
      const label = (await alice.request('POST', '/api/labels', { name: 'tag' })).json() as { id: number };
      if (label.id) await patch(alice, two!.id, { labelIds: [label.id] });

      expect((await alice.request('DELETE', `/api/tasks/${top!.id}`)).statusCode).toBe(204);
      const db = t.ctx.db.kysely;
      expect(await db.selectFrom('tasks').select('id').where('id', 'in', ids).execute()).toEqual([]);
      const keyed = [
        ['files', 'task_id'],
        ['comments', 'task_id'],
        ['checklist_items', 'task_id'],
        ['reminders', 'task_id'],
        ['ai_runs', 'task_id'],
        ['ai_proposals', 'task_id'],
        ['task_assignees', 'task_id'],
        ['task_labels', 'task_id'],
        ['activity', 'task_id'],
        ['notifications', 'task_id'],
        ['task_relations', 'task_id'],
        ['task_relations', 'other_task_id'],
      ] as const;
      for (const [table, column] of keyed) {
        const rows = await db.selectFrom(table).select(column).where(column, 'in', ids).execute();
        expect(rows, `${table}.${column}`).toEqual([]);
      }
      for (const key of keys) expect(await t.ctx.fileStore.get(key)).toBeNull();
      expect((await get(alice, keep.id)).blockedBy).toBe(0);
      expect((await list(alice)).map((task) => task.id)).toEqual([keep.id]);
    });
  });

  describe('webhooks', () => {
    it('task payloads carry parentId, subtasks and blockedBy', async () => {
      const received: Array<{ type: string; data: Task }> = [];
      const server = http.createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          response.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
        const hook = await alice.request('POST', '/api/webhooks', {
          url,
          events: ['task.created', 'task.updated'],
        });
        expect(hook.statusCode, hook.body).toBe(201);
        const parent = await create(alice, { title: 'p' });
        const child = await create(alice, { title: 'c', parentId: parent.id });
        await patch(alice, child.id, { parentId: null });
        await t.ctx.jobs.runDue();
        const created = received.find((event) => event.type === 'task.created' && event.data.id === child.id);
        expect(created?.data).toMatchObject({
          parentId: parent.id,
          subtasks: { done: 0, total: 0 },
          blockedBy: 0,
        });
        const updated = received.find((event) => event.type === 'task.updated' && event.data.id === child.id);
        expect(updated?.data.parentId).toBeNull();
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });
});
