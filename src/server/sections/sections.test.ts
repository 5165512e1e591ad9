import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_MESSAGES } from '../../common/projects';
import { SECTION_LIMITS, SECTION_MESSAGES, type Section } from '../../common/sections';
import { TASK_MESSAGES, type Task } from '../../common/tasks';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { listenToTeam, shareProject, signUpTeam, type Team } from '../testing/team';

/**
 * Issue 23: sections of a project (the Inbox too). Named and ordered; a task is in one of its
 * project's sections or in none; deleting a section keeps its tasks, in none. Who may do what is
 * the role table's (src/server/access/access.test.ts walks each route by role).
 */
describe.each(testDialects)('sections on %s', (dialect) => {
  let t: TestApp;
  let people: Team;
  let ana: TestUser;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    people = await signUpTeam(t);
    ana = people.owner;
  });
  afterAll(async () => {
    await t?.close();
  });

  const json = async <T>(
    response: Promise<{ statusCode: number; body: string; json(): unknown }>,
    status = 200,
  ) => {
    const answer = await response;
    expect(answer.statusCode, answer.body).toBe(status);
    return answer.json() as T;
  };
  const inbox = async (who: TestUser) =>
    (await json<Array<{ id: number; inbox: boolean }>>(who.request('GET', '/api/projects'))).find(
      (project) => project.inbox,
    )!.id;
  const addSection = (who: TestUser, projectId: number, name: string) =>
    json<Section>(who.request('POST', `/api/projects/${projectId}/sections`, { name }), 201);
  const names = async (who: TestUser, projectId: number) =>
    (await json<Section[]>(who.request('GET', `/api/projects/${projectId}/sections`))).map((s) => s.name);
  const addTask = (who: TestUser, body: Record<string, unknown>) =>
    json<Task>(who.request('POST', '/api/tasks', body), 201);
  const listed = async (who: TestUser, projectId: number) =>
    json<Task[]>(who.request('GET', `/api/tasks?projectId=${projectId}`));

  it('adds sections at the end, in the Inbox too; renames and orders them; 400 names the field', async () => {
    const projectId = await inbox(ana);
    const todo = await addSection(ana, projectId, '  To do  ');
    expect(todo).toMatchObject({ projectId, name: 'To do', position: 0 });
    const doing = await addSection(ana, projectId, 'Doing');
    const done = await addSection(ana, projectId, 'Done');
    expect(doing.position).toBe(1);
    expect(await names(ana, projectId)).toEqual(['To do', 'Doing', 'Done']);

    const renamed = await json<Section>(
      ana.request('PATCH', `/api/sections/${doing.id}`, { name: 'In progress' }),
    );
    expect(renamed.name).toBe('In progress');

    // First, then after another.
    let order = await json<Section[]>(
      ana.request('POST', `/api/sections/${done.id}/move`, { afterId: null }),
    );
    expect(order.map((s) => s.name)).toEqual(['Done', 'To do', 'In progress']);
    expect(order.map((s) => s.position)).toEqual([0, 1, 2]);
    order = await json<Section[]>(
      ana.request('POST', `/api/sections/${done.id}/move`, { afterId: doing.id }),
    );
    expect(order.map((s) => s.name)).toEqual(['To do', 'In progress', 'Done']);

    for (const [body, message] of [
      [{ name: '   ' }, SECTION_MESSAGES.nameRequired],
      [{}, SECTION_MESSAGES.nameRequired],
      [{ name: 'x'.repeat(SECTION_LIMITS.nameMax + 1) }, SECTION_MESSAGES.nameTooLong],
    ] as const) {
      const refused = await ana.request('POST', `/api/projects/${projectId}/sections`, body);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ message: message });
    }
    const self = await ana.request('POST', `/api/sections/${done.id}/move`, { afterId: done.id });
    expect(self.json()).toEqual({ message: SECTION_MESSAGES.moveAfterItself });
    const elsewhere = await addSection(ana, await shareProject(people, 'Other'), 'Elsewhere');
    const foreign = await ana.request('POST', `/api/sections/${done.id}/move`, { afterId: elsewhere.id });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toEqual({ message: SECTION_MESSAGES.afterNotInProject });
  });

  it("puts tasks in a section of their project, and refuses another project's section", async () => {
    const projectId = await shareProject(people, 'Board');
    const doing = await addSection(ana, projectId, 'Doing');
    const task = await addTask(ana, { title: 'Paint', projectId, sectionId: doing.id });
    expect(task.sectionId).toBe(doing.id);
    const plain = await addTask(ana, { title: 'Sand', projectId });
    expect(plain.sectionId).toBeNull();

    const moved = await json<Task>(ana.request('PATCH', `/api/tasks/${plain.id}`, { sectionId: doing.id }));
    expect(moved.sectionId).toBe(doing.id);
    const out = await json<Task>(ana.request('PATCH', `/api/tasks/${plain.id}`, { sectionId: null }));
    expect(out.sectionId).toBeNull();

    const inboxSection = await addSection(ana, await inbox(ana), 'Someday');
    for (const [method, url, body] of [
      ['POST', '/api/tasks', { title: 'Wrong', projectId, sectionId: inboxSection.id }],
      ['PATCH', `/api/tasks/${task.id}`, { sectionId: inboxSection.id }],
      ['PATCH', `/api/tasks/${task.id}`, { sectionId: 987654 }],
    ] as const) {
      const refused = await ana.request(method, url, body);
      expect(refused.statusCode, `${method} ${url}`).toBe(400);
      expect(refused.json()).toEqual({ message: SECTION_MESSAGES.taskSection });
    }
    const wrongType = await ana.request('PATCH', `/api/tasks/${task.id}`, { sectionId: 'Doing' });
    expect(wrongType.statusCode).toBe(400);
    expect((wrongType.json() as { message: string }).message).toMatch(/^sectionId/);

    // Moved to another project: it leaves its section, unless given one there.
    const toInbox = await json<Task>(
      ana.request('PATCH', `/api/tasks/${task.id}`, { projectId: await inbox(ana) }),
    );
    expect(toInbox.sectionId).toBeNull();
    const back = await json<Task>(
      ana.request('PATCH', `/api/tasks/${task.id}`, { projectId, sectionId: doing.id }),
    );
    expect(back).toMatchObject({ projectId, sectionId: doing.id });
  });

  it('moves a task between sections with the move endpoint: to a top, after a task, or by afterId alone', async () => {
    const projectId = await shareProject(people, 'Kanban');
    const todo = await addSection(ana, projectId, 'To do');
    const doing = await addSection(ana, projectId, 'Doing');
    const a = await addTask(ana, { title: 'A', projectId, sectionId: todo.id });
    const b = await addTask(ana, { title: 'B', projectId, sectionId: doing.id });
    const c = await addTask(ana, { title: 'C', projectId, sectionId: doing.id });
    const inSection = async (sectionId: number | null) =>
      (await listed(ana, projectId))
        .filter((task) => task.sectionId === sectionId)
        .sort((x, y) => x.position - y.position)
        .map((task) => task.title);
    expect(await inSection(doing.id)).toEqual(['C', 'B']);

    // To the top of Doing.
    let moved = await json<Task>(
      ana.request('POST', `/api/tasks/${a.id}/move`, { afterId: null, sectionId: doing.id }),
    );
    expect(moved.sectionId).toBe(doing.id);
    expect(await inSection(doing.id)).toEqual(['A', 'C', 'B']);
    expect(await inSection(todo.id)).toEqual([]);
    // After B, in Doing: afterId alone takes B's section.
    moved = await json<Task>(ana.request('POST', `/api/tasks/${a.id}/move`, { afterId: c.id }));
    expect(await inSection(doing.id)).toEqual(['C', 'A', 'B']);
    // Into no section, at its top.
    moved = await json<Task>(
      ana.request('POST', `/api/tasks/${b.id}/move`, { afterId: null, sectionId: null }),
    );
    expect(moved.sectionId).toBeNull();
    expect(await inSection(null)).toEqual(['B']);
    // afterId must be in the section named.
    const refused = await ana.request('POST', `/api/tasks/${a.id}/move`, {
      afterId: b.id,
      sectionId: todo.id,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ message: TASK_MESSAGES.moveAfterInSection });
    const foreign = await ana.request('POST', `/api/tasks/${a.id}/move`, {
      afterId: null,
      sectionId: 987654,
    });
    expect(foreign.json()).toEqual({ message: SECTION_MESSAGES.taskSection });
  });

  it("deletes a section, keeping its tasks in 'No section'; members hear it", async () => {
    const projectId = await shareProject(people, 'Renovation');
    const doing = await addSection(ana, projectId, 'Doing');
    const task = await addTask(ana, { title: 'Tiles', projectId, sectionId: doing.id });
    const listening = await listenToTeam(t, people);
    try {
      const deleted = await ana.request('DELETE', `/api/sections/${doing.id}`);
      expect(deleted.statusCode).toBe(204);
      await expect
        .poll(() => listening.heard.viewer)
        .toEqual(expect.arrayContaining([`/api/projects/${projectId}/sections`, '/api/tasks']));
      expect(listening.heard['non-member']).toEqual([]);
    } finally {
      listening.stop();
    }
    expect(await names(ana, projectId)).toEqual([]);
    const [kept] = await listed(ana, projectId);
    expect(kept).toMatchObject({ id: task.id, title: 'Tiles', sectionId: null });
    expect((await ana.request('PATCH', `/api/sections/${doing.id}`, { name: 'Gone' })).statusCode).toBe(404);
  });

  it('an archived project keeps its sections read-only; deleting the project deletes them', async () => {
    const projectId = await shareProject(people, 'Archive me');
    const section = await addSection(ana, projectId, 'Backlog');
    await json(ana.request('PATCH', `/api/projects/${projectId}`, { archived: true }));
    const refused = await ana.request('POST', `/api/projects/${projectId}/sections`, { name: 'More' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ message: PROJECT_MESSAGES.archived });
    expect((await ana.request('PATCH', `/api/sections/${section.id}`, { name: 'x' })).statusCode).toBe(409);
    expect(await names(people.viewer, projectId)).toEqual(['Backlog']);
    await json(ana.request('PATCH', `/api/projects/${projectId}`, { archived: false }));
    expect((await ana.request('DELETE', `/api/projects/${projectId}`)).statusCode).toBe(204);
    const left = await t.ctx.db.kysely
      .selectFrom('sections')
      .select('id')
      .where('project_id', '=', projectId)
      .execute();
    expect(left).toEqual([]);
  });
});
