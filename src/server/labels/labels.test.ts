import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LABEL_MESSAGES, type Label, type SavedFilter } from '../../common/labels';
import { TASK_MESSAGES, type Task } from '../../common/tasks';
import { ACCESS_MESSAGES } from '../access';
import { expectStatus } from '../testing/answers';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { shareProject, signUpTeam } from '../testing/team';
import { checkFilterQuery } from './service';

describe('saved filter queries', () => {
  it('are checked as the list checks its parameters', () => {
    expect(checkFilterQuery('?priority=1,2&label=work&label=home&sort=due')).toBe(
      'priority=1,2&label=work&label=home&sort=due',
    );
    expect(checkFilterQuery('q=rent&due=overdue&projectId=all')).toBe('q=rent&due=overdue&projectId=all');
    const refusal = (query: string) => {
      try {
        checkFilterQuery(query);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal('priority=5')).toMatch(/^query: priority must list priorities from 1 to 4/);
    expect(refusal('sort=random')).toBe('query: sort must be one of manual, due, priority, created, title');
    expect(refusal('due=yesterday')).toMatch(/^query: due must be one of/);
    expect(refusal('colour=red')).toBe("query: 'colour' is not a filter of the task list");
    expect(refusal('sort=due&sort=title')).toBe('query: sort may be given once');
    expect(refusal(`label=${'x'.repeat(51)}`)).toMatch(/^query: label must name a label/);
    expect(refusal('dueFrom=2026-12-10&dueTo=2026-12-01')).toBe(`query: ${TASK_MESSAGES.dueWindowReversed}`);
    expect(refusal('dueFrom=2026-12-01&dueTo=2026-12-01')).toBe('accepted');
    expect(refusal('?')).toBe(LABEL_MESSAGES.queryRequired);
  });
});

describe.each(testDialects)('priorities, labels and saved filters on %s', (dialect) => {
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

  const ok = expectStatus;
  const createTask = (user: TestUser, body: Record<string, unknown>) =>
    ok<Task>(user.request('POST', '/api/tasks', body), 201);
  const createLabel = (user: TestUser, name: string, color = 'teal') =>
    ok<Label>(user.request('POST', '/api/labels', { name, color }), 201);
  const titles = async (user: TestUser, url: string) =>
    (await ok<Task[]>(user.request('GET', url))).map((task) => task.title);
  const message = async (response: Promise<{ json(): unknown }>) =>
    ((await response).json() as { message: string }).message;

  it('labels are each person’s own: unique by name whatever the case, a palette colour, 1-50 characters', async () => {
    const work = await createLabel(alice, 'Work', 'blue');
    expect(work).toMatchObject({ name: 'Work', color: 'blue' });
    const taken = await alice.request('POST', '/api/labels', { name: ' work ', color: 'red' });
    expect([taken.statusCode, taken.json()]).toEqual([409, { message: LABEL_MESSAGES.nameTaken }]);
    // Someone else may have the same name.
    await createLabel(bob, 'work');
    const badColor = await alice.request('POST', '/api/labels', { name: 'Home', color: 'mauve' });
    expect([badColor.statusCode, (badColor.json() as { message: string }).message]).toEqual([
      400,
      LABEL_MESSAGES.colorInvalid,
    ]);
    expect(await message(alice.request('POST', '/api/labels', { name: '  ', color: 'red' }))).toBe(
      LABEL_MESSAGES.nameRequired,
    );
    expect(await message(alice.request('POST', '/api/labels', { name: 'x'.repeat(51), color: 'red' }))).toBe(
      LABEL_MESSAGES.nameTooLong,
    );
    await createLabel(alice, 'errands', 'green');
    expect((await ok<Label[]>(alice.request('GET', '/api/labels'))).map((l) => l.name)).toEqual([
      'errands',
      'Work',
    ]);
    // Renaming to another label's name, case aside, is refused; to its own name in another case is fine.
    const other = await createLabel(alice, 'Home');
    expect((await alice.request('PATCH', `/api/labels/${other.id}`, { name: 'WORK' })).statusCode).toBe(409);
    expect(await ok<Label>(alice.request('PATCH', `/api/labels/${work.id}`, { name: 'WORK' }))).toMatchObject(
      {
        name: 'WORK',
        color: 'blue',
      },
    );
    expect((await alice.request('PATCH', `/api/labels/${work.id}`, {})).statusCode).toBe(400);
  });

  it("someone else's label or filter answers 404, as one that does not exist", async () => {
    const label = await createLabel(alice, 'Mine');
    const filter = await ok<SavedFilter>(
      alice.request('POST', '/api/filters', { name: 'Urgent', query: 'priority=1' }),
      201,
    );
    for (const [method, url, body] of [
      ['PATCH', `/api/labels/${label.id}`, { name: 'Stolen' }],
      ['DELETE', `/api/labels/${label.id}`, undefined],
      ['PATCH', `/api/filters/${filter.id}`, { name: 'Stolen' }],
      ['DELETE', `/api/filters/${filter.id}`, undefined],
    ] as const) {
      const theirs = await bob.request(method, url, body);
      const missing = await alice.request(method, url.replace(/\d+$/, '999999'), body);
      expect([theirs.statusCode, theirs.json()], `${method} ${url}`).toEqual([
        missing.statusCode,
        missing.json(),
      ]);
      expect(theirs.statusCode).toBe(404);
    }
    expect(await ok<Label[]>(bob.request('GET', '/api/labels'))).toEqual([]);
    expect(await ok<SavedFilter[]>(bob.request('GET', '/api/filters'))).toEqual([]);
    // Nor can Bob put Alice's label on his task.
    const task = await createTask(bob, { title: 'Bob’s' });
    expect(await message(bob.request('PATCH', `/api/tasks/${task.id}`, { labelIds: [label.id] }))).toBe(
      LABEL_MESSAGES.notYours(label.id),
    );
    expect(await message(bob.request('POST', '/api/tasks', { title: 'New', labelIds: [label.id] }))).toBe(
      LABEL_MESSAGES.notYours(label.id),
    );
    // Nothing half-written: no task was made.
    expect(await titles(bob, '/api/tasks')).toEqual(['Bob’s']);
  });

  it('a task takes a priority (4 by default) and labels, on create and on change', async () => {
    const plain = await createTask(alice, { title: 'Plain' });
    expect(plain).toMatchObject({ priority: 4, labels: [] });
    const work = await createLabel(alice, 'work', 'blue');
    const home = await createLabel(alice, 'Home', 'green');
    const task = await createTask(alice, { title: 'Both', priority: 1, labelIds: [work.id, home.id] });
    expect(task.priority).toBe(1);
    expect(task.labels).toEqual([
      { id: home.id, name: 'Home', color: 'green' },
      { id: work.id, name: 'work', color: 'blue' },
    ]);
    const changed = await ok<Task>(
      alice.request('PATCH', `/api/tasks/${plain.id}`, { priority: 2, labelIds: [work.id] }),
    );
    expect(changed).toMatchObject({ priority: 2, labels: [{ id: work.id, name: 'work', color: 'blue' }] });
    // The list (cached whole) carries them too.
    const list = await ok<Task[]>(alice.request('GET', '/api/tasks?view=summary'));
    expect(list.map((t) => [t.title, t.priority, t.labels.map((l) => l.name)])).toEqual([
      ['Both', 1, ['Home', 'work']],
      ['Plain', 2, ['work']],
    ]);
    expect(await message(alice.request('PATCH', `/api/tasks/${plain.id}`, { priority: '1' }))).toMatch(
      /^priority must be/,
    );
    for (const priority of [0, 5, 1.5]) {
      expect(await message(alice.request('PATCH', `/api/tasks/${plain.id}`, { priority }))).toBe(
        'priority must be 1 (urgent), 2, 3 or 4 (none)',
      );
    }
    const many = await Promise.all(Array.from({ length: 21 }, (_, i) => createLabel(alice, `l${i}`)));
    expect(
      await message(alice.request('PATCH', `/api/tasks/${plain.id}`, { labelIds: many.map((l) => l.id) })),
    ).toBe(LABEL_MESSAGES.tooMany);
    // Nothing half-written.
    expect((await ok<Task>(alice.request('GET', `/api/tasks/${plain.id}`))).labels).toHaveLength(1);
    expect(
      (await ok<Task>(alice.request('PATCH', `/api/tasks/${plain.id}`, { labelIds: [] }))).labels,
    ).toEqual([]);
  });

  it('renaming, recolouring and deleting a label shows on every task, cached lists included', async () => {
    const label = await createLabel(alice, 'soon', 'red');
    const task = await createTask(alice, { title: 'Tagged', labelIds: [label.id] });
    expect((await ok<Task[]>(alice.request('GET', '/api/tasks')))[0]!.labels[0]!.name).toBe('soon');
    await ok(alice.request('PATCH', `/api/labels/${label.id}`, { name: 'Later', color: 'grey' }));
    expect((await ok<Task[]>(alice.request('GET', '/api/tasks')))[0]!.labels).toEqual([
      { id: label.id, name: 'Later', color: 'grey' },
    ]);
    await ok(alice.request('DELETE', `/api/labels/${label.id}`), 204);
    expect((await ok<Task[]>(alice.request('GET', '/api/tasks')))[0]!.labels).toEqual([]);
    expect((await ok<Task>(alice.request('GET', `/api/tasks/${task.id}`))).labels).toEqual([]);
  });

  it('in a shared project: each tags with their own labels, everyone sees all, editors and up only', async () => {
    const team = await signUpTeam(t);
    const projectId = await shareProject(team);
    const task = await createTask(team.owner, { title: 'Shared', projectId });
    const ownerLabel = await createLabel(team.owner, 'design', 'pink');
    const editorLabel = await createLabel(team.editor, 'backend', 'indigo');
    await ok(team.owner.request('PATCH', `/api/tasks/${task.id}`, { labelIds: [ownerLabel.id] }));
    await ok(team.editor.request('PATCH', `/api/tasks/${task.id}`, { labelIds: [editorLabel.id] }));
    const names = async (user: TestUser) =>
      (await ok<Task>(user.request('GET', `/api/tasks/${task.id}`))).labels.map((l) => l.name);
    // The editor's change left the owner's label alone.
    expect(await names(team.viewer)).toEqual(['backend', 'design']);
    expect(await titles(team.viewer, `/api/tasks?projectId=${projectId}&label=DESIGN&label=backend`)).toEqual(
      ['Shared'],
    );
    // Clearing one's own labels leaves the others'.
    await ok(team.owner.request('PATCH', `/api/tasks/${task.id}`, { labelIds: [] }));
    expect(await names(team.commenter)).toEqual(['backend']);
    const viewerLabel = await createLabel(team.viewer, 'mine');
    for (const [caller, body] of [
      [team.viewer, { labelIds: [viewerLabel.id] }],
      [team.commenter, { priority: 1 }],
    ] as const) {
      const refused = await caller.request('PATCH', `/api/tasks/${task.id}`, body);
      expect([refused.statusCode, refused.json()]).toEqual([403, { message: ACCESS_MESSAGES.editor }]);
    }
    expect((await team['non-member'].request('GET', `/api/tasks/${task.id}`)).statusCode).toBe(404);
  });

  it('filters by priority and labels (all must match), combined with the other filters', async () => {
    const work = await createLabel(alice, 'work');
    const home = await createLabel(alice, 'home');
    await createTask(alice, { title: 'Report', priority: 1, labelIds: [work.id] });
    await createTask(alice, { title: 'Report draft', priority: 3, labelIds: [work.id, home.id] });
    await createTask(alice, { title: 'Dishes', priority: 2, labelIds: [home.id] });
    await createTask(alice, { title: 'Someday' });
    expect(await titles(alice, '/api/tasks?priority=1,2')).toEqual(['Dishes', 'Report']);
    expect(await titles(alice, '/api/tasks?priority=4')).toEqual(['Someday']);
    expect(await titles(alice, '/api/tasks?label=work')).toEqual(['Report draft', 'Report']);
    expect(await titles(alice, '/api/tasks?label=work&label=HOME')).toEqual(['Report draft']);
    expect(await titles(alice, '/api/tasks?label=work&priority=3,4')).toEqual(['Report draft']);
    expect(await titles(alice, '/api/tasks?label=home&q=report')).toEqual(['Report draft']);
    expect(await titles(alice, '/api/tasks?label=nothing')).toEqual([]);
    expect(await titles(alice, '/api/tasks?label=&priority=')).toHaveLength(4);
    expect(await titles(alice, '/api/tasks?projectId=all&label=home&sort=title')).toEqual([
      'Dishes',
      'Report draft',
    ]);
    expect(await message(alice.request('GET', '/api/tasks?priority=0'))).toMatch(/^priority must list/);
    expect(await message(alice.request('GET', '/api/tasks?priority=1;2'))).toMatch(/^priority must list/);
    expect((await alice.request('GET', `/api/tasks?label=${'x'.repeat(51)}`)).statusCode).toBe(400);
    expect(await message(alice.request('GET', '/api/tasks?sort=random'))).toBe(
      'sort must be one of manual, due, priority, created, title',
    );
    // Bob's labels of the same name are not on Alice's tasks, and her tasks are not his.
    await createLabel(bob, 'work');
    expect(await titles(bob, '/api/tasks?label=work')).toEqual([]);
  });

  it("tells the person's open browsers when their labels and filters change, and the projects' members when a label on their tasks does", async () => {
    const publish = vi.spyOn(t.ctx.live, 'publish');
    const label = await createLabel(alice, 'live');
    expect(publish).toHaveBeenCalledWith(alice.user.id, ['/api/labels']);
    await createTask(alice, { title: 'Tagged', labelIds: [label.id] });
    publish.mockClear();
    await ok(alice.request('PATCH', `/api/labels/${label.id}`, { color: 'pink' }));
    expect(publish).toHaveBeenCalledWith(alice.user.id, ['/api/labels']);
    expect(publish.mock.calls.some(([, keys]) => keys.includes('/api/tasks'))).toBe(true);
    await ok(alice.request('POST', '/api/filters', { name: 'Mine', query: 'label=live' }), 201);
    expect(publish).toHaveBeenCalledWith(alice.user.id, ['/api/filters']);
  });

  it('sorts by manual order, due date, priority, creation and title', async () => {
    const a = await createTask(alice, { title: 'banana', dueDate: '2030-05-02', priority: 3 });
    await createTask(alice, { title: 'Apple', priority: 1 });
    await createTask(alice, { title: 'cherry', dueDate: '2030-05-01', dueTime: '09:00', priority: 2 });
    await createTask(alice, { title: 'date', dueDate: '2030-05-01' });
    // Manual is the list's own order: the last created on top, unless moved.
    await ok(alice.request('POST', `/api/tasks/${a.id}/move`, { afterId: null }));
    expect(await titles(alice, '/api/tasks')).toEqual(['banana', 'date', 'cherry', 'Apple']);
    expect(await titles(alice, '/api/tasks?sort=manual')).toEqual(['banana', 'date', 'cherry', 'Apple']);
    expect(await titles(alice, '/api/tasks?sort=due')).toEqual(['date', 'cherry', 'banana', 'Apple']);
    expect(await titles(alice, '/api/tasks?sort=priority')).toEqual(['Apple', 'cherry', 'banana', 'date']);
    expect(await titles(alice, '/api/tasks?sort=created')).toEqual(['date', 'cherry', 'Apple', 'banana']);
    expect(await titles(alice, '/api/tasks?sort=title')).toEqual(['Apple', 'banana', 'cherry', 'date']);
    // The archive sorts too.
    for (const task of await ok<Task[]>(alice.request('GET', '/api/tasks'))) {
      await ok(alice.request('PATCH', `/api/tasks/${task.id}`, { completed: true }));
    }
    expect(await titles(alice, '/api/tasks/archived?sort=title')).toEqual([
      'Apple',
      'banana',
      'cherry',
      'date',
    ]);
    expect(await titles(alice, '/api/tasks/archived?sort=priority&priority=1,2')).toEqual([
      'Apple',
      'cherry',
    ]);
  });

  it('saved filters: create, list, change, delete; the query is checked like the address', async () => {
    const saved = await ok<SavedFilter>(
      alice.request('POST', '/api/filters', {
        name: ' Urgent work ',
        query: '?priority=1,2&label=work&sort=due',
      }),
      201,
    );
    expect(saved).toMatchObject({ name: 'Urgent work', query: 'priority=1,2&label=work&sort=due' });
    const refused = await alice.request('POST', '/api/filters', { name: 'Bad', query: 'sort=random' });
    expect([refused.statusCode, refused.json()]).toEqual([
      400,
      { message: 'query: sort must be one of manual, due, priority, created, title' },
    ]);
    expect(await message(alice.request('POST', '/api/filters', { name: 'Bad', query: 'x=1' }))).toBe(
      "query: 'x' is not a filter of the task list",
    );
    expect(await message(alice.request('POST', '/api/filters', { name: '', query: 'priority=1' }))).toBe(
      LABEL_MESSAGES.filterNameRequired,
    );
    expect(await message(alice.request('POST', '/api/filters', { name: 'No query' }))).toBe(
      LABEL_MESSAGES.queryRequired,
    );
    // A window that ends before it starts, as GET /api/tasks refuses it.
    const reversed = 'dueFrom=2026-12-10&dueTo=2026-12-01';
    expect(await message(alice.request('GET', `/api/tasks?${reversed}`))).toBe(
      TASK_MESSAGES.dueWindowReversed,
    );
    expect(await message(alice.request('POST', '/api/filters', { name: 'Bad', query: reversed }))).toBe(
      `query: ${TASK_MESSAGES.dueWindowReversed}`,
    );
    const changed = await ok<SavedFilter>(
      alice.request('PATCH', `/api/filters/${saved.id}`, { query: 'label=work&label=home' }),
    );
    expect(changed).toMatchObject({ name: 'Urgent work', query: 'label=work&label=home' });
    expect(
      (await alice.request('PATCH', `/api/filters/${saved.id}`, { query: 'priority=9' })).statusCode,
    ).toBe(400);
    expect(await message(alice.request('PATCH', `/api/filters/${saved.id}`, { query: reversed }))).toBe(
      `query: ${TASK_MESSAGES.dueWindowReversed}`,
    );
    expect((await ok<SavedFilter[]>(alice.request('GET', '/api/filters'))).map((f) => f.query)).toEqual([
      'label=work&label=home',
    ]);
    // What it holds opens the list it names.
    const work = await createLabel(alice, 'work');
    const home = await createLabel(alice, 'home');
    await createTask(alice, { title: 'Both', labelIds: [work.id, home.id] });
    await createTask(alice, { title: 'One', labelIds: [work.id] });
    expect(await titles(alice, `/api/tasks?${changed.query}`)).toEqual(['Both']);
    await ok(alice.request('DELETE', `/api/filters/${saved.id}`), 204);
    expect(await ok<SavedFilter[]>(alice.request('GET', '/api/filters'))).toEqual([]);
  });
});
