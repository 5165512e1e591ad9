import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ActivityEntry, taskActivityPath } from '../../common/activity';
import type { AdminUserListItem } from '../../common/admin';
import type { Agent } from '../../common/agents';
import { type AiProposal, type AiRun, aiRunsPath } from '../../common/ai-runs';
import type { ChecklistItem } from '../../common/checklist';
import type { Project } from '../../common/projects';
import type { Task } from '../../common/tasks';
import { ACCESS_MESSAGES } from '../access';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { type FakeProvider, type FakeToolCall, startFakeProvider } from '../testing/fake-provider';

/** Issue 14: runs kept with their usage; proposals the person applies or dismisses. */
describe.each(testDialects)('AI runs and proposals on %s', (dialect) => {
  let fake: FakeProvider;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    fake = await startFakeProvider();
  });
  afterAll(() => fake.close());
  afterEach(async () => {
    fake.reset();
    for (const app of apps.splice(0)) await app.close();
  });

  async function start(env: Record<string, string> = {}) {
    const t = await createTestApp(dialect, {
      env: { OPENAI_API_KEY: 'server-key', OPENAI_BASE_URL: fake.baseUrl, AI_TIMEOUT_MS: '3000', ...env },
    });
    apps.push(t);
    return t;
  }

  const call = (name: string, args: unknown): FakeToolCall => ({
    name,
    arguments: typeof args === 'string' ? args : JSON.stringify(args),
  });
  const createTask = async (user: TestUser, body: Record<string, unknown> = {}) => {
    const response = await user.request('POST', '/api/tasks', { title: 'Plan the move', ...body });
    expect(response.statusCode).toBe(201);
    return response.json() as Task;
  };
  const getTask = async (user: TestUser, id: number) =>
    (await user.request('GET', `/api/tasks/${id}`)).json() as Task;
  const runsOf = async (user: TestUser, taskId: number) => {
    const response = await user.request('GET', `/api/tasks/${taskId}/ai-runs`);
    expect(response.statusCode).toBe(200);
    return response.json() as AiRun[];
  };
  const run = async (user: TestUser, task: Task, stream = true) => {
    const response = await user.request('POST', `/api/ai/execute${stream ? '?stream=1' : ''}`, {
      taskId: task.id,
    });
    expect(response.statusCode).toBe(200);
    const [latest] = await runsOf(user, task.id);
    return latest!;
  };
  const activityOf = async (user: TestUser, taskId: number) => {
    const response = await user.request('GET', taskActivityPath(taskId));
    expect(response.statusCode).toBe(200);
    return response.json() as ActivityEntry[];
  };
  const apply = (user: TestUser, proposal: AiProposal) =>
    user.request('POST', `/api/ai/proposals/${proposal.id}/apply`);
  const dismiss = (user: TestUser, proposal: AiProposal) =>
    user.request('POST', `/api/ai/proposals/${proposal.id}/dismiss`);

  it('keeps each run newest first with its model, usage and the proposals the model made', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    fake.behaviour.toolCalls = [
      call('set_due_date', { dueDate: '2027-08-13' }),
      call('add_checklist_items', { items: ['Book the van', ' Pack the kitchen '] }),
    ];
    fake.behaviour.usage = { prompt_tokens: 120, completion_tokens: 30 };
    const first = await run(alice, task);
    // The model was offered every tool, with the API's own schemas, and asked for usage.
    const sent = fake.requests[0]!.body;
    expect(sent.tools!.map((tool) => tool.function.name)).toEqual([
      'set_due_date',
      'rename_task',
      'add_checklist_items',
      'create_tasks',
      'create_subtasks',
      'append_notes',
    ]);
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect(first).toMatchObject({
      agentId: null,
      agentTitle: null,
      model: 'gpt-4o-mini',
      status: 'done',
      error: null,
      inputTokens: 120,
      outputTokens: 30,
      notes: [],
    });
    expect(first.durationMs).toBeGreaterThanOrEqual(0);
    expect(
      first.proposals.map(({ tool, arguments: args, status, error }) => ({ tool, args, status, error })),
    ).toEqual([
      { tool: 'set_due_date', args: { dueDate: '2027-08-13' }, status: 'pending', error: null },
      {
        tool: 'add_checklist_items',
        args: { items: ['Book the van', 'Pack the kitchen'] },
        status: 'pending',
        error: null,
      },
    ]);
    // The draft is stored as before; the task itself is unchanged until the person applies.
    expect(await getTask(alice, task.id)).toMatchObject({ aiDraft: 'Here is the draft.', dueDate: null });

    fake.behaviour.toolCalls = [];
    const second = await run(alice, task, false);
    expect((await runsOf(alice, task.id)).map((r) => r.id)).toEqual([second.id, first.id]);
    expect(second.proposals).toEqual([]);
  });

  it('applies each kind of proposal exactly once, as an ordinary edit', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice, { description: 'Boxes and a van' });
    await alice.request('PATCH', `/api/tasks/${task.id}`, { notes: 'Start early.' });
    fake.behaviour.toolCalls = [
      call('set_due_date', { dueDate: '2027-08-13' }),
      call('rename_task', { title: 'Move to the new flat' }),
      call('add_checklist_items', { items: ['Book the van', 'Pack the kitchen'] }),
      call('create_tasks', {
        tasks: [{ title: 'Buy boxes' }, { title: 'Cancel the internet', dueDate: '2027-08-01' }],
      }),
      call('append_notes', { text: 'Ask Sam to help.' }),
    ];
    const { proposals } = await run(alice, task);
    for (const proposal of proposals) {
      const applied = await apply(alice, proposal);
      expect(applied.statusCode, proposal.tool).toBe(200);
      expect(applied.json()).toMatchObject({ id: proposal.id, status: 'applied' });
      // A second apply (another tab, a double click) changes nothing.
      const again = await apply(alice, proposal);
      expect(again.statusCode, proposal.tool).toBe(409);
      expect(again.json().message).toBe('This proposal has already been applied.');
    }
    expect(await getTask(alice, task.id)).toMatchObject({
      title: 'Move to the new flat',
      dueDate: '2027-08-13',
      notes: 'Start early.\n\nAsk Sam to help.',
      checklist: { done: 0, total: 2 },
    });
    const items = (await alice.request('GET', `/api/tasks/${task.id}/checklist`)).json() as ChecklistItem[];
    expect(items.map((item) => item.title)).toEqual(['Book the van', 'Pack the kitchen']);
    // Split: the new tasks go on top in order, and the original stays.
    const list = (await alice.request('GET', '/api/tasks')).json() as Task[];
    expect(list.map((item) => item.title)).toEqual([
      'Buy boxes',
      'Cancel the internet',
      'Move to the new flat',
    ]);
    expect(list[1]!.dueDate).toBe('2027-08-01');
    expect((await runsOf(alice, task.id))[0]!.proposals.map((p) => p.status)).toEqual(
      Array(5).fill('applied'),
    );
    // Each in the task's activity, whichever feature made the change.
    const applied = (await activityOf(alice, task.id)).filter((entry) => entry.kind === 'proposal_applied');
    expect(applied.map((entry) => entry.data)).toEqual(Array(5).fill({ runId: proposals[0]!.runId }));
  });

  it("applies create_subtasks as the task's sub-tasks, in order, not beside it (issue 29)", async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice, { title: 'Plan trip' });
    const existing = await createTask(alice, { title: 'Choose dates', parentId: task.id });
    fake.behaviour.toolCalls = [
      call('create_subtasks', {
        tasks: [
          { title: ' Book flights ' },
          { title: 'Book hotel', dueDate: '2027-08-01', description: 'Near' },
        ],
      }),
      call('create_subtasks', { tasks: [] }),
    ];
    const { proposals } = await run(alice, task);
    // The model was told what the tool does; its arguments are checked with the API's schemas.
    const offered = fake.requests[0]!.body.tools!.find((tool) => tool.function.name === 'create_subtasks');
    expect((offered!.function as { description?: string }).description).toMatch(/sub-tasks/);
    expect(
      proposals.map(({ tool, arguments: args, status, error }) => ({ tool, args, status, error })),
    ).toEqual([
      {
        tool: 'create_subtasks',
        args: {
          tasks: [
            { title: 'Book flights', description: null, dueDate: null },
            { title: 'Book hotel', description: 'Near', dueDate: '2027-08-01' },
          ],
        },
        status: 'pending',
        error: null,
      },
      {
        tool: 'create_subtasks',
        args: { tasks: [] },
        status: 'invalid',
        error: 'tasks must list at least one task',
      },
    ]);
    const applied = await apply(alice, proposals[0]!);
    expect(applied.statusCode, applied.body).toBe(200);
    expect((await apply(alice, proposals[0]!)).statusCode).toBe(409);
    const children = (await alice.request('GET', `/api/tasks?parentId=${task.id}`)).json() as Task[];
    expect(children.map((child) => [child.title, child.parentId, child.dueDate])).toEqual([
      ['Choose dates', task.id, null],
      ['Book flights', task.id, null],
      ['Book hotel', task.id, '2027-08-01'],
    ]);
    expect(children[0]!.id).toBe(existing.id);
    expect(await getTask(alice, task.id)).toMatchObject({
      title: 'Plan trip',
      subtasks: { done: 0, total: 3 },
    });
    // No sibling was made: every task of the list is the task or one of its sub-tasks.
    const list = (await alice.request('GET', '/api/tasks')).json() as Task[];
    expect(list.filter((item) => item.parentId === null).map((item) => item.title)).toEqual(['Plan trip']);
    const activity = await activityOf(alice, task.id);
    expect(activity.filter((entry) => entry.kind === 'proposal_applied').map((entry) => entry.data)).toEqual([
      { runId: proposals[0]!.runId },
    ]);
  });

  it('keeps a create_subtasks proposal pending when the task is too deep to take sub-tasks', async () => {
    const t = await start();
    const alice = await t.signUp();
    let deepest = await createTask(alice, { title: 'Top' });
    for (let level = 1; level <= 4; level++)
      deepest = await createTask(alice, { title: `Level ${level}`, parentId: deepest.id });
    fake.behaviour.toolCalls = [call('create_subtasks', { tasks: [{ title: 'Too deep' }] })];
    const [proposal] = (await run(alice, deepest)).proposals;
    const refused = await apply(alice, proposal!);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(/^parentId/);
    expect((await runsOf(alice, deepest.id))[0]!.proposals[0]!.status).toBe('pending');
    const list = (await alice.request('GET', '/api/tasks')).json() as Task[];
    expect(list.map((item) => item.title)).not.toContain('Too deep');
  });

  it('dismissing leaves the task as it was, and a dismissed proposal cannot be applied', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    fake.behaviour.toolCalls = [call('rename_task', { title: 'Something else' })];
    const [proposal] = (await run(alice, task)).proposals;
    const dismissed = await dismiss(alice, proposal!);
    expect(dismissed.statusCode).toBe(200);
    expect(dismissed.json().status).toBe('dismissed');
    const applied = await apply(alice, proposal!);
    expect(applied.statusCode).toBe(409);
    expect(applied.json().message).toBe('This proposal was dismissed.');
    expect((await dismiss(alice, proposal!)).statusCode).toBe(409);
    expect((await getTask(alice, task.id)).title).toBe('Plan the move');
  });

  it('keeps an invalid proposal with the validation message and never applies it', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    fake.behaviour.toolCalls = [
      call('set_due_date', { dueDate: '2027-02-30' }),
      call('rename_task', { title: '' }),
      call('delete_everything', {}),
      call('append_notes', '{"text": "unfinished'),
      call('create_tasks', { tasks: [{ title: 'Fine' }, { title: 'x'.repeat(201) }] }),
    ];
    const { proposals } = await run(alice, task);
    expect(proposals.map(({ tool, status, error }) => ({ tool, status, error }))).toEqual([
      { tool: 'set_due_date', status: 'invalid', error: 'dueDate must be a real date written YYYY-MM-DD' },
      { tool: 'rename_task', status: 'invalid', error: 'Task title is required' },
      {
        tool: 'delete_everything',
        status: 'invalid',
        error: 'delete_everything is not a tool Tasklane offers',
      },
      { tool: 'append_notes', status: 'invalid', error: 'The arguments are not valid JSON' },
      {
        tool: 'create_tasks',
        status: 'invalid',
        error: 'tasks.1.title: title must be at most 200 characters',
      },
    ]);
    for (const proposal of proposals) {
      const applied = await apply(alice, proposal);
      expect(applied.statusCode).toBe(409);
      expect(applied.json().message).toBe(`This proposal cannot be applied: ${proposal.error}`);
    }
    expect(await getTask(alice, task.id)).toMatchObject({
      title: 'Plan the move',
      dueDate: null,
      notes: null,
    });
    expect(((await alice.request('GET', '/api/tasks')).json() as Task[]).length).toBe(1);
  });

  it('a proposal that no longer fits stays pending and says why', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    fake.behaviour.toolCalls = [call('append_notes', { text: 'y'.repeat(20) })];
    const [proposal] = (await run(alice, task)).proposals;
    await alice.request('PATCH', `/api/tasks/${task.id}`, { notes: 'x'.repeat(50_000) });
    const applied = await apply(alice, proposal!);
    expect(applied.statusCode).toBe(400);
    expect(applied.json().message).toMatch(/^notes must be at most/);
    expect((await runsOf(alice, task.id))[0]!.proposals[0]!.status).toBe('pending');
  });

  describe('in a shared project (issue 21)', () => {
    const CALLERS = ['owner', 'admin', 'editor', 'commenter', 'viewer', 'non-member'] as const;
    type Caller = (typeof CALLERS)[number];
    const editors = (ok: number, notFound: string): Record<Caller, [number, string | undefined]> => ({
      owner: [ok, undefined],
      admin: [ok, undefined],
      editor: [ok, undefined],
      commenter: [403, ACCESS_MESSAGES.editor],
      viewer: [403, ACCESS_MESSAGES.editor],
      'non-member': [404, notFound],
    });

    /** A project of the owner's with one member of each role, and a task in it. */
    async function team(t: TestApp) {
      const people = {} as Record<Caller, TestUser>;
      for (const caller of CALLERS) people[caller] = await t.signUp();
      const created = await people.owner.request('POST', '/api/projects', { name: 'Move' });
      const project = created.json() as Project;
      for (const role of ['admin', 'editor', 'commenter', 'viewer'] as const) {
        const added = await people.owner.request('POST', `/api/projects/${project.id}/members`, {
          user: people[role].user.username,
          role,
        });
        expect(added.statusCode, role).toBe(201);
      }
      const task = await createTask(people.owner, { projectId: project.id });
      return { people, project, task };
    }
    const messageOf = (response: { statusCode: number; json(): unknown }) =>
      response.statusCode < 300 ? undefined : (response.json() as { message: string }).message;

    it('an editor or more runs an agent on the task; lower roles get 403, a non-member 404', async () => {
      const t = await start();
      const { people, task } = await team(t);
      const got = {} as Record<Caller, [number, string | undefined]>;
      for (const caller of CALLERS) {
        const before = fake.requests.length;
        const streamed = caller === 'editor';
        const response = await people[caller].request(
          'POST',
          `/api/ai/execute${streamed ? '?stream=1' : ''}`,
          {
            taskId: task.id,
          },
        );
        got[caller] = [response.statusCode, messageOf(response)];
        // A refusal asks no model and keeps no run.
        expect(fake.requests.length - before, caller).toBe(response.statusCode === 200 ? 1 : 0);
      }
      expect(got).toEqual(editors(200, 'Task not found'));
      // Every run is in the task's history, whoever started it: three of them.
      expect(await runsOf(people.viewer, task.id)).toHaveLength(3);
      expect(await getTask(people.viewer, task.id)).toMatchObject({ aiDraft: 'Here is the draft.' });
    });

    it('any member sees the task’s runs, whoever ran them; a non-member gets 404', async () => {
      const t = await start();
      const { people, task } = await team(t);
      fake.behaviour.toolCalls = [call('rename_task', { title: 'Move house' })];
      const ran = await run(people.editor, task);
      const got = {} as Record<Caller, [number, string | undefined]>;
      for (const caller of CALLERS) {
        const response = await people[caller].request('GET', `/api/tasks/${task.id}/ai-runs`);
        got[caller] = [response.statusCode, messageOf(response)];
        if (response.statusCode === 200)
          expect((response.json() as AiRun[]).map((r) => r.id)).toEqual([ran.id]);
      }
      expect(got).toEqual({
        owner: [200, undefined],
        admin: [200, undefined],
        editor: [200, undefined],
        commenter: [200, undefined],
        viewer: [200, undefined],
        'non-member': [404, 'Task not found'],
      });
    });

    it.each(['apply', 'dismiss'] as const)(
      '%s: an editor or more, whoever ran it; lower roles get 403, a non-member 404, and nothing changes',
      async (action) => {
        const t = await start();
        const { people, task } = await team(t);
        const got = {} as Record<Caller, [number, string | undefined]>;
        for (const caller of CALLERS) {
          fake.behaviour.toolCalls = [call('rename_task', { title: `Renamed by ${caller}` })];
          const [proposal] = (await run(people.owner, task)).proposals;
          const response = await (action === 'apply' ? apply : dismiss)(people[caller], proposal!);
          got[caller] = [response.statusCode, messageOf(response)];
          const [latest] = await runsOf(people.owner, task.id);
          const title = (await getTask(people.owner, task.id)).title;
          if (response.statusCode === 200) {
            expect(latest!.proposals[0]!.status).toBe(action === 'apply' ? 'applied' : 'dismissed');
            if (action === 'apply') expect(title).toBe(`Renamed by ${caller}`);
          } else {
            expect(latest!.proposals[0]!.status, caller).toBe('pending');
            expect(title, caller).not.toBe(`Renamed by ${caller}`);
          }
        }
        expect(got).toEqual(editors(200, 'Proposal not found'));
        // Applied: one entry per success, each by the member who applied it.
        const applied = (await activityOf(people.owner, task.id)).filter(
          (e) => e.kind === 'proposal_applied',
        );
        expect(applied.map((entry) => entry.actorId).sort()).toEqual(
          action === 'apply'
            ? [people.owner.user.id, people.admin.user.id, people.editor.user.id].sort()
            : [],
        );
      },
    );

    it('an editor applies a proposal from the owner’s run: the activity shows proposal_applied, and every member hears of it', async () => {
      const t = await start();
      const { people, task } = await team(t);
      fake.behaviour.toolCalls = [call('set_due_date', { dueDate: '2027-08-13' })];
      const ran = await run(people.owner, task);
      const publish = vi.spyOn(t.ctx.live, 'publish');
      const response = await apply(people.editor, ran.proposals[0]!);
      expect(response.statusCode).toBe(200);
      expect(await getTask(people.viewer, task.id)).toMatchObject({ dueDate: '2027-08-13' });
      const [latest] = await activityOf(people.viewer, task.id);
      expect(latest).toMatchObject({
        actorId: people.editor.user.id,
        kind: 'proposal_applied',
        data: { runId: ran.id },
      });
      // The due date's own entry comes with it, in the same transaction.
      expect((await activityOf(people.viewer, task.id))[1]).toMatchObject({ kind: 'due_changed' });
      const members = CALLERS.filter((c) => c !== 'non-member').map((c) => people[c].user.id);
      expect(publish).toHaveBeenCalledWith(
        expect.arrayContaining(members),
        [aiRunsPath(task.id)],
        [task.projectId],
      );
      for (const [userIds] of publish.mock.calls) {
        expect([userIds].flat()).not.toContain(people['non-member'].user.id);
      }
      publish.mockRestore();
    });

    it('an archived project answers 409 to running, applying and dismissing, and changes nothing', async () => {
      const t = await start();
      const { people, project, task } = await team(t);
      fake.behaviour.toolCalls = [
        call('rename_task', { title: 'Never' }),
        call('rename_task', { title: 'No' }),
      ];
      const { proposals } = await run(people.owner, task);
      const archived = await people.owner.request('PATCH', `/api/projects/${project.id}`, { archived: true });
      expect(archived.statusCode).toBe(200);
      const before = fake.requests.length;
      const refused = [
        await people.editor.request('POST', '/api/ai/execute', { taskId: task.id }),
        await apply(people.editor, proposals[0]!),
        await dismiss(people.owner, proposals[1]!),
      ];
      expect(refused.map((response) => response.statusCode)).toEqual([409, 409, 409]);
      expect(fake.requests.length).toBe(before);
      expect((await runsOf(people.viewer, task.id))[0]!.proposals.map((p) => p.status)).toEqual([
        'pending',
        'pending',
      ]);
      expect((await getTask(people.viewer, task.id)).title).toBe('Plan the move');
    });
  });

  it('a proposal id that is not a number is 404', async () => {
    const t = await start();
    const alice = await t.signUp();
    expect((await alice.request('POST', '/api/ai/proposals/abc/apply')).statusCode).toBe(404);
  });

  it('asks once more without tools when the provider refuses them, and sums the usage', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    fake.behaviour.rejectTools = true;
    fake.behaviour.toolCalls = [call('rename_task', { title: 'Never offered' })];
    const latest = await run(alice, task);
    expect(fake.requests.map((r) => (r.body.tools ?? []).length > 0)).toEqual([true, false]);
    expect(latest).toMatchObject({ status: 'done', proposals: [], inputTokens: 42, outputTokens: 7 });
    expect((await getTask(alice, task.id)).aiDraft).toBe('Here is the draft.');
  });

  it("runs on the agent's own model when it names one", async () => {
    const t = await start();
    const alice = await t.signUp();
    const created = await alice.request('POST', '/api/ai-agents', {
      title: 'Planner',
      prompt: 'You plan.',
      model: 'planner-model',
    });
    const agent = created.json() as Agent;
    expect(agent.model).toBe('planner-model');
    const task = await createTask(alice, { contextId: agent.id });
    const latest = await run(alice, task);
    expect(fake.requests[0]!.body.model).toBe('planner-model');
    expect(latest).toMatchObject({ agentId: agent.id, agentTitle: 'Planner', model: 'planner-model' });
    // Emptied, the agent runs on the connection's model again.
    const cleared = await alice.request('PUT', `/api/ai-agents/${agent.id}`, { model: '' });
    expect(cleared.json().model).toBeNull();
  });

  it('stores a failed run with the provider’s status and its own words, and answers them', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    Object.assign(fake.behaviour, {
      mode: 'error',
      errorStatus: 503,
      errorMessage: 'Upstream model overloaded',
    });
    const expected = 'The AI provider answered 503: Upstream model overloaded';
    const response = await alice.request('POST', '/api/ai/execute', { taskId: task.id });
    expect(response.statusCode).toBe(502);
    expect(response.json()).toEqual({ message: expected });
    const [latest] = await runsOf(alice, task.id);
    expect(latest).toMatchObject({ status: 'failed', error: expected, proposals: [] });

    // Streamed, the failure is the stream's last event.
    const streamed = await alice.request('POST', '/api/ai/execute?stream=1', { taskId: task.id });
    expect(streamed.statusCode).toBe(200);
    expect(streamed.body.trim().split('\n\n').at(-1)).toBe(`data: ${JSON.stringify({ error: expected })}`);
    expect((await runsOf(alice, task.id))[0]).toMatchObject({ status: 'failed', error: expected });

    // No words at all: the status alone.
    fake.behaviour.errorMessage = '';
    const bare = await alice.request('POST', '/api/ai/execute', { taskId: task.id });
    expect(bare.json()).toEqual({ message: 'The AI provider answered 503.' });
  });

  it('cuts the provider’s words to 500 characters and masks keys and tokens in them', async () => {
    const t = await start({ AI_ALLOW_PRIVATE_BASE_URLS: 'true' });
    const alice = await t.signUp();
    const task = await createTask(alice);
    const own = await alice.request('PUT', '/api/ai/connection', {
      apiKey: 'alice-own-key-0042',
      baseUrl: fake.baseUrl,
    });
    expect(own.statusCode, own.body).toBe(200);
    const secrets = [
      'sk-proj-AbC123xyz456DEF789',
      'eyJhbGciOiJIUzI1NiJ9.e30.sig',
      'alice-own-key-0042',
      'server-key',
    ];
    Object.assign(fake.behaviour, {
      mode: 'error',
      errorStatus: 401,
      errorMessage:
        `Incorrect API key provided: ${secrets[0]}. The request carried Authorization: Bearer ${secrets[1]} ` +
        `(key ${secrets[2]}; the gateway's is ${secrets[3]}). ${'More detail. '.repeat(60)}`,
    });
    const response = await alice.request('POST', '/api/ai/execute', { taskId: task.id });
    expect(response.statusCode).toBe(502);
    const { message } = response.json() as { message: string };
    expect(message).toHaveLength(500);
    expect(message).toMatch(/^The AI provider answered 401: Incorrect API key provided: sk-\S+\. /);
    expect(message).toContain('Bearer ');
    expect(message.endsWith('…')).toBe(true);
    for (const secret of secrets) expect(message).not.toContain(secret);
    const [latest] = await runsOf(alice, task.id);
    expect(latest!.error).toBe(message);
  });

  it('stores a cancelled run and no proposal, even for tool calls already streamed', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    fake.behaviour.toolCalls = [call('rename_task', { title: 'Streamed whole' })];
    fake.behaviour.endDelayMs = 1_000;
    const providerSawAbort = fake.streamAborted();
    await new Promise<void>((resolve, reject) => {
      const request = http.request(`${url}/api/ai/execute?stream=1`, {
        method: 'POST',
        headers: { ...alice.headers, 'content-type': 'application/json' },
      });
      let body = '';
      request.on('response', (response) =>
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
          // The whole draft is in: the tool call has streamed too, and the provider holds the end.
          if (body.includes('{"delta":"."}')) {
            setTimeout(() => {
              request.destroy();
              resolve();
            }, 200);
          }
        }),
      );
      request.on('error', reject);
      request.end(JSON.stringify({ taskId: task.id }));
    });
    await providerSawAbort;
    await expect.poll(async () => (await runsOf(alice, task.id))[0]?.status).toBe('cancelled');
    const [latest] = await runsOf(alice, task.id);
    expect(latest!.proposals).toEqual([]);
    expect(await getTask(alice, task.id)).toMatchObject({ title: 'Plan the move', aiDraft: null });
  });

  it("shows the administrator each user's tokens this month", async () => {
    const t = await start();
    const admin = await t.signUp({ isAdmin: true });
    const alice = await t.signUp();
    const task = await createTask(alice);
    fake.behaviour.usage = { prompt_tokens: 1_000, completion_tokens: 250 };
    await run(alice, task);
    await run(alice, task, false);
    const users = (await admin.request('GET', '/api/admin/users')).json() as AdminUserListItem[];
    const month = new Date().toISOString().slice(0, 7);
    expect(users.find((u) => u.id === alice.user.id)!.aiTokens).toEqual({ month, input: 2_000, output: 500 });
    expect(users.find((u) => u.id === admin.user.id)!.aiTokens).toEqual({ month, input: 0, output: 0 });
  });
});
