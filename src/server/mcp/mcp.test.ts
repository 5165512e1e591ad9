import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { taskActivityPath } from '../../common/activity';
import type { Agent } from '../../common/agents';
import type { ChecklistItem } from '../../common/checklist';
import { PROJECTS_PATH, type Project } from '../../common/projects';
import { RELATION_MESSAGES, type Relation } from '../../common/relations';
import { ARCHIVED_TASKS_PATH, TASK_MESSAGES, TASKS_PATH, type Task, taskPath } from '../../common/tasks';
import type { CreatedToken } from '../../common/tokens';
import { SECURITY_HEADERS } from '../http/security';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { MCP_PATH } from './routes';
import { MCP_TOOL_NAMES } from './tools';

/** YYYY-MM-DD of a day `offset` days from today, in the server's local time (the due filters use it). */
function localDate(offset = 0): string {
  const date = new Date();
  date.setDate(date.getDate() + offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

const textOf = (result: unknown): string =>
  ((result as CallToolResult).content ?? [])
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n');

describe.each(testDialects)('the MCP endpoint on %s', (dialect) => {
  let t: TestApp;
  let url: URL;
  let alice: TestUser;
  let bob: TestUser;
  let aliceToken: string;
  let client: Client;
  const clients: Client[] = [];

  async function mint(user: TestUser): Promise<CreatedToken> {
    const response = await user.request('POST', '/api/tokens', { name: 'mcp' });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as CreatedToken;
  }

  async function connect(token?: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
    });
    const connected = new Client({ name: 'tasklane-test', version: '1.0.0' });
    clients.push(connected);
    await connected.connect(transport);
    return connected;
  }

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = new URL(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}${MCP_PATH}`);
    alice = await t.signUp();
    bob = await t.signUp();
    aliceToken = (await mint(alice)).token;
    client = await connect(aliceToken);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await t.close();
  });

  it('lists the tools, each with an input schema from the API’s', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description, tool.name).toBeTruthy();
    }
    const schema = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema;
    expect(Object.keys(schema('list_tasks').properties ?? {}).sort()).toEqual([
      'agentId',
      'assignee',
      'due',
      // Issue 23's due window, from the API's own query schema.
      'dueFrom',
      'dueTo',
      'hasFiles',
      'label',
      // Issue 29: a task's direct sub-tasks.
      'parentId',
      'priority',
      'projectId',
      'q',
      'sort',
    ]);
    expect(schema('list_tasks').properties?.due).toMatchObject({
      enum: ['overdue', 'today', 'week', 'none'],
    });
    expect(schema('list_tasks').properties?.assignee).toMatchObject({ enum: ['me', 'me_or_unassigned'] });
    expect(schema('create_task').required).toEqual(['title']);
    expect(schema('create_task').properties?.title).toMatchObject({ type: 'string', maxLength: 200 });
    expect(Object.keys(schema('create_task').properties ?? {}).sort()).toEqual([
      'agentId',
      'description',
      'dueDate',
      'dueTime',
      'labelIds',
      'parentId',
      'priority',
      'projectId',
      'recurrence',
      'recurrenceFrom',
      'title',
    ]);
    expect(Object.keys(schema('update_task').properties ?? {})).toEqual(
      expect.arrayContaining([
        'taskId',
        'title',
        'description',
        'notes',
        'dueDate',
        'completed',
        'projectId',
        'assigneeIds',
        'parentId',
      ]),
    );
    expect(schema('update_task').required).toEqual(['taskId']);
    expect(schema('complete_task').required).toEqual(['taskId']);
    expect(schema('get_task').required).toEqual(['taskId']);
    expect(schema('add_checklist_item').required?.sort()).toEqual(['taskId', 'title']);
    expect(schema('add_relation').required?.sort()).toEqual(['kind', 'otherTaskId', 'taskId']);
    expect(schema('add_relation').properties?.kind).toMatchObject({
      enum: ['blocks', 'blocked_by', 'relates_to', 'duplicate_of', 'duplicated_by'],
    });
  });

  it('creates and moves sub-tasks with parentId, and get_task answers them (issue 29)', async () => {
    const parent = (await alice.request('POST', TASKS_PATH, { title: 'Plan trip' })).json() as Task;
    const created = await call('create_task', { title: 'Book flights', parentId: parent.id });
    expect(created.isError, textOf(created)).toBeFalsy();
    const flights = Number(/^Created task (\d+)/.exec(textOf(created))?.[1]);
    expect((await alice.request('GET', taskPath(flights))).json()).toMatchObject({ parentId: parent.id });
    const hotel = (await alice.request('POST', TASKS_PATH, { title: 'Book hotel' })).json() as Task;
    const moved = await call('update_task', { taskId: hotel.id, parentId: parent.id });
    expect(moved.isError, textOf(moved)).toBeFalsy();
    expect((await alice.request('GET', taskPath(hotel.id))).json()).toMatchObject({ parentId: parent.id });
    await alice.request('PATCH', taskPath(hotel.id), { completed: true });

    const details = textOf(await call('get_task', { taskId: parent.id }));
    expect(details).toContain('Parent: none (top-level)');
    expect(details).toContain('Sub-tasks (1/2 done):');
    expect(details).toContain(`- [ ] #${flights} "Book flights"`);
    expect(details).toContain(`- [x] #${hotel.id} "Book hotel"`);
    expect(textOf(await call('get_task', { taskId: flights }))).toContain(`Parent: #${parent.id}`);

    const loop = await call('update_task', { taskId: parent.id, parentId: flights });
    expect(loop.isError).toBe(true);
    expect(textOf(loop)).toBe(TASK_MESSAGES.parentLoop);
    const topLevel = await call('update_task', { taskId: hotel.id, parentId: null });
    expect(topLevel.isError, textOf(topLevel)).toBeFalsy();
    expect((await alice.request('GET', taskPath(hotel.id))).json()).toMatchObject({ parentId: null });
  });

  it('adds a relation, which get_task answers from both sides; its refusals are isError (issue 29)', async () => {
    const [report, figures] = [
      (await alice.request('POST', TASKS_PATH, { title: 'Write report' })).json() as Task,
      (await alice.request('POST', TASKS_PATH, { title: 'Get figures' })).json() as Task,
    ];
    const added = await call('add_relation', {
      taskId: report.id,
      kind: 'blocked_by',
      otherTaskId: figures.id,
    });
    expect(added.isError, textOf(added)).toBeFalsy();
    const [relation] = (await alice.request('GET', `${taskPath(report.id)}/relations`)).json() as Relation[];
    expect(relation).toMatchObject({ kind: 'blocked_by', otherTaskId: figures.id });
    expect(textOf(added)).toBe(
      `Added to task ${report.id} "Write report": Blocked by #${figures.id} "Get figures" (relation ${relation!.id})`,
    );
    expect(textOf(await call('get_task', { taskId: report.id }))).toContain(
      `Dependencies:\n- Blocked by #${figures.id} "Get figures" (relation ${relation!.id})`,
    );
    expect(textOf(await call('get_task', { taskId: figures.id }))).toContain(
      `- Blocks #${report.id} "Write report" (relation ${relation!.id})`,
    );

    const again = await call('add_relation', { taskId: figures.id, kind: 'blocks', otherTaskId: report.id });
    expect([again.isError, textOf(again)]).toEqual([true, RELATION_MESSAGES.duplicate]);
    const loop = await call('add_relation', { taskId: report.id, kind: 'blocks', otherTaskId: figures.id });
    expect([loop.isError, textOf(loop)]).toEqual([true, RELATION_MESSAGES.loop]);
    const self = await call('add_relation', {
      taskId: report.id,
      kind: 'relates_to',
      otherTaskId: report.id,
    });
    expect([self.isError, textOf(self)]).toEqual([true, RELATION_MESSAGES.self]);
    const unknown = await call('add_relation', {
      taskId: report.id,
      kind: 'follows',
      otherTaskId: figures.id,
    });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('kind');
    const bobs = (await bob.request('POST', TASKS_PATH, { title: 'Private' })).json() as Task;
    const hidden = await call('add_relation', {
      taskId: report.id,
      kind: 'relates_to',
      otherTaskId: bobs.id,
    });
    expect([hidden.isError, textOf(hidden)]).toEqual([true, 'Task not found']);
  });

  it('creates a task and completes it, which the REST API then shows, publishing live updates', async () => {
    const publish = vi.spyOn(t.ctx.live, 'publish');
    const created = await call('create_task', { title: '  Buy milk ', dueDate: localDate(1) });
    expect(created.isError).toBeFalsy();
    const match = /^Created task (\d+) "Buy milk"/.exec(textOf(created));
    expect(match, textOf(created)).not.toBeNull();
    const id = Number(match![1]);
    expect(publish).toHaveBeenCalledWith([alice.user.id], expect.arrayContaining([TASKS_PATH]), [
      alice.inboxId,
    ]);

    const fromApi = (await alice.request('GET', taskPath(id))).json() as Task;
    expect(fromApi).toMatchObject({ title: 'Buy milk', dueDate: localDate(1), completed: false });

    const completed = await call('complete_task', { taskId: id });
    expect(completed.isError).toBeFalsy();
    expect(textOf(completed)).toBe(`Completed task ${id} "Buy milk"`);
    expect(((await alice.request('GET', taskPath(id))).json() as Task).completed).toBe(true);
    expect(publish).toHaveBeenCalledWith([alice.user.id], expect.arrayContaining([taskPath(id)]), [
      alice.inboxId,
    ]);
  });

  it('creates a recurring timed task and completes it: it moves to its next date; final: true ends it (issue 22)', async () => {
    const created = await call('create_task', {
      title: 'Stand-up',
      dueDate: '2099-01-05',
      dueTime: '09:00',
      recurrence: 'FREQ=WEEKLY;BYDAY=MO',
    });
    expect(created.isError, textOf(created)).toBeFalsy();
    expect(textOf(created)).toContain('due 2099-01-05 09:00 UTC');
    expect(textOf(created)).toContain('repeats Every Monday');
    const id = Number(/^Created task (\d+)/.exec(textOf(created))![1]);
    const details = textOf(await call('get_task', { taskId: id }));
    expect(details).toContain('Repeats: Every Monday (RRULE FREQ=WEEKLY;BYDAY=MO');
    const next = await call('complete_task', { taskId: id });
    expect(textOf(next)).toBe(`Completed task ${id} "Stand-up"; next due 2099-01-12 09:00`);
    expect((await alice.request('GET', taskPath(id))).json()).toMatchObject({
      dueDate: '2099-01-12',
      archived: false,
    });
    const final = await call('complete_task', { taskId: id, final: true });
    expect(textOf(final)).toBe(`Completed task ${id} "Stand-up"`);
    expect((await alice.request('GET', taskPath(id))).json()).toMatchObject({
      archived: true,
      recurrence: null,
    });
    const bad = await call('update_task', { taskId: id, recurrence: 'FREQ=SOMETIMES' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('recurrence');
  });

  it('completes a task as the app does: archived, out of the list, in the archive, with the same live event (issue 20)', async () => {
    const newTask = async (title: string) =>
      ((await alice.request('POST', TASKS_PATH, { title })).json() as Task).id;
    const listIds = async (path: string) =>
      ((await alice.request('GET', path)).json() as Task[]).map((x) => x.id);
    const viaApp = await newTask('Done in the app');
    const viaComplete = await newTask('Done over MCP');
    const viaUpdate = await newTask('Done over MCP by update');
    const publish = vi.spyOn(t.ctx.live, 'publish');
    /** What the completion published, with the task's own path named alike. */
    const eventsOf = async (id: number, complete: () => Promise<unknown>) => {
      publish.mockClear();
      await complete();
      return publish.mock.calls.map(([user, paths]) => [
        user,
        paths.map((p) => (p === taskPath(id) ? 'task' : p === taskActivityPath(id) ? 'activity' : p)),
      ]);
    };

    // The app completes with PATCH {completed: true, archived: true}.
    const appEvents = await eventsOf(viaApp, () =>
      alice.request('PATCH', taskPath(viaApp), { completed: true, archived: true }),
    );
    expect(appEvents).toEqual([
      [[alice.user.id], [TASKS_PATH, ARCHIVED_TASKS_PATH, PROJECTS_PATH, 'task', 'activity']],
    ]);
    const completeEvents = await eventsOf(viaComplete, async () => {
      const result = await call('complete_task', { taskId: viaComplete });
      expect(result.isError, textOf(result)).toBeFalsy();
    });
    expect(completeEvents).toEqual(appEvents);
    const updateEvents = await eventsOf(viaUpdate, async () => {
      const result = await call('update_task', { taskId: viaUpdate, completed: true });
      expect(result.isError, textOf(result)).toBeFalsy();
    });
    expect(updateEvents).toEqual(appEvents);

    for (const id of [viaApp, viaComplete, viaUpdate]) {
      expect((await alice.request('GET', taskPath(id))).json()).toMatchObject({
        completed: true,
        archived: true,
        archivedAt: expect.any(String),
      });
    }
    const active = await listIds(TASKS_PATH);
    const archived = await listIds(ARCHIVED_TASKS_PATH);
    for (const id of [viaApp, viaComplete, viaUpdate]) {
      expect(active).not.toContain(id);
      expect(archived).toContain(id);
    }
    const listed = textOf(await call('list_tasks'));
    for (const id of [viaComplete, viaUpdate]) expect(listed).not.toContain(`#${id} `);

    // Reopened over MCP: back in the list, out of the archive.
    const reopened = await call('update_task', { taskId: viaComplete, completed: false });
    expect(reopened.isError, textOf(reopened)).toBeFalsy();
    expect(await listIds(TASKS_PATH)).toContain(viaComplete);
    expect(await listIds(ARCHIVED_TASKS_PATH)).not.toContain(viaComplete);
  });

  it('lists tasks one line each, filtered by q and due', async () => {
    const overdue = (
      await alice.request('POST', TASKS_PATH, {
        title: 'Pay the gas bill',
        dueDate: localDate(-3),
      })
    ).json() as Task;
    const today = (
      await alice.request('POST', TASKS_PATH, {
        title: 'Water the plants',
        dueDate: localDate(),
      })
    ).json() as Task;
    const undated = (await alice.request('POST', TASKS_PATH, { title: 'Read a book' })).json() as Task;
    await bob.request('POST', TASKS_PATH, { title: 'Pay the water bill' });

    const all = textOf(await call('list_tasks')).split('\n');
    expect(all).toContain(`#${overdue.id} "Pay the gas bill" · due ${localDate(-3)} · not done`);
    expect(all).toContain(`#${undated.id} "Read a book" · no due date · not done`);
    expect(all.join('\n')).not.toContain('Pay the water bill');

    const searched = await call('list_tasks', { q: 'gas' });
    expect(textOf(searched)).toBe(`#${overdue.id} "Pay the gas bill" · due ${localDate(-3)} · not done`);

    const dueToday = textOf(await call('list_tasks', { due: 'today' }));
    expect(dueToday).toBe(`#${today.id} "Water the plants" · due ${localDate()} · not done`);
    expect(textOf(await call('list_tasks', { due: 'overdue' }))).toContain(`#${overdue.id} `);
    expect(textOf(await call('list_tasks', { q: 'plants', due: 'overdue' }))).toBe('No tasks found.');
    expect(textOf(await call('list_tasks', { hasFiles: true }))).toBe('No tasks found.');
    expect(textOf(await call('list_tasks', { q: 'book', hasFiles: 'false' }))).toContain(`#${undated.id} `);

    const bad = await call('list_tasks', { due: 'someday' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('due must be one of overdue, today, week, none');
    const reversed = await call('list_tasks', { dueFrom: '2026-12-10', dueTo: '2026-12-01' });
    expect(reversed.isError).toBe(true);
    expect(textOf(reversed)).toContain(TASK_MESSAGES.dueWindowReversed);
  });

  it('gets a task, updates it and adds checklist items', async () => {
    const task = (
      await alice.request('POST', TASKS_PATH, {
        title: 'Move house',
        description: 'Before June',
      })
    ).json() as Task;

    const updated = await call('update_task', {
      taskId: task.id,
      title: 'Move flat',
      notes: 'Ask Sam for the van',
      dueDate: '2030-05-01',
    });
    expect(updated.isError).toBeFalsy();
    expect(textOf(updated)).toMatch(new RegExp(`^Updated task ${task.id} "Move flat"`));
    expect((await alice.request('GET', taskPath(task.id))).json()).toMatchObject({
      title: 'Move flat',
      notes: 'Ask Sam for the van',
      dueDate: '2030-05-01',
      description: 'Before June',
    });

    const added = await call('add_checklist_item', { taskId: task.id, title: 'Buy boxes' });
    expect(added.isError).toBeFalsy();
    expect(textOf(added)).toContain(`"Buy boxes"`);
    expect(textOf(added)).toContain(`task ${task.id} "Move flat"`);
    const items = (await alice.request('GET', `${taskPath(task.id)}/checklist`)).json() as ChecklistItem[];
    expect(items.map((item) => item.title)).toEqual(['Buy boxes']);

    const details = textOf(await call('get_task', { taskId: task.id }));
    expect(details).toContain(`Task ${task.id} "Move flat"`);
    expect(details).toContain('Due: 2030-05-01');
    expect(details).toContain('Done: no');
    expect(details).toContain('Description: Before June');
    expect(details).toContain('Notes: Ask Sam for the van');
    expect(details).toContain(`- [ ] Buy boxes (item ${items[0]!.id})`);

    const reopened = await call('update_task', { taskId: task.id, completed: true, dueDate: null });
    expect(textOf(reopened)).toContain('no due date · done');
  });

  it('lists agents and attaches one to a new task', async () => {
    expect(textOf(await call('list_agents'))).toBe('You have no AI agents.');
    const agent = (
      await alice.request('POST', '/api/ai-agents', {
        title: 'Researcher',
        prompt: 'Find sources.\nCite them.',
      })
    ).json() as Agent;
    expect(textOf(await call('list_agents'))).toBe(`#${agent.id} "Researcher" · Find sources.`);

    const created = textOf(await call('create_task', { title: 'Study bees', agentId: agent.id }));
    const id = Number(/^Created task (\d+)/.exec(created)![1]);
    expect(((await alice.request('GET', taskPath(id))).json() as Task).contextId).toBe(agent.id);
    expect(textOf(await call('get_task', { taskId: id }))).toContain(`Agent: #${agent.id} "Researcher"`);
    expect(textOf(await call('list_tasks', { agentId: agent.id }))).toMatch(new RegExp(`^#${id} `));

    const bobsAgent = (await bob.request('POST', '/api/ai-agents', { title: 'Bob', prompt: 'x' })).json();
    const refused = await call('create_task', { title: 'Spy', agentId: bobsAgent.id });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('Agent not found');
  });

  it('answers bad arguments with isError naming the field', async () => {
    const badDate = await call('create_task', { title: 'Party', dueDate: '2026-02-30' });
    expect(badDate.isError).toBe(true);
    expect(textOf(badDate)).toContain('dueDate');

    const noTitle = await call('create_task', {});
    expect(noTitle.isError).toBe(true);
    expect(textOf(noTitle)).toContain('title');

    const badId = await call('get_task', { taskId: 'seven' });
    expect(badId.isError).toBe(true);
    expect(textOf(badId)).toContain('taskId');

    const unknown = await call('update_task', { taskId: 1, colour: 'red' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('colour');
  });

  it('answers another person’s task, or a missing one, with isError "Task not found"', async () => {
    const bobs = (await bob.request('POST', TASKS_PATH, { title: 'Bob’s secret' })).json() as Task;
    for (const [name, args] of [
      ['get_task', { taskId: bobs.id }],
      ['update_task', { taskId: bobs.id, title: 'Mine now' }],
      ['complete_task', { taskId: bobs.id }],
      ['add_checklist_item', { taskId: bobs.id, title: 'Snoop' }],
      ['get_task', { taskId: 2_000_000_000 }],
    ] as const) {
      const result = await call(name, args);
      expect(result.isError, name).toBe(true);
      expect(textOf(result), name).toBe('Task not found');
    }
    const untouched = (await bob.request('GET', taskPath(bobs.id))).json() as Task;
    expect(untouched).toMatchObject({ title: 'Bob’s secret', completed: false, checklist: { total: 0 } });
  });

  describe('in a shared project (issue 21): the same rules as the API for the token’s owner', () => {
    /** A project of Alice's with an editor and a viewer, a task in it, and each person's MCP client. */
    async function team() {
      const [editor, viewer, outsider] = [await t.signUp(), await t.signUp(), await t.signUp()];
      const project = (await alice.request('POST', PROJECTS_PATH, { name: 'Garden' })).json() as Project;
      for (const [person, role] of [
        [editor, 'editor'],
        [viewer, 'viewer'],
      ] as const) {
        const added = await alice.request('POST', `${PROJECTS_PATH}/${project.id}/members`, {
          user: person.user.username,
          role,
        });
        expect(added.statusCode).toBe(201);
      }
      const created = await alice.request('POST', TASKS_PATH, {
        title: 'Plant tulips',
        projectId: project.id,
      });
      const task = created.json() as Task;
      const clientOf = async (person: TestUser) => {
        const mcp = await connect((await mint(person)).token);
        return async (name: string, args: Record<string, unknown> = {}) =>
          (await mcp.callTool({ name, arguments: args })) as CallToolResult;
      };
      return {
        project,
        task,
        editor: { user: editor, call: await clientOf(editor) },
        viewer: { user: viewer, call: await clientOf(viewer) },
        outsider: { user: outsider, call: await clientOf(outsider) },
      };
    }

    it('an editor’s token lists, creates in, updates and assigns a shared project’s tasks', async () => {
      const { project, task, editor } = await team();
      const listed = await editor.call('list_tasks', { projectId: project.id });
      expect(textOf(listed)).toBe(`#${task.id} "Plant tulips" · no due date · not done`);
      // Across projects, each line names its project.
      expect(textOf(await editor.call('list_tasks', { projectId: 'all' }))).toContain(
        `#${task.id} "Plant tulips" · no due date · not done · project ${project.id}`,
      );

      const updated = await editor.call('update_task', {
        taskId: task.id,
        title: 'Plant tulips and crocuses',
        assigneeIds: [editor.user.user.id],
      });
      expect(updated.isError, textOf(updated)).toBeFalsy();
      expect((await alice.request('GET', taskPath(task.id))).json()).toMatchObject({
        title: 'Plant tulips and crocuses',
        assigneeIds: [editor.user.user.id],
      });
      const details = textOf(await call('get_task', { taskId: task.id }));
      expect(details).toContain(`Project: ${project.id}\n`);
      expect(details).toContain(`Assignees (user ids): ${editor.user.user.id}\n`);
      expect(textOf(await editor.call('list_tasks', { assignee: 'me' }))).toMatch(
        new RegExp(`^#${task.id} "Plant tulips and crocuses" .* project ${project.id}$`),
      );

      const created = await editor.call('create_task', { title: 'Buy bulbs', projectId: project.id });
      expect(created.isError, textOf(created)).toBeFalsy();
      const inProject = (
        await alice.request('GET', `${TASKS_PATH}?projectId=${project.id}`)
      ).json() as Task[];
      expect(inProject.map((x) => [x.title, x.userId])).toEqual([
        ['Buy bulbs', editor.user.user.id],
        ['Plant tulips and crocuses', alice.user.id],
      ]);
    });

    it('a viewer’s token sees but cannot change; a non-member’s sees nothing, as for a task that does not exist', async () => {
      const { project, task, viewer, outsider } = await team();
      expect(textOf(await viewer.call('list_tasks', { projectId: project.id }))).toContain(`#${task.id} `);
      for (const [name, args] of [
        ['update_task', { taskId: task.id, title: 'Viewed' }],
        ['complete_task', { taskId: task.id }],
        ['create_task', { title: 'Not mine to add', projectId: project.id }],
        ['add_relation', { taskId: task.id, kind: 'relates_to', otherTaskId: task.id }],
      ] as const) {
        const refused = await viewer.call(name, args);
        expect(refused.isError, name).toBe(true);
        expect(textOf(refused), name).toBe('Editors can change tasks in this project');
      }

      for (const [name, args] of [
        ['get_task', { taskId: task.id }],
        ['update_task', { taskId: task.id, title: 'Mine now' }],
        ['complete_task', { taskId: task.id }],
        ['add_relation', { taskId: task.id, kind: 'blocks', otherTaskId: task.id }],
      ] as const) {
        const refused = await outsider.call(name, args);
        expect(refused.isError, name).toBe(true);
        expect(textOf(refused), name).toBe('Task not found');
      }
      const listed = await outsider.call('list_tasks', { projectId: project.id });
      expect([listed.isError, textOf(listed)]).toEqual([true, 'Project not found']);
      expect(textOf(await outsider.call('list_tasks', { projectId: 'all' }))).toBe('No tasks found.');
      const created = await outsider.call('create_task', { title: 'Sneak in', projectId: project.id });
      expect([created.isError, textOf(created)]).toEqual([true, 'Project not found']);

      const untouched = (
        await alice.request('GET', `${TASKS_PATH}?projectId=${project.id}`)
      ).json() as Task[];
      expect(untouched.map((x) => [x.id, x.title, x.completed])).toEqual([[task.id, 'Plant tulips', false]]);
    });

    it('list_projects answers what GET /api/projects answers', async () => {
      const { project, viewer, outsider } = await team();
      for (const person of [viewer, outsider]) {
        const result = await person.call('list_projects');
        expect(result.isError).toBeFalsy();
        const fromApi = (await person.user.request('GET', PROJECTS_PATH)).json() as Project[];
        expect(JSON.parse(textOf(result))).toEqual(fromApi);
      }
      const viewers = JSON.parse(textOf(await viewer.call('list_projects'))) as Project[];
      expect(viewers.map((p) => [p.inbox, p.role])).toEqual([
        [true, 'owner'],
        [false, 'viewer'],
      ]);
      expect(viewers[1]).toMatchObject({ id: project.id, name: 'Garden', memberCount: 3, taskCount: 1 });
      const outsiders = JSON.parse(textOf(await outsider.call('list_projects'))) as Project[];
      expect(outsiders.map((p) => p.id)).not.toContain(project.id);
    });
  });

  describe('a token with limits (issue 24)', () => {
    async function clientWith(person: TestUser, limits: Record<string, unknown>) {
      const response = await person.request('POST', '/api/tokens', { name: 'limited', ...limits });
      expect(response.statusCode, response.body).toBe(201);
      return connect((response.json() as CreatedToken).token);
    }

    it('a read-only token lists and calls the read tools alone; a write tool is refused naming the scope', async () => {
      const reader = await clientWith(alice, { scopes: ['read'] });
      const { tools } = await reader.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['get_task', 'list_agents', 'list_tasks']);
      const before = (await alice.request('GET', TASKS_PATH)).json() as Task[];
      const listed = (await reader.callTool({ name: 'list_tasks', arguments: {} })) as CallToolResult;
      expect(listed.isError).toBeFalsy();
      for (const [name, args] of [
        ['create_task', { title: 'Read-only attempt' }],
        ['update_task', { taskId: before[0]?.id ?? 1, title: 'Nope' }],
        ['complete_task', { taskId: before[0]?.id ?? 1 }],
        ['add_checklist_item', { taskId: before[0]?.id ?? 1, title: 'Nope' }],
      ] as const) {
        await expect(reader.callTool({ name, arguments: args }), name).rejects.toThrow(
          `This token can only read: ${name} needs the 'write' scope`,
        );
      }
      expect((await alice.request('GET', TASKS_PATH)).json()).toEqual(before);
    });

    it('a read-only token’s batch calling a write tool is refused whole, naming the scope', async () => {
      const { token } = (
        await alice.request('POST', '/api/tokens', { name: 'r', scopes: ['read'] })
      ).json() as CreatedToken;
      const call = (id: number, name: string) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: { title: 'Batched' } },
      });
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify([call(1, 'list_tasks'), call(2, 'create_task')]),
      });
      expect(await response.json()).toEqual([
        {
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32600, message: 'A batch calling a write tool is refused whole.' },
        },
        {
          jsonrpc: '2.0',
          id: 2,
          error: { code: -32602, message: "This token can only read: create_task needs the 'write' scope" },
        },
      ]);
      expect(
        ((await alice.request('GET', TASKS_PATH)).json() as Task[]).map((task) => task.title),
      ).not.toContain('Batched');
    });

    it('a token limited to some projects lists, gets and changes their tasks alone', async () => {
      const carol = await t.signUp();
      const website = (await carol.request('POST', PROJECTS_PATH, { name: 'Website' })).json() as Project;
      const inInbox = (await carol.request('POST', TASKS_PATH, { title: 'Private errand' })).json() as Task;
      const onSite = (
        await carol.request('POST', TASKS_PATH, { title: 'Fix the footer', projectId: website.id })
      ).json() as Task;
      const limited = await clientWith(carol, { projectIds: [website.id] });
      const run = async (name: string, args: Record<string, unknown> = {}) =>
        (await limited.callTool({ name, arguments: args })) as CallToolResult;

      expect(textOf(await run('list_tasks', { projectId: 'all' }))).toBe(
        `#${onSite.id} "Fix the footer" · no due date · not done · project ${website.id}`,
      );
      const inbox = await run('list_tasks');
      expect([inbox.isError, textOf(inbox)]).toEqual([true, 'Project not found']);
      const hidden = await run('get_task', { taskId: inInbox.id });
      expect([hidden.isError, textOf(hidden)]).toEqual([true, 'Task not found']);
      const renamed = await run('update_task', { taskId: inInbox.id, title: 'Seen' });
      expect([renamed.isError, textOf(renamed)]).toEqual([true, 'Task not found']);
      expect((JSON.parse(textOf(await run('list_projects'))) as Project[]).map((p) => p.id)).toEqual([
        website.id,
      ]);
      const created = await run('create_task', { title: 'New page', projectId: website.id });
      expect(created.isError, textOf(created)).toBeFalsy();
      expect((await carol.request('GET', taskPath(inInbox.id))).json()).toMatchObject({
        title: 'Private errand',
      });
    });
  });

  describe('without a token that holds', () => {
    const raw = (method: string, authorization?: string, body?: string) =>
      fetch(url, {
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization ? { authorization } : {}),
        },
        body,
      });
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    });

    async function expectRefused(authorization: string | undefined) {
      for (const method of ['POST', 'GET', 'DELETE']) {
        const response = await raw(method, authorization, method === 'POST' ? initialize : undefined);
        expect(response.status, `${method} ${authorization}`).toBe(401);
        expect(response.headers.get('www-authenticate'), method).toMatch(/^Bearer\b/);
        expect((await response.json()) as unknown, method).toEqual({ message: expect.any(String) });
      }
    }

    it('answers 401 with WWW-Authenticate: Bearer to no token, garbage, a revoked or a suspended one', async () => {
      await expectRefused(undefined);
      await expectRefused('Bearer');
      await expectRefused('Bearer tl_garbage');
      await expectRefused('Basic dXNlcjpwYXNz');
      await expectRefused(`Bearer ${'x'.repeat(300)}`);

      const revoked = await mint(alice);
      expect((await alice.request('DELETE', `/api/tokens/${revoked.id}`)).statusCode).toBe(204);
      await expectRefused(`Bearer ${revoked.token}`);

      const admin = await t.signUp({ isAdmin: true });
      const carol = await t.signUp();
      const carols = await mint(carol);
      expect((await raw('POST', `Bearer ${carols.token}`, initialize)).status).toBe(200);
      expect((await admin.request('PATCH', `/api/admin/users/${carol.user.id}/suspend`)).statusCode).toBe(
        200,
      );
      await expectRefused(`Bearer ${carols.token}`);
    });

    it('refuses the SDK client’s connection', async () => {
      await expect(connect()).rejects.toThrow();
      await expect(connect('tl_garbage')).rejects.toThrow();
      const revoked = await mint(alice);
      await alice.request('DELETE', `/api/tokens/${revoked.id}`);
      await expect(connect(revoked.token)).rejects.toThrow();
    });

    it('is not fooled by a session: a signed-in session header or cookie is no token', async () => {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'user-session': alice.sessionId,
        },
        body: initialize,
      });
      expect(response.status).toBe(401);
    });
  });

  it('sends the usual security headers on every answer, the transport’s own included', async () => {
    const authorization = `Bearer ${aliceToken}`;
    const listTools = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const post = (accept: string) =>
      fetch(url, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', accept },
        body: listTools,
      });
    const listed = await post('application/json, text/event-stream');
    expect(listed.status).toBe(200);
    // The SDK's own refusal of a client that does not accept both.
    const notAcceptable = await post('text/html');
    expect(notAcceptable.status).toBe(406);
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: listTools,
    });
    expect(refused.status).toBe(401);
    const otherMethod = await fetch(url, { headers: { authorization } });
    expect(otherMethod.status).toBe(405);
    for (const response of [listed, notAcceptable, refused, otherMethod]) {
      expect(Object.fromEntries(response.headers), String(response.status)).toMatchObject(SECURITY_HEADERS);
    }
  });

  it('answers every method but POST with a token 405 and Allow: POST, and bad bodies without a 500', async () => {
    const authorization = `Bearer ${aliceToken}`;
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH', 'HEAD']) {
      const response = await fetch(url, { method, headers: { authorization } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow'), method).toBe('POST');
    }
    for (const [contentType, body] of [
      ['application/json', '{"jsonrpc": "2.0",'],
      ['application/json', 'null'],
      ['application/json', '[1,2,3]'],
      ['application/json', '"hello"'],
      ['application/json', '{}'],
      ['application/json', ''],
      ['text/plain', 'plain text'],
    ] as const) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          authorization,
          'content-type': contentType,
          accept: 'application/json, text/event-stream',
        },
        body,
      });
      expect(response.status, `${contentType} ${body}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${contentType} ${body}`).toBeLessThan(500);
    }
  });
});
