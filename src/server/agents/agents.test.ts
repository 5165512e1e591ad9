import dns from 'node:dns';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Agent, AiStreamEvent } from '../../common/agents';
import type { Project } from '../../common/projects';
import { ERRORS, VALIDATION } from '../../common/spec';
import type { Task } from '../../common/tasks';
import { URL_GUARD_MESSAGES } from '../http/url-guard';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { type FakeProvider, startFakeProvider } from '../testing/fake-provider';
import { AI_MESSAGES } from './ai-client';
import { createSecretBox, KEY_FILE_NAME } from './crypto';
import { PROPOSAL_INSTRUCTIONS } from './proposals';
import { AI_RUN_RATE_LIMIT, DEFAULT_SYSTEM_PROMPT } from './service';

describe.each(testDialects)('AI agents and runs on %s', (dialect) => {
  let fake: FakeProvider;
  let other: FakeProvider;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    fake = await startFakeProvider();
    other = await startFakeProvider();
  });
  afterAll(async () => {
    await fake.close();
    await other.close();
  });
  afterEach(async () => {
    fake.reset();
    other.reset();
    for (const app of apps.splice(0)) await app.close();
  });

  /** An app whose server-wide provider is the fake, unless env says otherwise. */
  async function start(env: Record<string, string> = {}) {
    const t = await createTestApp(dialect, {
      env: { OPENAI_API_KEY: 'server-key', OPENAI_BASE_URL: fake.baseUrl, AI_TIMEOUT_MS: '2000', ...env },
    });
    apps.push(t);
    return t;
  }

  const createAgent = async (user: TestUser, title = 'Editor', prompt = 'You edit text.') => {
    const response = await user.request('POST', '/api/ai-agents', { title, prompt });
    expect(response.statusCode).toBe(201);
    return response.json() as Agent;
  };
  const createTask = async (user: TestUser, body: Record<string, unknown> = {}) => {
    const response = await user.request('POST', '/api/tasks', {
      title: 'Write intro',
      description: 'For the blog',
      ...body,
    });
    expect(response.statusCode).toBe(201);
    return response.json() as Task;
  };
  const getTask = async (user: TestUser, id: number) =>
    (await user.request('GET', `/api/tasks/${id}`)).json() as Task;
  const execute = (
    user: TestUser,
    task: Task,
    extra: Record<string, unknown> = {},
    url = '/api/ai/execute',
  ) =>
    user.request('POST', url, {
      taskTitle: task.title,
      taskDescription: task.description,
      contextId: task.contextId,
      taskId: task.id,
      ...extra,
    });
  const events = (body: string): AiStreamEvent[] =>
    body
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => JSON.parse(block.slice(6)) as AiStreamEvent);

  describe('agents', () => {
    it('creates, lists, updates and deletes the caller’s agents', async () => {
      const t = await start();
      const alice = await t.signUp();
      const first = await createAgent(alice, '  Editor  ', 'You edit text.');
      expect(first).toEqual({
        id: expect.any(Number),
        title: 'Editor',
        prompt: 'You edit text.',
        model: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const second = await createAgent(alice, 'Planner', 'You plan.');
      expect((await alice.request('GET', '/api/ai-agents')).json().map((a: Agent) => a.id)).toEqual([
        second.id,
        first.id,
      ]);
      expect((await alice.request('GET', '/api/ai-contexts')).json()).toEqual([
        { id: second.id, title: 'Planner' },
        { id: first.id, title: 'Editor' },
      ]);

      const updated = await alice.request('PUT', `/api/ai-agents/${first.id}`, { prompt: 'You edit prose.' });
      expect(updated.statusCode).toBe(200);
      expect(updated.json()).toMatchObject({ id: first.id, title: 'Editor', prompt: 'You edit prose.' });

      expect((await alice.request('DELETE', `/api/ai-agents/${first.id}`)).statusCode).toBe(204);
      expect((await alice.request('GET', '/api/ai-agents')).json()).toEqual([
        expect.objectContaining({ id: second.id }),
      ]);
    });

    it('validates with the spec’s messages and names the field', async () => {
      const t = await start();
      const alice = await t.signUp();
      const cases: Array<[unknown, string | RegExp]> = [
        [{ prompt: 'p' }, VALIDATION.agentTitleRequired],
        [{ title: '   ', prompt: 'p' }, VALIDATION.agentTitleRequired],
        [{ title: 't' }, VALIDATION.agentPromptRequired],
        [{ title: 't', prompt: '' }, VALIDATION.agentPromptRequired],
        [{ title: 'x'.repeat(201), prompt: 'p' }, 'Title must be at most 200 characters'],
        [{ title: 't', prompt: 'x'.repeat(20_001) }, 'Prompt must be at most 20000 characters'],
      ];
      for (const [body, message] of cases) {
        const response = await alice.request('POST', '/api/ai-agents', body);
        expect(response.statusCode).toBe(400);
        expect(response.json().message).toMatch(message);
      }
      const agent = await createAgent(alice);
      const blank = await alice.request('PUT', `/api/ai-agents/${agent.id}`, { title: '' });
      expect(blank.statusCode).toBe(400);
      expect(blank.json().message).toBe(VALIDATION.agentTitleRequired);
      for (const id of ['abc', '0', '99999999999']) {
        expect((await alice.request('PUT', `/api/ai-agents/${id}`, { title: 'x' })).statusCode).toBe(404);
      }
    });

    it('answers 404 for another user’s agent and 401 when signed out', async () => {
      const t = await start();
      const alice = await t.signUp();
      const bob = await t.signUp();
      const agent = await createAgent(alice);
      expect((await bob.request('PUT', `/api/ai-agents/${agent.id}`, { title: 'Mine' })).statusCode).toBe(
        404,
      );
      expect((await bob.request('DELETE', `/api/ai-agents/${agent.id}`)).statusCode).toBe(404);
      expect((await bob.request('GET', '/api/ai-agents')).json()).toEqual([]);
      expect((await bob.request('GET', '/api/ai-contexts')).json()).toEqual([]);
      expect((await alice.request('GET', '/api/ai-agents')).json()).toEqual([
        expect.objectContaining({ title: 'Editor' }),
      ]);
      const signedOut = await t.app.inject({ method: 'GET', url: '/api/ai-agents' });
      expect(signedOut.statusCode).toBe(401);
    });

    it('deleting an agent leaves its tasks with no agent', async () => {
      const t = await start();
      const alice = await t.signUp();
      const agent = await createAgent(alice);
      const task = await createTask(alice, { contextId: agent.id });
      expect(task.contextId).toBe(agent.id);
      await alice.request('DELETE', `/api/ai-agents/${agent.id}`);
      expect((await getTask(alice, task.id)).contextId).toBeNull();
    });
  });

  describe('status and connection', () => {
    it('reports the server’s provider, or none', async () => {
      const withKey = await start();
      const alice = await withKey.signUp();
      expect((await alice.request('GET', '/api/ai/status')).json()).toEqual({
        aiConnected: true,
        model: 'gpt-4o-mini',
        source: 'server',
      });
      const withoutKey = await start({ OPENAI_API_KEY: '' });
      const bob = await withoutKey.signUp();
      expect((await bob.request('GET', '/api/ai/status')).json()).toEqual({
        aiConnected: false,
        model: null,
        source: null,
      });
    });

    it('stores the user’s key encrypted, never returns it, and removes it', async () => {
      const t = await start({ OPENAI_API_KEY: '', AI_ALLOW_PRIVATE_BASE_URLS: 'true' });
      const alice = await t.signUp();
      expect((await alice.request('GET', '/api/ai/connection')).json()).toEqual({
        connected: false,
        baseUrl: null,
        model: null,
        keyHint: null,
      });
      const key = 'sk-user-secret-abcd';
      const saved = await alice.request('PUT', '/api/ai/connection', {
        apiKey: key,
        baseUrl: fake.baseUrl,
        model: 'local-model',
      });
      expect(saved.statusCode).toBe(200);
      const expected = { connected: true, baseUrl: fake.baseUrl, model: 'local-model', keyHint: 'abcd' };
      expect(saved.json()).toEqual(expected);
      expect((await alice.request('GET', '/api/ai/connection')).json()).toEqual(expected);
      expect((await alice.request('GET', '/api/ai/status')).json()).toEqual({
        aiConnected: true,
        model: 'local-model',
        source: 'user',
      });

      const rows = await t.ctx.db.kysely.selectFrom('ai_credentials').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(key);
      expect(JSON.stringify(rows)).not.toContain('user-secret');
      const keyFile = fs.statSync(path.join(t.dataDir, KEY_FILE_NAME));
      expect(keyFile.mode & 0o777).toBe(0o600);

      expect((await alice.request('DELETE', '/api/ai/connection')).statusCode).toBe(204);
      expect((await alice.request('GET', '/api/ai/connection')).json().connected).toBe(false);
      expect((await alice.request('GET', '/api/ai/status')).json().aiConnected).toBe(false);
    });

    it('refuses base URLs on the server’s own network unless the administrator allows them', async () => {
      const t = await start();
      const alice = await t.signUp();
      const cases: Array<[string, string]> = [
        [fake.baseUrl, URL_GUARD_MESSAGES.private],
        ['http://localhost:8080/v1', URL_GUARD_MESSAGES.private],
        ['http://10.1.2.3/v1', URL_GUARD_MESSAGES.private],
        ['http://172.20.0.1/v1', URL_GUARD_MESSAGES.private],
        ['http://192.168.1.10/v1', URL_GUARD_MESSAGES.private],
        ['http://169.254.169.254/latest', URL_GUARD_MESSAGES.private],
        ['http://0.0.0.0:80/', URL_GUARD_MESSAGES.private],
        ['http://[::1]:80/', URL_GUARD_MESSAGES.private],
        ['http://[::ffff:127.0.0.1]/', URL_GUARD_MESSAGES.private],
        ['http://[fd00::1]/', URL_GUARD_MESSAGES.private],
        ['http://[fe80::1]/', URL_GUARD_MESSAGES.private],
        ['http://2130706433/', URL_GUARD_MESSAGES.private],
        ['ftp://example.com/', URL_GUARD_MESSAGES.invalid],
        ['not a url', URL_GUARD_MESSAGES.invalid],
        ['http://user:pw@example.com/', URL_GUARD_MESSAGES.credentials],
      ];
      for (const [baseUrl, message] of cases) {
        const response = await alice.request('PUT', '/api/ai/connection', { apiKey: 'k', baseUrl });
        expect(response.statusCode, baseUrl).toBe(400);
        expect(response.json().message, baseUrl).toBe(message);
      }
      expect((await alice.request('GET', '/api/ai/connection')).json().connected).toBe(false);
      const missingKey = await alice.request('PUT', '/api/ai/connection', { baseUrl: 'https://example.com' });
      expect(missingKey.statusCode).toBe(400);
      expect(missingKey.json().message).toBe('API key is required');

      const allowed = await start({ AI_ALLOW_PRIVATE_BASE_URLS: 'true' });
      const bob = await allowed.signUp();
      expect(
        (await bob.request('PUT', '/api/ai/connection', { apiKey: 'k', baseUrl: fake.baseUrl })).statusCode,
      ).toBe(200);
    });
  });

  describe('running an agent', () => {
    it('sends the agent’s prompt and the stored task, and stores the draft', async () => {
      const t = await start();
      const alice = await t.signUp();
      const agent = await createAgent(alice, 'Editor', 'You are a careful editor.');
      const task = await createTask(alice, { contextId: agent.id });
      // The body's copies of title and description are not what is sent: the stored task is.
      const response = await execute(alice, task, { taskTitle: 'Forged', taskDescription: 'Forged' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ result: 'Here is the draft.', runId: expect.any(Number) });

      expect(fake.requests).toHaveLength(1);
      const [sent] = fake.requests;
      expect(sent!.headers.authorization).toBe('Bearer server-key');
      expect(sent!.body.model).toBe('gpt-4o-mini');
      expect(sent!.body.messages).toEqual([
        { role: 'system', content: `You are a careful editor.\n\n${PROPOSAL_INSTRUCTIONS}` },
        { role: 'user', content: 'Task: Write intro\n\nDescription: For the blog' },
      ]);
      expect(await getTask(alice, task.id)).toMatchObject({
        aiDraft: 'Here is the draft.',
        aiAssisted: true,
      });
    });

    it('runs the chosen agent, else the task’s own, else a default prompt', async () => {
      const t = await start();
      const alice = await t.signUp();
      const own = await createAgent(alice, 'Own', 'Own prompt');
      const chosen = await createAgent(alice, 'Chosen', 'Chosen prompt');
      const task = await createTask(alice, { contextId: own.id, description: null });
      await execute(alice, task, { contextId: chosen.id });
      await execute(alice, task, { contextId: null });
      const plain = await createTask(alice, { description: '' });
      await execute(alice, plain);
      expect(fake.requests.map((r) => r.body.messages[0]!.content)).toEqual(
        ['Chosen prompt', 'Own prompt', DEFAULT_SYSTEM_PROMPT].map((p) => `${p}\n\n${PROPOSAL_INSTRUCTIONS}`),
      );
      expect(fake.requests[2]!.body.messages[1]!.content).toBe('Task: Write intro');
    });

    it('answers 404 for another user’s task or agent', async () => {
      const t = await start();
      const alice = await t.signUp();
      const bob = await t.signUp();
      const task = await createTask(alice);
      const agent = await createAgent(alice);
      expect((await execute(bob, task)).statusCode).toBe(404);
      const bobsTask = await createTask(bob);
      const foreignAgent = await execute(bob, bobsTask, { contextId: agent.id });
      expect(foreignAgent.statusCode).toBe(404);
      expect(foreignAgent.json().message).toMatch(/agent/i);
      expect(fake.requests).toHaveLength(0);
    });

    it('on a shared task, a member runs their own agent with their own key, never another member’s', async () => {
      const t = await start({ OPENAI_BASE_URL: other.baseUrl, AI_ALLOW_PRIVATE_BASE_URLS: 'true' });
      const alice = await t.signUp();
      const bob = await t.signUp();
      const project = (await alice.request('POST', '/api/projects', { name: 'Blog' })).json() as Project;
      const shared = await alice.request('POST', `/api/projects/${project.id}/members`, {
        user: bob.user.username,
        role: 'editor',
      });
      expect(shared.statusCode).toBe(201);
      await alice.request('PUT', '/api/ai/connection', { apiKey: 'alice-key', baseUrl: fake.baseUrl });
      const alicesAgent = await createAgent(alice, 'Alice', 'Alice’s secret prompt');
      const bobsAgent = await createAgent(bob, 'Bob', 'Bob’s prompt');
      const task = await createTask(alice, { projectId: project.id, contextId: alicesAgent.id });

      // The task's agent is Alice's: Bob's run uses the default prompt, and the server's key.
      expect((await execute(bob, task, { contextId: null })).statusCode).toBe(200);
      expect((await execute(bob, task, { contextId: bobsAgent.id })).statusCode).toBe(200);
      const named = await execute(bob, task, { contextId: alicesAgent.id });
      expect([named.statusCode, named.json()]).toEqual([404, { message: 'AI agent not found' }]);
      expect(other.requests.map((r) => [r.headers.authorization, r.body.messages[0]!.content])).toEqual(
        [DEFAULT_SYSTEM_PROMPT, 'Bob’s prompt'].map((p) => [
          'Bearer server-key',
          `${p}\n\n${PROPOSAL_INSTRUCTIONS}`,
        ]),
      );
      expect(fake.requests).toHaveLength(0);
      // The draft is the task's, for every member.
      expect(await getTask(alice, task.id)).toMatchObject({
        aiDraft: 'Here is the draft.',
        contextId: alicesAgent.id,
      });
    });

    it('says AI is not connected when there is no key', async () => {
      const t = await start({ OPENAI_API_KEY: '' });
      const alice = await t.signUp();
      const task = await createTask(alice);
      const response = await execute(alice, task);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ message: ERRORS.aiNotConnected });
    });

    it('answers 502 and changes nothing on a provider error, refusal, empty answer or time-out', async () => {
      const t = await start({ AI_TIMEOUT_MS: '300' });
      const alice = await t.signUp();
      const task = await createTask(alice);
      await execute(alice, task);
      const before = await getTask(alice, task.id);
      expect(before.aiDraft).toBe('Here is the draft.');
      const cases: Array<[Partial<FakeProvider['behaviour']>, string]> = [
        [{ mode: 'error' }, AI_MESSAGES.providerError(500, 'The fake provider broke')],
        [{ mode: 'refusal' }, AI_MESSAGES.refused],
        [{ mode: 'empty' }, AI_MESSAGES.empty],
        [{ delayMs: 1000 }, AI_MESSAGES.timeout],
      ];
      for (const [behaviour, message] of cases) {
        fake.reset();
        Object.assign(fake.behaviour, behaviour, { chunks: ['Changed'] });
        for (const url of ['/api/ai/execute', '/api/ai/execute?stream=1']) {
          const response = await execute(alice, task, {}, url);
          if (url.endsWith('stream=1')) {
            expect(response.statusCode).toBe(200);
            expect(events(response.body).at(-1)).toEqual({ error: message });
          } else {
            expect(response.statusCode).toBe(502);
            expect(response.json()).toEqual({ message });
          }
        }
        expect(await getTask(alice, task.id)).toEqual(before);
      }
    });

    it('streams the draft as it is written, then stores it', async () => {
      const t = await start();
      const alice = await t.signUp();
      const task = await createTask(alice);
      fake.behaviour.chunks = ['One ', 'two ', 'three.'];
      const response = await execute(alice, task, {}, '/api/ai/execute?stream=1');
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(response.headers['content-security-policy']).toBeDefined();
      expect(events(response.body)).toEqual([
        { delta: 'One ' },
        { delta: 'two ' },
        { delta: 'three.' },
        { result: 'One two three.', runId: expect.any(Number) },
      ]);
      expect(fake.requests[0]!.body.stream).toBe(true);
      expect((await getTask(alice, task.id)).aiDraft).toBe('One two three.');

      const byAccept = await t.app.inject({
        method: 'POST',
        url: '/api/ai/execute',
        headers: { ...alice.headers, accept: 'text/event-stream' },
        payload: { taskId: task.id },
      });
      expect(events(byAccept.body).at(-1)).toEqual({ result: 'One two three.', runId: expect.any(Number) });
    });

    it('a cancelled stream aborts the provider call and stores nothing', async () => {
      const t = await start();
      const alice = await t.signUp();
      const task = await createTask(alice);
      const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
      fake.behaviour.chunks = Array.from({ length: 50 }, (_, i) => `piece ${i} `);
      fake.behaviour.chunkDelayMs = 40;
      const providerSawAbort = fake.streamAborted();
      // The client goes away mid-stream: its socket closes after the first piece arrives.
      const firstPiece = await new Promise<string>((resolve, reject) => {
        const request = http.request(`${url}/api/ai/execute?stream=1`, {
          method: 'POST',
          headers: { ...alice.headers, 'content-type': 'application/json' },
        });
        request.on('response', (response) =>
          response.once('data', (chunk: Buffer) => {
            request.destroy();
            resolve(chunk.toString());
          }),
        );
        request.on('error', reject);
        request.end(JSON.stringify({ taskId: task.id }));
      });
      expect(firstPiece).toContain('"delta"');
      await providerSawAbort;
      // Give the server a moment in which a wrongly finished run would store its draft.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await getTask(alice, task.id)).toMatchObject({ aiDraft: null, aiAssisted: false });
    });

    it('uses the user’s own key and address, and never sends the server’s key there', async () => {
      const t = await start({ OPENAI_BASE_URL: other.baseUrl, AI_ALLOW_PRIVATE_BASE_URLS: 'true' });
      const alice = await t.signUp();
      const bob = await t.signUp();
      await alice.request('PUT', '/api/ai/connection', {
        apiKey: 'alice-key',
        baseUrl: fake.baseUrl,
        model: 'her-model',
      });
      await execute(alice, await createTask(alice));
      await execute(bob, await createTask(bob));
      expect(fake.requests.map((r) => [r.headers.authorization, r.body.model])).toEqual([
        ['Bearer alice-key', 'her-model'],
      ]);
      expect(other.requests.map((r) => r.headers.authorization)).toEqual(['Bearer server-key']);
    });

    it('a user’s key without an address goes to OpenAI, not to the server’s address', async () => {
      const t = await start({ OPENAI_BASE_URL: other.baseUrl });
      const alice = await t.signUp();
      await alice.request('PUT', '/api/ai/connection', { apiKey: 'alice-key' });
      // No request leaves the machine: the name lookup is where it stops.
      const looked: string[] = [];
      vi.spyOn(dns, 'lookup').mockImplementation(((
        hostname: string,
        _options: unknown,
        callback: (e: Error) => void,
      ) => {
        looked.push(hostname);
        callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
      }) as unknown as typeof dns.lookup);
      const response = await execute(alice, await createTask(alice));
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({ message: AI_MESSAGES.unreachable });
      expect(looked).toEqual(['api.openai.com']);
      expect(other.requests).toHaveLength(0);
    });

    it('checks a user’s address again at run time', async () => {
      const t = await start();
      const alice = await t.signUp();
      // An address that passed its check when saved can resolve elsewhere later (DNS rebinding).
      const secrets = createSecretBox({ dataDir: t.dataDir });
      await t.ctx.db.kysely
        .insertInto('ai_credentials')
        .values({
          user_id: alice.user.id,
          api_key_encrypted: secrets.encrypt('alice-key'),
          base_url: fake.baseUrl,
          model: null,
          created_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
        })
        .execute();
      const task = await createTask(alice);
      const response = await execute(alice, task);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({ message: URL_GUARD_MESSAGES.private });
      expect(fake.requests).toHaveLength(0);
      expect((await getTask(alice, task.id)).aiDraft).toBeNull();
    });

    it('limits runs per user', async () => {
      const t = await start();
      const alice = await t.signUp();
      const bob = await t.signUp();
      for (let i = 0; i < AI_RUN_RATE_LIMIT.max; i++) {
        expect((await alice.request('POST', '/api/ai/execute', { taskId: 999_999 })).statusCode).toBe(404);
      }
      const limited = await alice.request('POST', '/api/ai/execute', { taskId: 999_999 });
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
      expect((await bob.request('POST', '/api/ai/execute', { taskId: 999_999 })).statusCode).toBe(404);
    });

    it('validates the payload', async () => {
      const t = await start();
      const alice = await t.signUp();
      for (const body of [
        {},
        { taskId: 'x' },
        { taskId: 1.5 },
        { taskId: 2 ** 40 },
        { taskId: 1, contextId: 'x' },
      ]) {
        const response = await alice.request('POST', '/api/ai/execute', body);
        expect(response.statusCode).toBe(400);
        expect(response.json().message).toMatch(/taskId|contextId/);
      }
    });
  });
});
