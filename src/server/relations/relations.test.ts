import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../common/activity';
import {
  RELATION_KINDS,
  RELATION_MESSAGES,
  type Relation,
  type RelationKind,
  relationsPath,
} from '../../common/relations';
import { TASKS_PATH, type Task, taskPath } from '../../common/tasks';
import { ACCESS_MESSAGES } from '../access';
import { expectStatus } from '../testing/answers';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { CALLERS, listenToTeam, shareProject, signUpTeam, type Team } from '../testing/team';

/** How each kind reads from the other task. */
const INVERSE: Record<RelationKind, RelationKind> = {
  blocks: 'blocked_by',
  blocked_by: 'blocks',
  relates_to: 'relates_to',
  duplicate_of: 'duplicated_by',
  duplicated_by: 'duplicate_of',
};

describe.each(testDialects)('dependencies between tasks on %s', (dialect) => {
  let t: TestApp;
  let people: Team;
  let projectId: number;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    people = await signUpTeam(t);
    projectId = await shareProject(people);
  });
  afterAll(async () => {
    await t.close();
  });

  const ok = expectStatus;
  const newTask = (title: string, project = projectId, by: TestUser = people.owner) =>
    ok<Task>(by.request('POST', TASKS_PATH, { title, projectId: project }), 201);
  const relate = (taskId: number, kind: string, otherId: number, by: TestUser = people.owner) =>
    by.request('POST', relationsPath(taskId), { kind, taskId: otherId });
  const added = (taskId: number, kind: RelationKind, otherId: number, by: TestUser = people.owner) =>
    ok<Relation>(relate(taskId, kind, otherId, by), 201);
  const relationsOf = (taskId: number, by: TestUser = people.owner) =>
    ok<Relation[]>(by.request('GET', relationsPath(taskId)));
  const taskOf = (taskId: number, by: TestUser = people.owner) =>
    ok<Task>(by.request('GET', taskPath(taskId)));
  const refusal = async (response: Promise<{ statusCode: number; body: string; json(): unknown }>) => {
    const answer = await response;
    return [answer.statusCode, (answer.json() as { message: string }).message] as const;
  };

  it.each(RELATION_KINDS)('%s: one record, read from both sides', async (kind) => {
    const [a, b] = [await newTask('A'), await newTask('B')];
    const relation = await added(a.id, kind, b.id);
    expect(relation).toEqual({
      id: expect.any(Number),
      kind,
      taskId: a.id,
      otherTaskId: b.id,
      otherProjectId: projectId,
      otherTitle: 'B',
      otherCompleted: false,
      createdAt: expect.any(String),
    });
    expect(await relationsOf(a.id)).toEqual([relation]);
    expect(await relationsOf(b.id)).toEqual([
      { ...relation, kind: INVERSE[kind], taskId: b.id, otherTaskId: a.id, otherTitle: 'A' },
    ]);
    const stored = await t.ctx.db.kysely.selectFrom('task_relations').selectAll().execute();
    expect(stored.filter((row) => row.id === relation.id)).toHaveLength(1);
    expect(['blocks', 'relates_to', 'duplicate_of']).toContain(
      stored.find((row) => row.id === relation.id)!.kind,
    );
  });

  it('blockedBy counts the open blockers; completing one drops it, and completing a blocked task is allowed', async () => {
    const [report, figures, review] = [
      await newTask('Report'),
      await newTask('Figures'),
      await newTask('Review'),
    ];
    await added(report.id, 'blocked_by', figures.id);
    await added(review.id, 'blocks', report.id);
    expect((await taskOf(report.id)).blockedBy).toBe(2);
    expect((await taskOf(figures.id)).blockedBy).toBe(0);
    const listed = await ok<Task[]>(people.owner.request('GET', `${TASKS_PATH}?projectId=${projectId}`));
    expect(listed.find((task) => task.id === report.id)?.blockedBy).toBe(2);

    await ok(people.owner.request('PATCH', taskPath(figures.id), { completed: true }));
    expect((await taskOf(report.id)).blockedBy).toBe(1);
    const [relation] = await relationsOf(report.id);
    expect(relation).toMatchObject({ otherTaskId: figures.id, kind: 'blocked_by', otherCompleted: true });

    await ok(people.owner.request('PATCH', taskPath(report.id), { completed: true }));
    expect((await taskOf(report.id)).completed).toBe(true);
  });

  it('adding or removing a blocker refreshes both projects’ lists and tells each side’s members', async () => {
    const otherProject = await ok<{ id: number }>(
      people.owner.request('POST', '/api/projects', { name: 'Elsewhere' }),
      201,
    );
    const [blocked, blocker] = [await newTask('Blocked'), await newTask('Blocker', otherProject.id)];
    const listOf = (id: number) =>
      ok<Task[]>(people.owner.request('GET', `${TASKS_PATH}?projectId=${id}`)).then((tasks) =>
        tasks.find((task) => task.id === blocked.id),
      );
    expect((await listOf(projectId))?.blockedBy).toBe(0);
    const live = await listenToTeam(t, people);
    const relation = await added(blocked.id, 'blocked_by', blocker.id);
    expect((await listOf(projectId))?.blockedBy).toBe(1);
    await expect.poll(() => live.heard.editor).toContain(relationsPath(blocked.id));
    expect(live.heard.editor).toEqual(expect.arrayContaining([TASKS_PATH, taskPath(blocked.id)]));
    // The other project is the owner's alone: its task's keys reach no one else.
    expect(live.heard.owner).toEqual(
      expect.arrayContaining([relationsPath(blocker.id), taskPath(blocker.id)]),
    );
    expect(live.heard.editor).not.toContain(relationsPath(blocker.id));
    expect(live.heard['non-member']).toEqual([]);

    await ok(people.owner.request('DELETE', `${relationsPath(blocked.id)}/${relation.id}`), 204);
    expect((await listOf(projectId))?.blockedBy).toBe(0);
    live.stop();

    const activity = await ok<ActivityEntry[]>(
      people.owner.request('GET', `${taskPath(blocker.id)}/activity`),
    );
    expect(activity.map((entry) => entry.kind).slice(0, 2)).toEqual(['relation_removed', 'relation_added']);
  });

  it('400 for an unknown kind or the task itself; 409 for the same relation twice, either way', async () => {
    const [a, b] = [await newTask('A'), await newTask('B')];
    const unknown = await refusal(relate(a.id, 'follows', b.id));
    expect(unknown[0]).toBe(400);
    expect(unknown[1]).toMatch(/kind/);
    expect(await refusal(relate(a.id, 'blocks', a.id))).toEqual([400, RELATION_MESSAGES.self]);
    const missing = await refusal(people.owner.request('POST', relationsPath(a.id), { kind: 'blocks' }));
    expect(missing[0]).toBe(400);
    expect(missing[1]).toMatch(/taskId/);

    await added(a.id, 'blocks', b.id);
    expect(await refusal(relate(a.id, 'blocks', b.id))).toEqual([409, RELATION_MESSAGES.duplicate]);
    expect(await refusal(relate(b.id, 'blocked_by', a.id))).toEqual([409, RELATION_MESSAGES.duplicate]);
    await added(a.id, 'relates_to', b.id);
    expect(await refusal(relate(b.id, 'relates_to', a.id))).toEqual([409, RELATION_MESSAGES.duplicate]);
    await added(b.id, 'duplicated_by', a.id);
    expect(await refusal(relate(a.id, 'duplicate_of', b.id))).toEqual([409, RELATION_MESSAGES.duplicate]);
    expect((await relationsOf(a.id)).map((relation) => relation.kind)).toEqual([
      'blocks',
      'relates_to',
      'duplicate_of',
    ]);
  });

  it('400 for a chain of blocked tasks that would loop, however long; other kinds may go round', async () => {
    const [a, b, c, d] = [await newTask('A'), await newTask('B'), await newTask('C'), await newTask('D')];
    await added(a.id, 'blocks', b.id);
    await added(b.id, 'blocks', c.id);
    await added(d.id, 'blocked_by', c.id);
    expect(await refusal(relate(b.id, 'blocked_by', a.id))).toEqual([409, RELATION_MESSAGES.duplicate]);
    expect(await refusal(relate(b.id, 'blocks', a.id))).toEqual([400, RELATION_MESSAGES.loop]);
    expect(await refusal(relate(d.id, 'blocks', a.id))).toEqual([400, RELATION_MESSAGES.loop]);
    expect(await refusal(relate(a.id, 'blocked_by', d.id))).toEqual([400, RELATION_MESSAGES.loop]);
    expect(await refusal(relate(c.id, 'blocks', b.id))).toEqual([400, RELATION_MESSAGES.loop]);
    // A diamond is no loop, nor is a relation of another kind back along the chain.
    await added(a.id, 'blocks', d.id);
    await added(d.id, 'relates_to', a.id);
    await added(d.id, 'duplicate_of', a.id);
    const rows = await t.ctx.db.kysely.selectFrom('task_relations').select('id').execute();
    expect(await refusal(relate(c.id, 'blocks', a.id))).toEqual([400, RELATION_MESSAGES.loop]);
    expect(await t.ctx.db.kysely.selectFrom('task_relations').select('id').execute()).toHaveLength(
      rows.length,
    );
  });

  it('roles: viewers and commenters read, editors add and remove; the other task needs viewer', async () => {
    const [a, b] = [await newTask('A'), await newTask('B')];
    for (const caller of ['viewer', 'commenter'] as const) {
      expect(await refusal(relate(a.id, 'blocks', b.id, people[caller]))).toEqual([
        403,
        ACCESS_MESSAGES.editor,
      ]);
    }
    const relation = await added(a.id, 'blocks', b.id, people.editor);
    for (const caller of CALLERS) {
      const answer = await people[caller].request('GET', relationsPath(b.id));
      expect(answer.statusCode, caller).toBe(caller === 'non-member' ? 404 : 200);
    }
    expect((await refusal(people.viewer.request('DELETE', `${relationsPath(a.id)}/${relation.id}`)))[0]).toBe(
      403,
    );
    expect(
      (await refusal(people['non-member'].request('DELETE', `${relationsPath(a.id)}/${relation.id}`)))[0],
    ).toBe(404);
    // Removed from either side, by an editor.
    await ok(people.editor.request('DELETE', `${relationsPath(b.id)}/${relation.id}`), 204);
    expect(await relationsOf(a.id)).toEqual([]);
    expect(await refusal(people.editor.request('DELETE', `${relationsPath(a.id)}/${relation.id}`))).toEqual([
      404,
      RELATION_MESSAGES.notFound,
    ]);
  });

  it('across projects: related when the caller sees both; someone who sees one side does not see the relation', async () => {
    // The editor's own project, shared with nobody, and another person's private one.
    const mine = await ok<{ id: number }>(
      people.editor.request('POST', '/api/projects', { name: 'Mine' }),
      201,
    );
    const private_ = await ok<{ id: number }>(
      people.admin.request('POST', '/api/projects', { name: 'Private' }),
      201,
    );
    const [shared, own, secret] = [
      await newTask('Shared'),
      await newTask('Own', mine.id, people.editor),
      await newTask('Secret', private_.id, people.admin),
    ];
    // A viewer's task elsewhere is enough for the other side; a task they cannot see is 404.
    expect(await refusal(relate(shared.id, 'relates_to', secret.id, people.editor))).toEqual([
      404,
      'Task not found',
    ]);
    const relation = await added(shared.id, 'blocked_by', own.id, people.editor);
    expect((await taskOf(shared.id)).blockedBy).toBe(1);
    // The owner sees the shared task but not the editor's project: no relation, and it cannot be removed.
    expect(await relationsOf(shared.id, people.owner)).toEqual([]);
    expect(await relationsOf(shared.id, people.viewer)).toEqual([]);
    expect(
      await refusal(people.owner.request('DELETE', `${relationsPath(shared.id)}/${relation.id}`)),
    ).toEqual([404, RELATION_MESSAGES.notFound]);
    expect(await relationsOf(shared.id, people.editor)).toEqual([relation]);
    expect(await relationsOf(own.id, people.editor)).toEqual([
      expect.objectContaining({ kind: 'blocks', otherTaskId: shared.id, otherTitle: 'Shared' }),
    ]);

    // The admin relates their private task to the shared one: the editor sees the shared side alone.
    const hidden = await added(secret.id, 'relates_to', shared.id, people.admin);
    expect((await relationsOf(shared.id, people.admin)).map((r) => r.id)).toEqual([hidden.id]);
    expect((await relationsOf(shared.id, people.editor)).map((r) => r.id)).toEqual([relation.id]);
    expect(
      await refusal(people.editor.request('DELETE', `${relationsPath(shared.id)}/${hidden.id}`)),
    ).toEqual([404, RELATION_MESSAGES.notFound]);
    // A relation id of other tasks altogether is not this task's.
    expect(await refusal(people.admin.request('DELETE', `${relationsPath(own.id)}/${hidden.id}`))).toEqual([
      404,
      'Task not found',
    ]);
  });

  it('deleting a task removes its relations, on both sides', async () => {
    const [a, b, c] = [await newTask('A'), await newTask('B'), await newTask('C')];
    await added(a.id, 'blocks', b.id);
    await added(c.id, 'relates_to', a.id);
    await added(b.id, 'duplicate_of', c.id);
    expect((await taskOf(b.id)).blockedBy).toBe(1);
    await ok(people.owner.request('DELETE', taskPath(a.id)), 204);
    expect(await relationsOf(b.id)).toEqual([
      expect.objectContaining({ kind: 'duplicate_of', otherTaskId: c.id }),
    ]);
    expect(await relationsOf(c.id)).toEqual([
      expect.objectContaining({ kind: 'duplicated_by', otherTaskId: b.id }),
    ]);
    expect((await taskOf(b.id)).blockedBy).toBe(0);
    const left = await t.ctx.db.kysely
      .selectFrom('task_relations')
      .select('id')
      .where((eb) => eb.or([eb('task_id', '=', a.id), eb('other_task_id', '=', a.id)]))
      .execute();
    expect(left).toEqual([]);
  });

  it('404 for a task that is not there, in the path or the body', async () => {
    const a = await newTask('A');
    expect(await refusal(relate(999999, 'blocks', a.id))).toEqual([404, 'Task not found']);
    expect(await refusal(relate(a.id, 'blocks', 999999))).toEqual([404, 'Task not found']);
    expect((await people.owner.request('GET', relationsPath(999999))).statusCode).toBe(404);
    expect(await refusal(people.owner.request('DELETE', `${relationsPath(a.id)}/999999`))).toEqual([
      404,
      RELATION_MESSAGES.notFound,
    ]);
  });
});
