import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChecklistItem } from '../../common/checklist';
import type { Label } from '../../common/labels';
import type { Project } from '../../common/projects';
import type { Section } from '../../common/sections';
import type { Task } from '../../common/tasks';
import {
  TEMPLATE_LIMITS,
  TEMPLATE_MESSAGES,
  type Template,
  templateApplyPath,
  templatePath,
} from '../../common/templates';
import { insertTasksOnTop } from '../tasks/bulk';
import { expectStatus } from '../testing/answers';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { createTestClock } from '../testing/clock';
import { testDialects } from '../testing/database';

/**
 * Issue 29: project templates. Saving keeps a project's open tasks (sections, sub-tasks, labels,
 * priorities, checklists, due dates as days from the day of saving in the saver's zone); applying
 * makes a new project of them, all at once. A template is its owner's alone.
 */
describe.each(testDialects)('templates on %s', (dialect) => {
  let t: TestApp;
  let ana: TestUser;
  let bob: TestUser;
  const clock = createTestClock();

  beforeAll(async () => {
    // Saving at 13:00 UTC on 2 March is already 3 March in Auckland (UTC+13): offsets count from the 3rd.
    clock.set('2026-03-02T13:00:00Z');
    t = await createTestApp(dialect, { clock, env: { DEFAULT_TIME_ZONE: 'Pacific/Auckland' } });
    [ana, bob] = await Promise.all([t.signUp(), t.signUp()]);
  });
  afterAll(async () => {
    await t?.close();
  });

  const ok = expectStatus;
  const db = () => t.ctx.db.kysely;
  const refused = async (
    response: Promise<{ statusCode: number; body: string; json(): unknown }>,
    status: number,
    message: string | RegExp,
  ) => {
    const answer = await response;
    expect(answer.statusCode, answer.body).toBe(status);
    expect((answer.json() as { message: string }).message).toMatch(message);
  };
  const newProject = (who: TestUser, name: string, color = 'grey') =>
    ok<Project>(who.request('POST', '/api/projects', { name, color }), 201);
  const addTask = (who: TestUser, body: Record<string, unknown>) =>
    ok<Task>(who.request('POST', '/api/tasks', body), 201);
  /** Sub-tasks' rules are the tasks feature's; here the row is written as it would leave it. */
  const nest = (childId: number, parentId: number) =>
    db().updateTable('tasks').set({ parent_id: parentId }).where('id', '=', childId).execute();
  const projectCount = async (who: TestUser) =>
    (await ok<Project[]>(who.request('GET', '/api/projects'))).length;

  /** A project of everything a template keeps, and of what it leaves out. */
  async function richProject() {
    const project = await newProject(ana, 'Offsite', 'teal');
    const plan = await ok<Section>(
      ana.request('POST', `/api/projects/${project.id}/sections`, { name: 'Plan' }),
      201,
    );
    const doing = await ok<Section>(
      ana.request('POST', `/api/projects/${project.id}/sections`, { name: 'Do' }),
      201,
    );
    const urgent =
      (await ok<Label[]>(ana.request('GET', '/api/labels'))).find((label) => label.name === 'Urgent') ??
      (await ok<Label>(ana.request('POST', '/api/labels', { name: 'Urgent', color: 'red' }), 201));
    const venue = await addTask(ana, {
      title: 'Book venue',
      projectId: project.id,
      sectionId: plan.id,
      priority: 1,
      description: 'Near the station',
      dueDate: '2026-03-05',
      dueTime: '09:30',
      labelIds: [urgent.id],
    });
    await ok(ana.request('PATCH', `/api/tasks/${venue.id}`, { notes: 'Ask for the big room' }));
    const call = await ok<ChecklistItem>(
      ana.request('POST', `/api/tasks/${venue.id}/checklist`, { title: 'Call three places' }),
      201,
    );
    await ok(ana.request('POST', `/api/tasks/${venue.id}/checklist`, { title: 'Pay the deposit' }), 201);
    await ok(ana.request('PATCH', `/api/checklist/${call.id}`, { done: true }));
    const dates = await addTask(ana, { title: 'Pick dates', projectId: project.id, sectionId: plan.id });
    await ok(ana.request('POST', `/api/tasks/${dates.id}/checklist`, { title: 'Poll the team' }), 201);
    const confirm = await addTask(ana, {
      title: 'Confirm dates',
      projectId: project.id,
      sectionId: plan.id,
      dueDate: '2026-03-10',
    });
    const doneSub = await addTask(ana, { title: 'Already done', projectId: project.id, sectionId: plan.id });
    const invite = await addTask(ana, {
      title: 'Invite everyone',
      projectId: project.id,
      sectionId: doing.id,
      dueDate: '2026-03-02',
      recurrence: 'FREQ=WEEKLY',
      priority: 2,
    });
    const loose = await addTask(ana, { title: 'Loose end', projectId: project.id });
    const finished = await addTask(ana, { title: 'Finished', projectId: project.id });
    await ok(ana.request('POST', `/api/tasks/${finished.id}/complete`, {}));
    // Book venue > Pick dates > Confirm dates; Book venue > Already done (completed, left out).
    await nest(dates.id, venue.id);
    await nest(confirm.id, dates.id);
    await nest(doneSub.id, venue.id);
    await db().updateTable('tasks').set({ completed: true }).where('id', '=', doneSub.id).execute();
    // The list's order: Invite, Book venue (and its tree), Loose end.
    await ok(ana.request('POST', '/api/tasks/reorder', { taskIds: [invite.id, venue.id, loose.id] }));
    return { project, urgent, venue, invite, loose };
  }

  it('saves a project and applies it: sections, nesting, labels, checklists and due dates from startDate', async () => {
    const { project, urgent } = await richProject();
    const saved = await ok<Template>(
      ana.request('POST', `/api/projects/${project.id}/template`, { name: '  Offsite kit  ' }),
      201,
    );
    expect(saved).toMatchObject({ name: 'Offsite kit', taskCount: 5, createdAt: expect.any(String) });
    expect(await ok<Template[]>(ana.request('GET', '/api/templates'))).toEqual([saved]);

    const before = await ok<Label[]>(ana.request('GET', '/api/labels'));
    const made = await ok<Project>(
      ana.request('POST', templateApplyPath(saved.id), { name: 'Offsite 2027', startDate: '2027-01-10' }),
      201,
    );
    expect(made).toMatchObject({
      name: 'Offsite 2027',
      color: 'teal',
      role: 'owner',
      inbox: false,
      archived: false,
      ownerId: ana.user.id,
      memberCount: 1,
      taskCount: 5,
    });
    expect(made.id).not.toBe(project.id);
    // The label of that name is reused, not doubled.
    expect(await ok<Label[]>(ana.request('GET', '/api/labels'))).toEqual(before);

    const sections = await ok<Section[]>(ana.request('GET', `/api/projects/${made.id}/sections`));
    expect(sections.map((section) => section.name)).toEqual(['Plan', 'Do']);
    const sectionName = (id: number | null) => sections.find((section) => section.id === id)?.name ?? null;
    const tasks = await ok<Task[]>(ana.request('GET', `/api/tasks?projectId=${made.id}`));
    const title = (id: number | null) => tasks.find((task) => task.id === id)?.title ?? null;
    expect(
      tasks.map((task) => ({
        title: task.title,
        section: sectionName(task.sectionId),
        parent: title(task.parentId),
        dueDate: task.dueDate,
        dueTime: task.dueTime,
        recurrence: task.recurrence,
        priority: task.priority,
        labels: task.labels.map((label) => [label.id, label.name, label.color]),
        checklist: task.checklist,
        completed: task.completed,
        assigneeIds: task.assigneeIds,
      })),
    ).toEqual([
      // Days counted from 3 March (Auckland's today when saved): 2 March is -1, 5 March +2, 10 March +7.
      {
        title: 'Invite everyone',
        section: 'Do',
        parent: null,
        dueDate: '2027-01-09',
        dueTime: null,
        recurrence: 'FREQ=WEEKLY',
        priority: 2,
        labels: [],
        checklist: { done: 0, total: 0 },
        completed: false,
        assigneeIds: [],
      },
      {
        title: 'Book venue',
        section: 'Plan',
        parent: null,
        dueDate: '2027-01-12',
        dueTime: '09:30',
        recurrence: null,
        priority: 1,
        labels: [[urgent.id, 'Urgent', 'red']],
        checklist: { done: 0, total: 2 },
        completed: false,
        assigneeIds: [],
      },
      {
        title: 'Pick dates',
        section: 'Plan',
        parent: 'Book venue',
        dueDate: null,
        dueTime: null,
        recurrence: null,
        priority: 4,
        labels: [],
        checklist: { done: 0, total: 1 },
        completed: false,
        assigneeIds: [],
      },
      {
        title: 'Confirm dates',
        section: 'Plan',
        parent: 'Pick dates',
        dueDate: '2027-01-17',
        dueTime: null,
        recurrence: null,
        priority: 4,
        labels: [],
        checklist: { done: 0, total: 0 },
        completed: false,
        assigneeIds: [],
      },
      {
        title: 'Loose end',
        section: null,
        parent: null,
        dueDate: null,
        dueTime: null,
        recurrence: null,
        priority: 4,
        labels: [],
        checklist: { done: 0, total: 0 },
        completed: false,
        assigneeIds: [],
      },
    ]);
    const venue = tasks.find((task) => task.title === 'Book venue')!;
    const full = await ok<Task>(ana.request('GET', `/api/tasks/${venue.id}`));
    expect([full.description, full.notes, full.dueTimeZone]).toEqual([
      'Near the station',
      'Ask for the big room',
      'Pacific/Auckland',
    ]);
    const items = await ok<ChecklistItem[]>(ana.request('GET', `/api/tasks/${venue.id}/checklist`));
    expect(items.map((item) => [item.title, item.done])).toEqual([
      ['Call three places', false],
      ['Pay the deposit', false],
    ]);
    // Nothing archived came along.
    expect(await ok<Task[]>(ana.request('GET', `/api/tasks/archived?projectId=${made.id}`))).toEqual([]);
    // The source is as it was.
    expect((await ok<Task[]>(ana.request('GET', `/api/tasks?projectId=${project.id}`))).length).toBe(6);
  });

  it('lets anyone who sees the project save it as their own; keeps each template to its owner', async () => {
    const project = await newProject(ana, 'Shared plan', 'blue');
    await ok(
      ana.request('POST', `/api/projects/${project.id}/members`, { user: bob.user.username, role: 'viewer' }),
      201,
    );
    const label = await ok<Label>(
      ana.request('POST', '/api/labels', { name: 'Later', color: 'violet' }),
      201,
    );
    await addTask(ana, { title: 'Someday', projectId: project.id, labelIds: [label.id] });

    // A viewer may save it; the name defaults to the project's.
    const bobs = await ok<Template>(bob.request('POST', `/api/projects/${project.id}/template`, {}), 201);
    expect(bobs).toMatchObject({ name: 'Shared plan', taskCount: 1 });
    const anas = await ok<Template[]>(ana.request('GET', '/api/templates'));
    expect(anas.map((template) => template.id)).not.toContain(bobs.id);
    await refused(ana.request('DELETE', templatePath(bobs.id)), 404, TEMPLATE_MESSAGES.notFound);
    await refused(
      ana.request('POST', templateApplyPath(bobs.id), { name: 'Mine now', startDate: '2027-01-01' }),
      404,
      TEMPLATE_MESSAGES.notFound,
    );

    // Bob's new project carries a label of his own, made in the template's colour.
    expect(await ok<Label[]>(bob.request('GET', '/api/labels'))).toEqual([]);
    const made = await ok<Project>(
      bob.request('POST', templateApplyPath(bobs.id), { name: 'Bob’s plan', startDate: '2027-01-01' }),
      201,
    );
    const [bobLabel] = await ok<Label[]>(bob.request('GET', '/api/labels'));
    expect(bobLabel).toMatchObject({ name: 'Later', color: 'violet' });
    const [task] = await ok<Task[]>(bob.request('GET', `/api/tasks?projectId=${made.id}`));
    expect(task?.labels).toEqual([{ id: bobLabel!.id, name: 'Later', color: 'violet' }]);
    // Ana is not in Bob's new project.
    await refused(ana.request('GET', `/api/tasks?projectId=${made.id}`), 404, /not found$/);

    // Newest first; deleting one's own.
    const second = await ok<Template>(
      bob.request('POST', `/api/projects/${project.id}/template`, { name: 'Again' }),
      201,
    );
    expect((await ok<Template[]>(bob.request('GET', '/api/templates'))).map((x) => x.id)).toEqual([
      second.id,
      bobs.id,
    ]);
    await ok(bob.request('DELETE', templatePath(bobs.id)), 204);
    expect((await ok<Template[]>(bob.request('GET', '/api/templates'))).map((x) => x.id)).toEqual([
      second.id,
    ]);
    await refused(bob.request('DELETE', templatePath(bobs.id)), 404, TEMPLATE_MESSAGES.notFound);
  });

  it('refuses bad input by name, an unseen project with 404, and writes nothing then', async () => {
    const project = await newProject(ana, 'Small');
    await addTask(ana, { title: 'One', projectId: project.id });
    const saved = await ok<Template>(ana.request('POST', `/api/projects/${project.id}/template`, {}), 201);
    expect(saved.name).toBe('Small');

    await refused(bob.request('POST', `/api/projects/${project.id}/template`, {}), 404, 'Project not found');
    await refused(ana.request('POST', '/api/projects/999999/template', {}), 404, 'Project not found');
    await refused(
      ana.request('POST', `/api/projects/${project.id}/template`, { name: ' ' }),
      400,
      TEMPLATE_MESSAGES.nameRequired,
    );
    await refused(
      ana.request('POST', `/api/projects/${project.id}/template`, { name: 'x'.repeat(101) }),
      400,
      TEMPLATE_MESSAGES.nameTooLong,
    );
    const before = await projectCount(ana);
    const apply = (body: unknown) => ana.request('POST', templateApplyPath(saved.id), body);
    await refused(apply({ startDate: '2027-01-01' }), 400, TEMPLATE_MESSAGES.nameRequired);
    await refused(apply({ name: '', startDate: '2027-01-01' }), 400, TEMPLATE_MESSAGES.nameRequired);
    await refused(
      apply({ name: 'x'.repeat(101), startDate: '2027-01-01' }),
      400,
      TEMPLATE_MESSAGES.nameTooLong,
    );
    for (const startDate of [undefined, '2027-02-30', '1 March', 20270101]) {
      await refused(apply({ name: 'Next', startDate }), 400, /^startDate /);
    }
    await refused(apply({ name: 'Next', startDate: '2027-01-01', extra: 1 }), 400, /extra/);
    await refused(
      ana.request('POST', templateApplyPath(999_999), { name: 'Next', startDate: '2027-01-01' }),
      404,
      TEMPLATE_MESSAGES.notFound,
    );
    expect(await projectCount(ana)).toBe(before);
  });

  it('applies all or nothing: a failure part-way leaves no project, section, task or label behind', async () => {
    const { project, urgent } = await richProject();
    const saved = await ok<Template>(ana.request('POST', `/api/projects/${project.id}/template`, {}), 201);
    const counts = async () =>
      Promise.all(
        (['projects', 'sections', 'tasks', 'labels', 'checklist_items'] as const).map(async (table) =>
          Number(
            (
              await db()
                .selectFrom(table)
                .select((eb) => eb.fn.countAll<number | string>().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          ),
        ),
      );
    // A new label on the way, and the last write of all (the tasks' labels) fails.
    await ok(ana.request('DELETE', `/api/labels/${urgent.id}`), 204);
    const before = await counts();
    if (dialect === 'sqlite') {
      await sql`create trigger fail_labels before insert on task_labels begin select raise(abort, 'refused'); end`.execute(
        db(),
      );
    } else {
      await sql`create function fail_labels() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`.execute(
        db(),
      );
      await sql`create trigger fail_labels before insert on task_labels for each row execute function fail_labels()`.execute(
        db(),
      );
    }
    try {
      const answer = await ana.request('POST', templateApplyPath(saved.id), {
        name: 'Half',
        startDate: '2027-01-01',
      });
      expect(answer.statusCode).toBe(500);
    } finally {
      if (dialect === 'sqlite') await sql`drop trigger fail_labels`.execute(db());
      else {
        await sql`drop trigger fail_labels on task_labels`.execute(db());
        await sql`drop function fail_labels()`.execute(db());
      }
    }
    expect(await counts()).toEqual(before);
    expect((await ok<Project[]>(ana.request('GET', '/api/projects'))).map((p) => p.name)).not.toContain(
      'Half',
    );
  });

  it(`refuses a project of more than ${TEMPLATE_LIMITS.tasksMax} open tasks, naming it`, async () => {
    const project = await newProject(ana, 'Huge');
    await db()
      .transaction()
      .execute((trx) =>
        insertTasksOnTop(
          trx,
          ana.user.id,
          project.id,
          Array.from({ length: TEMPLATE_LIMITS.tasksMax + 1 }, (_, i) => ({
            title: `Task ${i}`,
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
        ),
      );
    const templates = (await ok<Template[]>(ana.request('GET', '/api/templates'))).length;
    await refused(
      ana.request('POST', `/api/projects/${project.id}/template`, {}),
      400,
      TEMPLATE_MESSAGES.tooManyTasks('Huge', TEMPLATE_LIMITS.tasksMax + 1),
    );
    expect((await ok<Template[]>(ana.request('GET', '/api/templates'))).length).toBe(templates);
  });

  it('is not applied with a token limited to some projects (it could not see the new one)', async () => {
    const project = await newProject(ana, 'Tokened');
    const saved = await ok<Template>(ana.request('POST', `/api/projects/${project.id}/template`, {}), 201);
    const { token } = await ok<{ token: string }>(
      ana.request('POST', '/api/tokens', { name: 'Inbox only', projectIds: [ana.inboxId] }),
      201,
    );
    const answer = await t.app.inject({
      method: 'POST',
      url: templateApplyPath(saved.id),
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'Via token', startDate: '2027-01-01' },
    });
    expect(answer.statusCode, answer.body).toBe(403);
    // Nor saved from a project beyond its reach.
    const beyond = await t.app.inject({
      method: 'POST',
      url: `/api/projects/${project.id}/template`,
      headers: { authorization: `Bearer ${token}` },
      payload: {},
    });
    expect(beyond.statusCode, beyond.body).toBe(404);
  });
});
