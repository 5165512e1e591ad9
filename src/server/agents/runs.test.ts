import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AdminUserListItem } from '../../common/admin';
import type { Agent } from '../../common/agents';
import type { AiProposal, AiRun } from '../../common/ai-runs';
import type { ChecklistItem } from '../../common/checklist';
import type { Task } from '../../common/tasks';
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

  async function start() {
    const t = await createTestApp(dialect, {
      env: { OPENAI_API_KEY: 'server-key', OPENAI_BASE_URL: fake.baseUrl, AI_TIMEOUT_MS: '3000' },
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

  it('hides runs and proposals from everyone but their owner', async () => {
    const t = await start();
    const alice = await t.signUp();
    const bob = await t.signUp();
    const task = await createTask(alice);
    fake.behaviour.toolCalls = [call('rename_task', { title: 'Mine' })];
    const [proposal] = (await run(alice, task)).proposals;
    expect((await bob.request('GET', `/api/tasks/${task.id}/ai-runs`)).statusCode).toBe(404);
    expect((await apply(bob, proposal!)).statusCode).toBe(404);
    expect((await dismiss(bob, proposal!)).statusCode).toBe(404);
    expect((await alice.request('POST', '/api/ai/proposals/abc/apply')).statusCode).toBe(404);
    expect((await getTask(alice, task.id)).title).toBe('Plan the move');
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

  it('stores a failed run with its message', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    fake.behaviour.mode = 'error';
    const response = await alice.request('POST', '/api/ai/execute', { taskId: task.id });
    expect(response.statusCode).toBe(502);
    const [latest] = await runsOf(alice, task.id);
    expect(latest).toMatchObject({
      status: 'failed',
      error: 'The AI provider answered with an error (500).',
      proposals: [],
    });
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
