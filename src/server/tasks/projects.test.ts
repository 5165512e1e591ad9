import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../common/activity';
import type { Project } from '../../common/projects';
import type { Task } from '../../common/tasks';
import { expectStatus } from '../testing/answers';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';

/** Issue 21: tasks in projects: lists, moves, assignees, activity, and what leaving or deletion does. */
describe.each(testDialects)('tasks in projects on %s', (dialect) => {
  let t: TestApp;
  let ana: TestUser;
  let ben: TestUser;
  let cleo: TestUser;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    ana = await t.signUp();
    ben = await t.signUp();
    cleo = await t.signUp();
  });
  afterEach(async () => {
    await t.close();
  });

  const ok = <T>(user: TestUser, method: string, url: string, body?: unknown, status = 200) =>
    expectStatus<T>(user.request(method, url, body), status);
  const project = async (owner: TestUser, name: string, members: Array<[TestUser, string]> = []) => {
    const created = await ok<Project>(owner, 'POST', '/api/projects', { name }, 201);
    for (const [user, role] of members) {
      await ok(owner, 'POST', `/api/projects/${created.id}/members`, { user: user.user.username, role }, 201);
    }
    return created;
  };
  const task = (user: TestUser, title: string, projectId?: number) =>
    ok<Task>(user, 'POST', '/api/tasks', { title, ...(projectId ? { projectId } : {}) }, 201);
  const titles = async (user: TestUser, query = '') =>
    (await ok<Task[]>(user, 'GET', `/api/tasks${query}`)).map((x) => x.title);
  const activity = (user: TestUser, id: number) =>
    ok<ActivityEntry[]>(user, 'GET', `/api/tasks/${id}/activity`);

  it('keeps the Inbox as the spec has it, and lists a project, every project, or what is assigned to me', async () => {
    const site = await project(ana, 'Website', [[ben, 'editor']]);
    await task(ana, 'Inbox task');
    const shared = await task(ben, 'Shared task', site.id);
    expect(shared).toMatchObject({
      projectId: site.id,
      userId: ben.user.id,
      assigneeIds: [],
      commentCount: 0,
    });

    // Without projectId: the caller's own Inbox, exactly as before.
    expect(await titles(ana)).toEqual(['Inbox task']);
    expect(await titles(ben)).toEqual([]);
    expect(await titles(ana, `?projectId=${site.id}`)).toEqual(['Shared task']);
    expect(await titles(ben, `?projectId=${site.id}`)).toEqual(['Shared task']);
    expect((await titles(ana, '?projectId=all')).sort()).toEqual(['Inbox task', 'Shared task']);
    expect(await titles(ben, '?projectId=all')).toEqual(['Shared task']);
    // Someone else's Inbox is no project of yours.
    const [anaInbox] = await ok<Project[]>(ana, 'GET', '/api/projects');
    const hidden = await ben.request('GET', `/api/tasks?projectId=${anaInbox!.id}`);
    expect([hidden.statusCode, hidden.json()]).toEqual([404, { message: 'Project not found' }]);
    expect((await cleo.request('GET', `/api/tasks?projectId=${site.id}`)).statusCode).toBe(404);
    expect((await cleo.request('GET', `/api/tasks/${shared.id}`)).statusCode).toBe(404);

    await ok(ana, 'PATCH', `/api/tasks/${shared.id}`, { assigneeIds: [ben.user.id] });
    expect(await titles(ben, '?assignee=me')).toEqual(['Shared task']);
    expect(await titles(ana, '?assignee=me')).toEqual([]);
    // Filters combine with the scope.
    expect(await titles(ben, '?assignee=me&q=nothing')).toEqual([]);
    expect(await titles(ana, '?projectId=all&q=inbox')).toEqual(['Inbox task']);
    expect((await ana.request('GET', '/api/tasks?projectId=x')).json()).toEqual({
      message: 'projectId must be a number or all',
    });

    // The project's task count follows its tasks.
    const projects = await ok<Project[]>(ben, 'GET', '/api/projects');
    expect(projects.find((p) => p.id === site.id)?.taskCount).toBe(1);
  });

  it('positions count per project: a new task tops its own project only', async () => {
    const site = await project(ana, 'Website');
    await task(ana, 'one', site.id);
    await task(ana, 'inbox');
    await task(ana, 'two', site.id);
    expect(await titles(ana, `?projectId=${site.id}`)).toEqual(['two', 'one']);
    const [two, one] = await ok<Task[]>(ana, 'GET', `/api/tasks?projectId=${site.id}`);
    await ok(ana, 'POST', '/api/tasks/reorder', { taskIds: [one!.id, two!.id] });
    expect(await titles(ana, `?projectId=${site.id}`)).toEqual(['one', 'two']);
    await ok(ana, 'POST', `/api/tasks/${two!.id}/move`, { afterId: null });
    expect(await titles(ana, `?projectId=${site.id}`)).toEqual(['two', 'one']);
    // An order may not mix projects.
    const [inbox] = await ok<Task[]>(ana, 'GET', '/api/tasks');
    const mixed = await ana.request('POST', '/api/tasks/reorder', { taskIds: [one!.id, inbox!.id] });
    expect([mixed.statusCode, mixed.json()]).toEqual([
      400,
      { message: 'taskIds must all be tasks of one project' },
    ]);
    // A task the caller cannot see answers as an unknown one would, mixed in or not.
    const hidden = await task(ben, 'hidden');
    for (const taskIds of [
      [one!.id, hidden.id],
      [one!.id, inbox!.id, hidden.id],
      [one!.id, 999_999],
    ]) {
      const refused = await ana.request('POST', '/api/tasks/reorder', { taskIds });
      expect([refused.statusCode, refused.json()]).toEqual([404, { message: 'Task not found' }]);
    }
    expect(await titles(ana, `?projectId=${site.id}`)).toEqual(['two', 'one']);
  });

  it('assigns members only, at most ten, and says who in the activity', async () => {
    const site = await project(ana, 'Website', [
      [ben, 'editor'],
      [cleo, 'viewer'],
    ]);
    const work = await task(ana, 'Work', site.id);
    const assigned = await ok<Task>(ana, 'PATCH', `/api/tasks/${work.id}`, {
      assigneeIds: [ben.user.id, cleo.user.id],
    });
    expect(assigned.assigneeIds).toEqual([ben.user.id, cleo.user.id]);
    expect((await ok<Task[]>(ben, 'GET', `/api/tasks?projectId=${site.id}`))[0]?.assigneeIds).toEqual([
      ben.user.id,
      cleo.user.id,
    ]);

    const outsider = await t.signUp();
    const refused = await ana.request('PATCH', `/api/tasks/${work.id}`, {
      title: 'Not saved',
      assigneeIds: [outsider.user.id],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      message: `assigneeIds: ${outsider.user.username} (user ${outsider.user.id}) is not a member of this project`,
    });
    const nobody = await ana.request('PATCH', `/api/tasks/${work.id}`, { assigneeIds: [999_999] });
    expect([nobody.statusCode, nobody.json()]).toEqual([
      400,
      { message: 'assigneeIds: user 999999 is not a member of this project' },
    ]);
    const many = await ana.request('PATCH', `/api/tasks/${work.id}`, {
      assigneeIds: Array.from({ length: 11 }, (_, i) => i + 1),
    });
    expect([many.statusCode, many.json()]).toEqual([
      400,
      { message: 'assigneeIds must list at most 10 people' },
    ]);
    expect((await ok<Task>(ana, 'GET', `/api/tasks/${work.id}`)).title).toBe('Work');

    await ok(ana, 'PATCH', `/api/tasks/${work.id}`, { assigneeIds: [cleo.user.id] });
    const kinds = (await activity(cleo, work.id)).map((entry) => [entry.kind, entry.data.names]);
    expect(kinds).toEqual([
      ['unassigned', [ben.user.username]],
      ['assigned', [ben.user.username, cleo.user.username]],
      ['created', undefined],
    ]);
  });

  it('moves a task between projects where the caller edits both, dropping assignees who are not members there', async () => {
    const site = await project(ana, 'Website', [
      [ben, 'editor'],
      [cleo, 'editor'],
    ]);
    const ops = await project(ana, 'Operations', [[cleo, 'viewer']]);
    const work = await task(ana, 'Work', site.id);
    await ok(ana, 'PATCH', `/api/tasks/${work.id}`, { assigneeIds: [ben.user.id, cleo.user.id] });
    await ok(ana, 'POST', `/api/tasks/${work.id}/checklist`, { title: 'Step' }, 201);

    // Cleo edits the source but only views the target: refused, nothing moved.
    const refused = await cleo.request('PATCH', `/api/tasks/${work.id}`, { projectId: ops.id });
    expect([refused.statusCode, refused.json()]).toEqual([
      403,
      { message: 'Editors can change tasks in this project' },
    ]);
    // Ben is not in the target at all: it does not exist for him.
    expect((await ben.request('PATCH', `/api/tasks/${work.id}`, { projectId: ops.id })).statusCode).toBe(404);

    const moved = await ok<Task>(ana, 'PATCH', `/api/tasks/${work.id}`, { projectId: ops.id });
    expect(moved).toMatchObject({ projectId: ops.id, assigneeIds: [cleo.user.id], checklist: { total: 1 } });
    expect(await titles(ana, `?projectId=${site.id}`)).toEqual([]);
    expect(await titles(cleo, `?projectId=${ops.id}`)).toEqual(['Work']);
    expect((await ben.request('GET', `/api/tasks/${work.id}`)).statusCode).toBe(404);
    const [entry] = await activity(ana, work.id);
    expect(entry).toMatchObject({
      kind: 'moved',
      actorId: ana.user.id,
      data: {
        fromProjectId: site.id,
        toProjectId: ops.id,
        toProjectName: 'Operations',
        droppedAssignees: [ben.user.username],
      },
    });
  });

  it('writes activity with the change, newest first, for every member to read', async () => {
    const site = await project(ana, 'Website', [[ben, 'viewer']]);
    const work = await task(ana, 'Draft', site.id);
    await ok(ana, 'PATCH', `/api/tasks/${work.id}`, {
      title: 'Final',
      description: 'Longer',
      dueDate: '2027-01-02',
    });
    await ok(ana, 'PATCH', `/api/tasks/${work.id}`, { completed: true, archived: true });
    await ok(ana, 'PATCH', `/api/tasks/${work.id}`, { completed: false, archived: false });
    const entries = await activity(ben, work.id);
    // One edit's entries are written in one statement, in the order the fields are looked at.
    expect(entries.map((entry) => entry.kind)).toEqual([
      'restored',
      'completed',
      'due_changed',
      'description_changed',
      'renamed',
      'created',
    ]);
    expect(entries.find((entry) => entry.kind === 'renamed')).toMatchObject({
      actorName: ana.user.username,
      data: { from: 'Draft', to: 'Final' },
    });
    expect(entries.find((entry) => entry.kind === 'due_changed')?.data).toEqual({
      from: null,
      to: '2027-01-02',
    });
    // A refused change writes nothing.
    expect((await ben.request('PATCH', `/api/tasks/${work.id}`, { title: 'No' })).statusCode).toBe(403);
    expect(await activity(ben, work.id)).toHaveLength(entries.length);
  });

  it('writes activity for a priority and for labels added and removed (issue 23)', async () => {
    const site = await project(ana, 'Website', [[ben, 'viewer']]);
    const work = await task(ana, 'Draft', site.id);
    const label = async (name: string) =>
      ((await ana.request('POST', '/api/labels', { name, color: 'teal' })).json() as { id: number }).id;
    const [errands, writing] = [await label('errands'), await label('writing')];
    await ok(ana, 'PATCH', `/api/tasks/${work.id}`, { priority: 1, labelIds: [errands, writing] });
    await ok(ana, 'PATCH', `/api/tasks/${work.id}`, { priority: 4, labelIds: [writing] });
    // The same values again: nothing changed, nothing written.
    await ok(ana, 'PATCH', `/api/tasks/${work.id}`, { priority: 4, labelIds: [writing] });
    const entries = await activity(ben, work.id);
    expect(entries.map((entry) => [entry.kind, entry.data])).toEqual([
      ['labels_changed', { added: [], removed: ['errands'] }],
      ['priority_changed', { from: 1, to: 4 }],
      ['labels_changed', { added: ['errands', 'writing'], removed: [] }],
      ['priority_changed', { from: 4, to: 1 }],
      ['created', {}],
    ]);
  });

  it('refuses writes to an archived project until it is restored', async () => {
    const site = await project(ana, 'Website');
    const work = await task(ana, 'Work', site.id);
    await ok(ana, 'PATCH', `/api/projects/${site.id}`, { archived: true });
    const archived = { message: 'This project is archived. Restore it first.' };
    const edit = await ana.request('PATCH', `/api/tasks/${work.id}`, { title: 'No' });
    expect([edit.statusCode, edit.json()]).toEqual([409, archived]);
    const add = await ana.request('POST', '/api/tasks', { title: 'No', projectId: site.id });
    expect([add.statusCode, add.json()]).toEqual([409, archived]);
    expect(await titles(ana, `?projectId=${site.id}`)).toEqual(['Work']);
    await ok(ana, 'PATCH', `/api/projects/${site.id}`, { archived: false });
    await ok(ana, 'PATCH', `/api/tasks/${work.id}`, { title: 'Yes' });
  });

  it('a removed member gets 404 at once; deleting a project takes its tasks along', async () => {
    const site = await project(ana, 'Website', [[ben, 'editor']]);
    const work = await task(ben, 'Work', site.id);
    await ok(ana, 'DELETE', `/api/projects/${site.id}/members/${ben.user.id}`, undefined, 204);
    expect((await ben.request('GET', `/api/tasks/${work.id}`)).statusCode).toBe(404);
    expect((await ben.request('PATCH', `/api/tasks/${work.id}`, { title: 'x' })).statusCode).toBe(404);
    expect(await titles(ben, '?projectId=all')).toEqual([]);

    await ok(ana, 'DELETE', `/api/projects/${site.id}`, undefined, 204);
    const rows = await t.ctx.db.kysely.selectFrom('tasks').select('id').where('id', '=', work.id).execute();
    expect(rows).toEqual([]);
    const left = await t.ctx.db.kysely
      .selectFrom('activity')
      .select('id')
      .where('task_id', '=', work.id)
      .execute();
    expect(left).toEqual([]);
  });

  it('takes a member who is removed or leaves off the project’s tasks, saying so in the activity', async () => {
    const site = await project(ana, 'Website', [
      [ben, 'editor'],
      [cleo, 'editor'],
    ]);
    const work = await task(ana, 'Work', site.id);
    const more = await task(ana, 'More work', site.id);
    const inbox = await task(ben, 'Own task');
    await ok(ana, 'PATCH', `/api/tasks/${work.id}`, { assigneeIds: [ben.user.id, cleo.user.id] });
    await ok(ana, 'PATCH', `/api/tasks/${more.id}`, { assigneeIds: [ben.user.id] });
    await ok(ben, 'PATCH', `/api/tasks/${inbox.id}`, { assigneeIds: [ben.user.id] });

    await ok(ana, 'DELETE', `/api/projects/${site.id}/members/${ben.user.id}`, undefined, 204);
    const [first, second] = await ok<Task[]>(ana, 'GET', `/api/tasks?projectId=${site.id}`);
    expect([first?.assigneeIds, second?.assigneeIds]).toEqual([[], [cleo.user.id]]);
    expect((await ok<Task>(ben, 'GET', `/api/tasks/${inbox.id}`)).assigneeIds).toEqual([ben.user.id]);
    const [entry] = await activity(ana, work.id);
    expect(entry).toMatchObject({
      kind: 'unassigned',
      actorId: ana.user.id,
      data: { userIds: [ben.user.id], names: [ben.user.username] },
    });

    // Leaving does the same, by the one who left.
    await ok(cleo, 'DELETE', `/api/projects/${site.id}/members/${cleo.user.id}`, undefined, 204);
    expect((await ok<Task>(ana, 'GET', `/api/tasks/${work.id}`)).assigneeIds).toEqual([]);
    expect((await activity(ana, work.id))[0]).toMatchObject({ kind: 'unassigned', actorId: cleo.user.id });
  });

  it('keeps what a deleted user made in projects that stay, passed to the project’s owner', async () => {
    const site = await project(ana, 'Website', [[ben, 'editor']]);
    const benTask = await task(ben, 'Made by Ben', site.id);
    await ok(ben, 'POST', `/api/tasks/${benTask.id}/checklist`, { title: 'Ben’s step' }, 201);
    await task(ben, 'Ben’s own');
    const admin = await t.signUp({ isAdmin: true });
    await ok(admin, 'DELETE', `/api/admin/users/${ben.user.id}`, undefined, 204);

    const kept = await ok<Task>(ana, 'GET', `/api/tasks/${benTask.id}`);
    expect(kept).toMatchObject({ title: 'Made by Ben', userId: ana.user.id, checklist: { total: 1 } });
    const [created] = (await activity(ana, benTask.id)).filter((entry) => entry.kind === 'created');
    expect(created).toMatchObject({ actorId: null, actorName: 'Deleted user' });
    const own = await t.ctx.db.kysely
      .selectFrom('tasks')
      .select('id')
      .where('title', '=', 'Ben’s own')
      .execute();
    expect(own).toEqual([]);
  });
});
