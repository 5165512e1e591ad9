import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../common/tasks';
import { WEBHOOKS_PATH } from '../../common/webhooks';
import { nowIso } from '../db/values';
import { expectStatus } from '../testing/answers';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { insertProposal } from '../testing/proposals';
import { CALLERS, type Caller, shareProject, signUpTeam, type Team } from '../testing/team';
import { ACCESS_MESSAGES } from '.';

/**
 * Issue 21's role table, route by route: every route that reaches into a project (a task, its
 * checklist, files, comments, activity, AI runs and proposals, a project's list, an import into
 * it) is called by the project's owner, an admin, an editor, a commenter, a viewer and a
 * non-member, each on a fresh project. The first test fails when a route is registered that this
 * table does not name, so a new route cannot skip the access module untested.
 */

/** 'ok': the access module let it through (the feature may still refuse the input); else the status. */
type Outcome = 'ok' | 403 | 404;

const readers: Record<Caller, Outcome> = {
  owner: 'ok',
  admin: 'ok',
  editor: 'ok',
  commenter: 'ok',
  viewer: 'ok',
  'non-member': 404,
};
const commenters: Record<Caller, Outcome> = { ...readers, viewer: 403 };
const editors: Record<Caller, Outcome> = { ...commenters, commenter: 403 };
const admins: Record<Caller, Outcome> = { ...editors, editor: 403 };
/** A person's own label or saved filter (issue 23): its owner alone; anyone else cannot tell it exists. */
const ownerOnly: Record<Caller, Outcome> = {
  owner: 'ok',
  admin: 404,
  editor: 404,
  commenter: 404,
  viewer: 404,
  'non-member': 404,
};

/** What each test's project holds: a task with a checklist item, a file, a comment and an AI proposal. */
interface Fixture {
  projectId: number;
  task: Task;
  itemId: number;
  fileId: number;
  proposalId: number;
  commentId: number;
  sectionId: number;
}

type Response = { statusCode: number; body: string; json(): unknown };

interface Route {
  /** `METHOD /path` as the app registers it. */
  route: string;
  /** What is tried, when a route is tried more than one way. */
  variant?: string;
  call: (caller: TestUser, fixture: Fixture) => Promise<Response>;
  expected: Record<Caller, Outcome>;
}

const BOUNDARY = '----tasklane-matrix-boundary';
const HOOK_URL = 'http://127.0.0.1:9/hook';
const multipart = (name: string, filename: string, type: string, content: string) => ({
  headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  payload: Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\n` +
      `Content-Type: ${type}\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`,
  ),
});

describe.each(testDialects)('the role table, route by route, on %s', (dialect) => {
  let t: TestApp;
  let people: Team;

  beforeAll(async () => {
    // A webhook's receiver on loopback (never reached here: the table asks who may, not what is sent).
    t = await createTestApp(dialect, { env: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    people = await signUpTeam(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const send = (caller: TestUser, method: string, url: string, body?: unknown) =>
    caller.request(method, url, body);
  const sendRaw = (caller: TestUser, method: string, url: string, raw: ReturnType<typeof multipart>) =>
    t.app.inject({
      method: method as 'POST',
      url,
      headers: { ...caller.headers, ...raw.headers },
      payload: raw.payload,
    });
  const ok = expectStatus;

  /** A project with one member of each role, and a task in it with something of everything. */
  async function fixture(): Promise<Fixture> {
    const { owner } = people;
    const projectId = await shareProject(people);
    const task = await ok<Task>(send(owner, 'POST', '/api/tasks', { title: 'Shared work', projectId }), 201);
    const item = await ok<{ id: number }>(
      send(owner, 'POST', `/api/tasks/${task.id}/checklist`, { title: 'Step' }),
      201,
    );
    const file = await ok<{ id: number }>(
      sendRaw(
        owner,
        'POST',
        `/api/tasks/${task.id}/files`,
        multipart('files', 'a.txt', 'text/plain', 'hello'),
      ),
      201,
    ).then((files) => (Array.isArray(files) ? files[0] : files));
    const comment = await ok<{ id: number }>(
      send(owner, 'POST', `/api/tasks/${task.id}/comments`, { body: 'First' }),
      201,
    );
    const section = await ok<{ id: number }>(
      send(owner, 'POST', `/api/projects/${projectId}/sections`, { name: 'Doing' }),
      201,
    );
    // An AI run that proposed a rename, as a run writes it.
    const { proposalId } = await insertProposal(t.ctx.db.kysely, {
      userId: owner.user.id,
      taskId: task.id,
      tool: 'rename_task',
      args: { title: 'Renamed by AI' },
      at: nowIso(),
    });
    return {
      projectId,
      task,
      itemId: item.id,
      fileId: file!.id,
      proposalId,
      commentId: comment.id,
      sectionId: section.id,
    };
  }

  /**
   * A webhook of the owner's for the fixture's project, the call, then it is deleted again (a person
   * has at most 20). Its owner alone reaches it.
   */
  const withHook = async (projectId: number, call: (id: number) => Promise<Response>) => {
    const hook = await ok<{ id: number }>(
      send(people.owner, 'POST', '/api/webhooks', { url: HOOK_URL, events: ['task.created'], projectId }),
      201,
    );
    try {
      return await call(hook.id);
    } finally {
      await send(people.owner, 'DELETE', `/api/webhooks/${hook.id}`);
    }
  };

  /** A template of the owner's, the call, then it is deleted again (when the call did not). */
  const withTemplate = async (projectId: number, call: (id: number) => Promise<Response>) => {
    const template = await ok<{ id: number }>(
      send(people.owner, 'POST', `/api/projects/${projectId}/template`, {}),
      201,
    );
    try {
      return await call(template.id);
    } finally {
      await send(people.owner, 'DELETE', `/api/templates/${template.id}`);
    }
  };

  const ROUTES: Route[] = [
    {
      route: 'POST /api/webhooks',
      variant: 'projectId',
      call: async (c, f) => {
        const answer = await send(c, 'POST', '/api/webhooks', {
          url: HOOK_URL,
          events: ['task.created'],
          projectId: f.projectId,
        });
        if (answer.statusCode === 201) {
          await send(c, 'DELETE', `/api/webhooks/${(answer.json() as { id: number }).id}`);
        }
        return answer;
      },
      expected: admins,
    },
    {
      route: 'PATCH /api/webhooks/:id',
      call: (c, f) =>
        withHook(f.projectId, (id) => send(c, 'PATCH', `/api/webhooks/${id}`, { active: false })),
      expected: ownerOnly,
    },
    {
      route: 'DELETE /api/webhooks/:id',
      call: (c, f) => withHook(f.projectId, (id) => send(c, 'DELETE', `/api/webhooks/${id}`)),
      expected: ownerOnly,
    },
    {
      route: 'POST /api/webhooks/:id/test',
      call: (c, f) => withHook(f.projectId, (id) => send(c, 'POST', `/api/webhooks/${id}/test`)),
      expected: ownerOnly,
    },
    {
      route: 'GET /api/webhooks/:id/deliveries',
      call: (c, f) => withHook(f.projectId, (id) => send(c, 'GET', `/api/webhooks/${id}/deliveries`)),
      expected: ownerOnly,
    },
    {
      route: 'POST /api/webhooks/:id/deliveries/:deliveryId/redeliver',
      call: (c, f) =>
        withHook(f.projectId, async (id) => {
          await send(people.owner, 'POST', `/api/webhooks/${id}/test`);
          const [delivery] = await ok<Array<{ id: number }>>(
            send(people.owner, 'GET', `/api/webhooks/${id}/deliveries`),
          );
          return send(c, 'POST', `/api/webhooks/${id}/deliveries/${delivery!.id}/redeliver`);
        }),
      expected: ownerOnly,
    },
    {
      route: 'GET /api/tasks',
      variant: '?projectId',
      call: (c, f) => send(c, 'GET', `/api/tasks?projectId=${f.projectId}`),
      expected: readers,
    },
    {
      route: 'GET /api/tasks/archived',
      variant: '?projectId',
      call: (c, f) => send(c, 'GET', `/api/tasks/archived?projectId=${f.projectId}`),
      expected: readers,
    },
    {
      route: 'POST /api/tasks',
      variant: '{projectId}',
      call: (c, f) => send(c, 'POST', '/api/tasks', { title: 'New', projectId: f.projectId }),
      expected: editors,
    },
    {
      route: 'GET /api/tasks/:id',
      call: (c, f) => send(c, 'GET', `/api/tasks/${f.task.id}`),
      expected: readers,
    },
    {
      route: 'PATCH /api/tasks/:id',
      call: (c, f) => send(c, 'PATCH', `/api/tasks/${f.task.id}`, { title: 'Edited' }),
      expected: editors,
    },
    {
      route: 'PATCH /api/tasks/:id',
      variant: '{assigneeIds}',
      call: (c, f) => send(c, 'PATCH', `/api/tasks/${f.task.id}`, { assigneeIds: [people.viewer.user.id] }),
      expected: editors,
    },
    {
      route: 'PATCH /api/tasks/:id',
      variant: '{priority}',
      call: (c, f) => send(c, 'PATCH', `/api/tasks/${f.task.id}`, { priority: 1 }),
      expected: editors,
    },
    {
      // Each caller tags with a label of their own.
      route: 'PATCH /api/tasks/:id',
      variant: '{labelIds}',
      call: async (c, f) => {
        const label = await ok<{ id: number }>(
          send(c, 'POST', '/api/labels', { name: `mine ${Math.random()}`, color: 'red' }),
          201,
        );
        return send(c, 'PATCH', `/api/tasks/${f.task.id}`, { labelIds: [label.id] });
      },
      expected: editors,
    },
    {
      route: 'POST /api/tasks',
      variant: '{projectId, priority, labelIds}',
      call: async (c, f) => {
        const label = await ok<{ id: number }>(
          send(c, 'POST', '/api/labels', { name: `new ${Math.random()}`, color: 'red' }),
          201,
        );
        return send(c, 'POST', '/api/tasks', {
          title: 'New',
          projectId: f.projectId,
          priority: 2,
          labelIds: [label.id],
        });
      },
      expected: editors,
    },
    {
      route: 'GET /api/tasks',
      variant: '?projectId&priority&label&sort',
      call: (c, f) =>
        send(c, 'GET', `/api/tasks?projectId=${f.projectId}&priority=1,4&label=x&sort=priority`),
      expected: readers,
    },
    {
      route: 'PATCH /api/labels/:id',
      call: async (c) => {
        const label = await ok<{ id: number }>(
          send(people.owner, 'POST', '/api/labels', { name: `l${Math.random()}`, color: 'red' }),
          201,
        );
        return send(c, 'PATCH', `/api/labels/${label.id}`, { color: 'blue' });
      },
      expected: ownerOnly,
    },
    {
      route: 'DELETE /api/labels/:id',
      call: async (c) => {
        const label = await ok<{ id: number }>(
          send(people.owner, 'POST', '/api/labels', { name: `l${Math.random()}`, color: 'red' }),
          201,
        );
        return send(c, 'DELETE', `/api/labels/${label.id}`);
      },
      expected: ownerOnly,
    },
    {
      route: 'PATCH /api/filters/:id',
      call: async (c) => {
        const filter = await ok<{ id: number }>(
          send(people.owner, 'POST', '/api/filters', { name: 'Mine', query: 'priority=1' }),
          201,
        );
        return send(c, 'PATCH', `/api/filters/${filter.id}`, { name: 'Theirs' });
      },
      expected: ownerOnly,
    },
    {
      route: 'DELETE /api/filters/:id',
      call: async (c) => {
        const filter = await ok<{ id: number }>(
          send(people.owner, 'POST', '/api/filters', { name: 'Mine', query: 'priority=1' }),
          201,
        );
        return send(c, 'DELETE', `/api/filters/${filter.id}`);
      },
      expected: ownerOnly,
    },
    {
      route: 'DELETE /api/tasks/:id',
      call: (c, f) => send(c, 'DELETE', `/api/tasks/${f.task.id}`),
      expected: editors,
    },
    {
      route: 'POST /api/tasks/reorder',
      call: (c, f) => send(c, 'POST', '/api/tasks/reorder', { taskIds: [f.task.id] }),
      expected: editors,
    },
    {
      route: 'POST /api/tasks/:id/move',
      call: (c, f) => send(c, 'POST', `/api/tasks/${f.task.id}/move`, { afterId: null }),
      expected: editors,
    },
    {
      route: 'POST /api/tasks/:id/complete',
      call: (c, f) => send(c, 'POST', `/api/tasks/${f.task.id}/complete`, {}),
      expected: editors,
    },
    {
      route: 'GET /api/tasks/:id/checklist',
      call: (c, f) => send(c, 'GET', `/api/tasks/${f.task.id}/checklist`),
      expected: readers,
    },
    {
      route: 'POST /api/tasks/:id/checklist',
      call: (c, f) => send(c, 'POST', `/api/tasks/${f.task.id}/checklist`, { title: 'More' }),
      expected: editors,
    },
    {
      route: 'POST /api/tasks/:id/checklist/reorder',
      call: (c, f) => send(c, 'POST', `/api/tasks/${f.task.id}/checklist/reorder`, { itemIds: [f.itemId] }),
      expected: editors,
    },
    {
      route: 'PATCH /api/checklist/:id',
      variant: 'tick',
      call: (c, f) => send(c, 'PATCH', `/api/checklist/${f.itemId}`, { done: true }),
      expected: commenters,
    },
    {
      route: 'PATCH /api/checklist/:id',
      variant: 'rename',
      call: (c, f) => send(c, 'PATCH', `/api/checklist/${f.itemId}`, { title: 'Renamed' }),
      expected: editors,
    },
    {
      route: 'DELETE /api/checklist/:id',
      call: (c, f) => send(c, 'DELETE', `/api/checklist/${f.itemId}`),
      expected: editors,
    },
    {
      route: 'GET /api/tasks/:taskId/files',
      call: (c, f) => send(c, 'GET', `/api/tasks/${f.task.id}/files`),
      expected: readers,
    },
    {
      route: 'POST /api/tasks/:taskId/files',
      call: (c, f) =>
        sendRaw(c, 'POST', `/api/tasks/${f.task.id}/files`, multipart('files', 'b.txt', 'text/plain', 'bye')),
      expected: editors,
    },
    {
      route: 'GET /api/files/:id/download',
      call: (c, f) => send(c, 'GET', `/api/files/${f.fileId}/download`),
      expected: readers,
    },
    {
      route: 'DELETE /api/files/:id',
      call: (c, f) => send(c, 'DELETE', `/api/files/${f.fileId}`),
      expected: editors,
    },
    {
      route: 'GET /api/tasks/:id/activity',
      call: (c, f) => send(c, 'GET', `/api/tasks/${f.task.id}/activity`),
      expected: readers,
    },
    {
      route: 'GET /api/tasks/:id/comments',
      call: (c, f) => send(c, 'GET', `/api/tasks/${f.task.id}/comments`),
      expected: readers,
    },
    {
      route: 'POST /api/tasks/:id/comments',
      call: (c, f) => send(c, 'POST', `/api/tasks/${f.task.id}/comments`, { body: 'Me too' }),
      expected: commenters,
    },
    {
      // The author's own comment only; everyone else is refused (or does not see it).
      route: 'PATCH /api/comments/:id',
      call: (c, f) => send(c, 'PATCH', `/api/comments/${f.commentId}`, { body: 'Edited' }),
      expected: { ...readers, admin: 403, editor: 403, commenter: 403, viewer: 403 },
    },
    {
      // The author, or an admin of the project.
      route: 'DELETE /api/comments/:id',
      call: (c, f) => send(c, 'DELETE', `/api/comments/${f.commentId}`),
      expected: admins,
    },
    {
      route: 'GET /api/tasks/:id/reminders',
      call: (c, f) => send(c, 'GET', `/api/tasks/${f.task.id}/reminders`),
      expected: editors,
    },
    {
      route: 'POST /api/tasks/:id/reminders',
      call: (c, f) => send(c, 'POST', `/api/tasks/${f.task.id}/reminders`, { at: '2030-01-01T09:00:00Z' }),
      expected: editors,
    },
    {
      route: 'DELETE /api/reminders/:id',
      call: async (c, f) => {
        const reminder = await ok<{ id: number }>(
          send(people.owner, 'POST', `/api/tasks/${f.task.id}/reminders`, { at: '2030-01-01T09:00:00Z' }),
          201,
        );
        return send(c, 'DELETE', `/api/reminders/${reminder.id}`);
      },
      expected: editors,
    },
    {
      route: 'GET /api/tasks/:id/relations',
      call: (c, f) => send(c, 'GET', `/api/tasks/${f.task.id}/relations`),
      expected: readers,
    },
    {
      route: 'POST /api/tasks/:id/relations',
      call: async (c, f) => {
        const other = await ok<Task>(
          send(people.owner, 'POST', '/api/tasks', { title: 'Waits', projectId: f.projectId }),
          201,
        );
        return send(c, 'POST', `/api/tasks/${f.task.id}/relations`, { kind: 'blocks', taskId: other.id });
      },
      expected: editors,
    },
    {
      route: 'DELETE /api/tasks/:id/relations/:relationId',
      call: async (c, f) => {
        const other = await ok<Task>(
          send(people.owner, 'POST', '/api/tasks', { title: 'Related', projectId: f.projectId }),
          201,
        );
        const relation = await ok<{ id: number }>(
          send(people.owner, 'POST', `/api/tasks/${f.task.id}/relations`, {
            kind: 'relates_to',
            taskId: other.id,
          }),
          201,
        );
        return send(c, 'DELETE', `/api/tasks/${f.task.id}/relations/${relation.id}`);
      },
      expected: editors,
    },
    {
      route: 'GET /api/tasks/:id/ai-runs',
      call: (c, f) => send(c, 'GET', `/api/tasks/${f.task.id}/ai-runs`),
      expected: readers,
    },
    {
      route: 'POST /api/ai/execute',
      call: (c, f) => send(c, 'POST', '/api/ai/execute', { taskId: f.task.id }),
      expected: editors,
    },
    {
      route: 'POST /api/ai/proposals/:id/apply',
      call: (c, f) => send(c, 'POST', `/api/ai/proposals/${f.proposalId}/apply`),
      expected: editors,
    },
    {
      route: 'POST /api/ai/proposals/:id/dismiss',
      call: (c, f) => send(c, 'POST', `/api/ai/proposals/${f.proposalId}/dismiss`),
      expected: editors,
    },
    {
      route: 'GET /api/projects/:id/sections',
      call: (c, f) => send(c, 'GET', `/api/projects/${f.projectId}/sections`),
      expected: readers,
    },
    {
      route: 'POST /api/projects/:id/sections',
      call: (c, f) => send(c, 'POST', `/api/projects/${f.projectId}/sections`, { name: 'Done' }),
      expected: editors,
    },
    {
      route: 'PATCH /api/sections/:id',
      call: (c, f) => send(c, 'PATCH', `/api/sections/${f.sectionId}`, { name: 'Doing now' }),
      expected: editors,
    },
    {
      route: 'POST /api/sections/:id/move',
      call: (c, f) => send(c, 'POST', `/api/sections/${f.sectionId}/move`, { afterId: null }),
      expected: editors,
    },
    {
      route: 'DELETE /api/sections/:id',
      call: (c, f) => send(c, 'DELETE', `/api/sections/${f.sectionId}`),
      expected: editors,
    },
    {
      // Issue 29: anyone who sees the project may save it as a template of their own.
      route: 'POST /api/projects/:id/template',
      call: (c, f) => send(c, 'POST', `/api/projects/${f.projectId}/template`, {}),
      expected: readers,
    },
    {
      route: 'DELETE /api/templates/:id',
      call: (c, f) => withTemplate(f.projectId, (id) => send(c, 'DELETE', `/api/templates/${id}`)),
      expected: ownerOnly,
    },
    {
      route: 'POST /api/import',
      variant: '?projectId',
      call: (c, f) =>
        sendRaw(
          c,
          'POST',
          `/api/import?projectId=${f.projectId}`,
          multipart('file', 'tasks.csv', 'text/csv', 'title\r\nImported\r\n'),
        ),
      expected: editors,
    },
  ];

  /** Routes that reach into a project's content by an id in the path. */
  const insideProjects = (url: string) =>
    /^\/api\/(tasks\/:(id|taskId)|checklist\/:id|files\/:id|comments\/:id|reminders\/:id|ai\/proposals\/:id|sections\/:id|projects\/:id\/(sections|template))/.test(
      url,
    );
  /** A person's own things by id (issue 23): labels and saved filters, whose owner alone reaches them. */
  const ownById = (url: string) => /^\/api\/(labels|filters|templates)\/:id$|^\/api\/webhooks\/:id/.test(url);
  /** Routes outside any one id that still take a project (a list, a new task, an order, a run, an import). */
  const TAKING_A_PROJECT = [
    'GET /api/tasks',
    'GET /api/tasks/archived',
    'POST /api/tasks',
    'POST /api/tasks/reorder',
    'POST /api/ai/execute',
    'POST /api/import',
    'POST /api/webhooks',
  ];

  it('names every registered route that reaches into a project', () => {
    const registered = t.routes
      .filter((route) => route.method !== 'HEAD')
      .map((route) => `${route.method} ${route.url}`)
      .filter(
        (name) =>
          insideProjects(name.split(' ')[1]!) ||
          ownById(name.split(' ')[1]!) ||
          TAKING_A_PROJECT.includes(name),
      );
    expect([...new Set(ROUTES.map((route) => route.route))].sort()).toEqual([...new Set(registered)].sort());
  });

  it.each(ROUTES)('$route $variant: each role and a non-member', async ({ call, expected }) => {
    const got: Record<string, Outcome> = {};
    // A fresh project for each caller, made side by side (the database's waits overlap).
    const fixtures = await Promise.all(CALLERS.map(() => fixture()));
    for (const [index, caller] of CALLERS.entries()) {
      const response = await call(people[caller], fixtures[index]!);
      const status = response.statusCode;
      got[caller] = status === 403 || status === 404 ? status : 'ok';
      if (status === 403) {
        const { message } = response.json() as { message: string };
        expect(message.length, message).toBeGreaterThan(0);
      }
      if (status === 404 && expected[caller] === 404 && caller === 'non-member') {
        // The words of something that does not exist: nothing says this one does.
        expect(response.json()).toMatchObject({ message: expect.stringMatching(/ not found$/) });
      }
      expect(status, `${caller}: ${response.body}`).toBeLessThan(500);
    }
    expect(got).toEqual(expected);
  });

  /**
   * Issue 24: the owner's own API token, limited to their Inbox, reaches none of the project's
   * routes (404, as for a non-member); their labels and saved filters are theirs, not the project's;
   * webhooks are refused to it outright.
   */
  it.each(ROUTES)(
    '$route $variant: the owner’s token limited to another project',
    async ({ route, call, expected }) => {
      const minted = await send(people.owner, 'POST', '/api/tokens', {
        name: 'Inbox only',
        projectIds: [people.owner.inboxId],
      });
      expect(minted.statusCode, minted.body).toBe(201);
      const authorization = `Bearer ${(minted.json() as { token: string }).token}`;
      const limited: TestUser = {
        ...people.owner,
        headers: { authorization } as unknown as TestUser['headers'],
        request: (method, url, body) =>
          t.app.inject({
            method: method as 'GET',
            url,
            headers: { authorization },
            ...(body === undefined ? {} : { payload: body as object }),
          }),
      };
      const response = await call(limited, await fixture());
      expect(response.statusCode, response.body).toBeLessThan(500);
      const outcome = response.statusCode === 403 || response.statusCode === 404 ? response.statusCode : 'ok';
      // A webhook hears of more than one project (without one, of assigned tasks everywhere): a
      // limited token manages none, as it creates no project and exports nothing (403).
      const beyond = route.split(' ')[1]!.startsWith(WEBHOOKS_PATH);
      expect(outcome, response.body).toBe(beyond ? 403 : expected === ownerOnly ? 'ok' : 404);
    },
  );

  it('403 names the role needed, and a non-member cannot tell a task from one that does not exist', async () => {
    const f = await fixture();
    const refused = await send(people.viewer, 'PATCH', `/api/tasks/${f.task.id}`, { title: 'No' });
    expect(refused.json()).toEqual({ message: ACCESS_MESSAGES.editor });
    const hidden = await send(people['non-member'], 'GET', `/api/tasks/${f.task.id}`);
    const missing = await send(people['non-member'], 'GET', '/api/tasks/999999');
    expect([hidden.statusCode, hidden.json()]).toEqual([missing.statusCode, missing.json()]);
  });
});
