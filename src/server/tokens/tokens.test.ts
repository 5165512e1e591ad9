import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectLimitOf, withTokenLimits } from '../access/token-limits';
import { hashToken } from '../auth/tokens';
import { BEARER_MESSAGES } from '../http/session';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { withDatabaseMigratedTo } from '../testing/migrations';

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(testDialects)('API tokens and devices on %s', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  const bearer = (token: string, method: string, url: string, payload?: unknown, extra = {}) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, ...extra },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  async function mint(user: TestUser, body: unknown = { name: 'script' }) {
    const response = await user.request('POST', '/api/tokens', body);
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as {
      id: number;
      name: string;
      token: string;
      createdAt: string;
      expiresAt: string | null;
    };
  }

  /** Signs the user in once more, as another device; returns that session's id. */
  async function signInAgain(user: TestUser, userAgent = 'Another browser/1.0'): Promise<string> {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'user-agent': userAgent },
      payload: { username: user.user.username, password: user.password },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().sessionId;
  }

  const asSession = (sessionId: string, method: string, url: string) =>
    t.app.inject({ method: method as 'GET', url, headers: { 'user-session': sessionId } });

  describe('tokens', () => {
    it('creates a token shown once, lists it without secrets, and deletes it', async () => {
      const user = await t.signUp();
      const before = Date.now();
      const created = await mint(user, { name: '  Backup script  ' });
      expect(created).toEqual({
        id: expect.any(Number),
        name: 'Backup script',
        token: expect.stringMatching(/^tl_[A-Za-z0-9_-]{43}$/),
        createdAt: expect.any(String),
        expiresAt: null,
        scopes: ['read', 'write'],
        projectIds: null,
      });
      expect(new Date(created.createdAt).getTime()).toBeGreaterThanOrEqual(before - 1000);

      const withExpiry = await mint(user, { name: 'ci', expiresInDays: 30 });
      const expiresIn = new Date(withExpiry.expiresAt!).getTime() - new Date(withExpiry.createdAt).getTime();
      expect(expiresIn).toBe(30 * DAY_MS);
      expect(withExpiry.token).not.toBe(created.token);

      const list = await user.request('GET', '/api/tokens');
      expect(list.statusCode).toBe(200);
      expect(list.json()).toEqual([
        {
          id: withExpiry.id,
          name: 'ci',
          createdAt: withExpiry.createdAt,
          expiresAt: withExpiry.expiresAt,
          lastUsedAt: null,
          scopes: ['read', 'write'],
          projectIds: null,
        },
        {
          id: created.id,
          name: 'Backup script',
          createdAt: created.createdAt,
          expiresAt: null,
          lastUsedAt: null,
          scopes: ['read', 'write'],
          projectIds: null,
        },
      ]);
      expect(list.body).not.toContain(created.token);
      expect(list.body).not.toContain(withExpiry.token);
      expect(list.body).not.toMatch(/hash|token"/i);

      const removed = await user.request('DELETE', `/api/tokens/${created.id}`);
      expect(removed.statusCode).toBe(204);
      expect((await user.request('GET', '/api/tokens')).json().map((x: { id: number }) => x.id)).toEqual([
        withExpiry.id,
      ]);
      expect((await user.request('DELETE', `/api/tokens/${created.id}`)).statusCode).toBe(404);
    });

    it('stores only the SHA-256 of the token', async () => {
      const user = await t.signUp();
      const { id, token } = await mint(user);
      const row = await t.ctx.db.kysely
        .selectFrom('api_tokens')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain(token);
      expect(row.token_hash).toBe(hashToken(token));
    });

    it('validates the name and the expiry', async () => {
      const user = await t.signUp();
      for (const body of [
        {},
        { name: '   ' },
        { name: 'x'.repeat(101) },
        { name: 42 },
        { name: 'ok', expiresInDays: 0 },
        { name: 'ok', expiresInDays: 366 },
        { name: 'ok', expiresInDays: 1.5 },
        { name: 'ok', expiresInDays: '7' },
      ]) {
        const response = await user.request('POST', '/api/tokens', body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json().message).toEqual(expect.any(String));
      }
      expect(
        (await user.request('POST', '/api/tokens', { name: 'x'.repeat(100), expiresInDays: 365 })).statusCode,
      ).toBe(201);
      expect(
        (await user.request('POST', '/api/tokens', { name: 'one day', expiresInDays: 1 })).statusCode,
      ).toBe(201);
    });

    it('answers 404 for malformed token ids', async () => {
      const user = await t.signUp();
      for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
        const response = await user.request('DELETE', `/api/tokens/${id}`);
        expect(response.statusCode, id).toBe(404);
        expect(response.json().message).toEqual(expect.any(String));
      }
    });

    it('keeps one person from seeing or revoking another person’s tokens', async () => {
      const alice = await t.signUp();
      const bob = await t.signUp();
      const { id, token } = await mint(alice);
      expect((await bob.request('GET', '/api/tokens')).json()).toEqual([]);
      const response = await bob.request('DELETE', `/api/tokens/${id}`);
      expect(response.statusCode).toBe(404);
      expect(response.json().message).toEqual(expect.any(String));
      expect((await bearer(token, 'GET', '/api/auth/me')).json().user.id).toBe(alice.user.id);
    });
  });

  describe('Authorization: Bearer', () => {
    it('works on GET and POST /api/tasks by itself, with no session or cookie', async () => {
      const user = await t.signUp();
      const { token } = await mint(user);
      const created = await bearer(token, 'POST', '/api/tasks', { title: 'From a script' });
      expect(created.statusCode, created.body).toBe(201);
      const list = await bearer(token, 'GET', '/api/tasks');
      expect(list.statusCode).toBe(200);
      expect(list.json().map((task: { title: string }) => task.title)).toEqual(['From a script']);
      // The same list the person sees in the browser.
      expect((await user.request('GET', '/api/tasks')).json()).toEqual(list.json());
      expect((await bearer(token, 'GET', '/api/auth/me')).json().user.id).toBe(user.user.id);
    });

    it('needs no same-origin check: no cookie is involved', async () => {
      const user = await t.signUp();
      const { token } = await mint(user);
      const response = await bearer(
        token,
        'POST',
        '/api/tasks',
        { title: 'Cross-site script' },
        { origin: 'https://elsewhere.example' },
      );
      expect(response.statusCode, response.body).toBe(201);
    });

    it('is authenticated by the token alone: session headers are ignored', async () => {
      const alice = await t.signUp();
      const bob = await t.signUp();
      const { token } = await mint(alice);
      const withBobsSession = await bearer(token, 'GET', '/api/auth/me', undefined, bob.headers);
      expect(withBobsSession.json().user.id).toBe(alice.user.id);
      // A bad token is refused even next to a valid session.
      const badToken = await bearer('tl_not-a-real-token', 'GET', '/api/auth/me', undefined, bob.headers);
      expect(badToken.statusCode).toBe(401);
      expect(badToken.json().message).toBe(BEARER_MESSAGES.invalid);
      expect((await bearer('', 'GET', '/api/tasks')).statusCode).toBe(401);
      expect((await bearer(alice.sessionId, 'GET', '/api/tasks')).statusCode).toBe(401);
      // Only the API looks at tokens: a health check with a stray header still answers.
      expect((await bearer('tl_not-a-real-token', 'GET', '/healthz')).statusCode).toBe(200);
    });

    it('records the last use', async () => {
      const user = await t.signUp();
      const { token } = await mint(user);
      const before = Date.now();
      await bearer(token, 'GET', '/api/tasks');
      const [listed] = (await user.request('GET', '/api/tokens')).json();
      expect(new Date(listed.lastUsedAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
    });

    it('answers 401 at once to a revoked token', async () => {
      const user = await t.signUp();
      const { id, token } = await mint(user);
      expect((await bearer(token, 'GET', '/api/tasks')).statusCode).toBe(200);
      expect((await user.request('DELETE', `/api/tokens/${id}`)).statusCode).toBe(204);
      const response = await bearer(token, 'GET', '/api/tasks');
      expect(response.statusCode).toBe(401);
      expect(response.json().message).toBe(BEARER_MESSAGES.invalid);
    });

    it('answers 401 to an expired token', async () => {
      const user = await t.signUp();
      const { id, token } = await mint(user, { name: 'short', expiresInDays: 1 });
      expect((await bearer(token, 'GET', '/api/tasks')).statusCode).toBe(200);
      await t.ctx.db.kysely
        .updateTable('api_tokens')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', id)
        .execute();
      expect((await bearer(token, 'GET', '/api/tasks')).statusCode).toBe(401);
    });

    it('answers 401 to the token of a suspended or deleted user', async () => {
      const admin = await t.signUp({ isAdmin: true });
      const suspended = await t.signUp();
      const deleted = await t.signUp();
      const suspendedToken = (await mint(suspended)).token;
      const deletedToken = (await mint(deleted)).token;

      const suspend = await admin.request('PATCH', `/api/admin/users/${suspended.user.id}/suspend`);
      expect(suspend.statusCode, suspend.body).toBe(200);
      expect((await bearer(suspendedToken, 'GET', '/api/tasks')).statusCode).toBe(401);

      expect((await admin.request('DELETE', `/api/admin/users/${deleted.user.id}`)).statusCode).toBe(204);
      expect((await bearer(deletedToken, 'GET', '/api/tasks')).statusCode).toBe(401);
    });

    it('answers 403 on changing the password and on managing tokens and sessions', async () => {
      const user = await t.signUp({ password: 'old-password' });
      const { id, token } = await mint(user);
      const calls: Array<[string, string, unknown?]> = [
        [
          'POST',
          '/api/auth/change-password',
          { currentPassword: 'old-password', newPassword: 'new-password' },
        ],
        ['GET', '/api/tokens'],
        ['POST', '/api/tokens', { name: 'minted by a token' }],
        ['DELETE', `/api/tokens/${id}`],
        ['DELETE', '/api/tokens/abc'],
        ['GET', '/api/auth/sessions'],
        ['DELETE', '/api/auth/sessions'],
        ['DELETE', '/api/auth/sessions/AAAAAAAAAAAAAAAAAAAAAA'],
      ];
      for (const [method, url, body] of calls) {
        const response = await bearer(token, method, url, body);
        expect(response.statusCode, `${method} ${url}`).toBe(403);
        expect(response.json().message).toBe(BEARER_MESSAGES.sessionRequired);
      }
      // Nothing changed: the old password still signs in, the token still exists, the session lives.
      expect((await signInAgain(user)).length).toBeGreaterThan(0);
      expect((await user.request('GET', '/api/tokens')).json()).toHaveLength(1);
      expect((await user.request('GET', '/api/auth/me')).statusCode).toBe(200);
    });
  });

  describe('limits (issue 24)', () => {
    /** Alice with a task in her Inbox, in a project of her own and in one of Bob's she edits in. */
    async function world() {
      const alice = await t.signUp();
      const bob = await t.signUp();
      const own = (await alice.request('POST', '/api/projects', { name: 'Website' })).json().id as number;
      const shared = (await bob.request('POST', '/api/projects', { name: 'Garden' })).json().id as number;
      const added = await bob.request('POST', `/api/projects/${shared}/members`, {
        user: alice.user.username,
        role: 'editor',
      });
      expect(added.statusCode, added.body).toBe(201);
      const task = async (who: TestUser, title: string, projectId?: number) => {
        const created = await who.request('POST', '/api/tasks', { title, projectId });
        expect(created.statusCode, created.body).toBe(201);
        return created.json().id as number;
      };
      return {
        alice,
        bob,
        own,
        shared,
        tasks: {
          inbox: await task(alice, 'In the Inbox'),
          own: await task(alice, 'On the website', own),
          shared: await task(bob, 'In the garden', shared),
        },
      };
    }

    it('creates read-only and project-limited tokens and lists their limits; both by default', async () => {
      const { alice, own, shared } = await world();
      const limited = await mint(alice, {
        name: 'reader',
        scopes: ['read'],
        projectIds: [own, alice.inboxId, own],
      });
      expect(limited).toMatchObject({ scopes: ['read'], projectIds: [own, alice.inboxId] });
      const writer = await mint(alice, { name: 'writer', scopes: ['write', 'read'], projectIds: [shared] });
      expect(writer).toMatchObject({ scopes: ['read', 'write'], projectIds: [shared] });
      const everything = await mint(alice, { name: 'all', projectIds: null });
      expect(everything).toMatchObject({ scopes: ['read', 'write'], projectIds: null });
      const listed = (await alice.request('GET', '/api/tokens')).json();
      expect(
        listed.map((token: { name: string; scopes: string[]; projectIds: number[] | null }) => [
          token.name,
          token.scopes,
          token.projectIds,
        ]),
      ).toEqual([
        ['all', ['read', 'write'], null],
        ['writer', ['read', 'write'], [shared]],
        ['reader', ['read'], [own, alice.inboxId]],
      ]);
    });

    it('refuses bad scopes and projectIds with a 400 naming the field, creating nothing', async () => {
      const { alice, bob } = await world();
      const bobsOwn = (await bob.request('POST', '/api/projects', { name: 'Private' })).json().id;
      for (const [body, field] of [
        [{ scopes: [] }, 'scopes'],
        [{ scopes: ['write'] }, 'scopes'],
        [{ scopes: ['read', 'admin'] }, 'scopes'],
        [{ scopes: 'read' }, 'scopes'],
        [{ projectIds: [] }, 'projectIds'],
        [{ projectIds: [0] }, 'projectIds'],
        [{ projectIds: ['1'] }, 'projectIds'],
        [{ projectIds: 'all' }, 'projectIds'],
        [{ projectIds: [bobsOwn] }, 'projectIds'],
        [{ projectIds: [bob.inboxId] }, 'projectIds'],
        [{ projectIds: [alice.inboxId, 99_999_999] }, 'projectIds'],
      ] as const) {
        const response = await alice.request('POST', '/api/tokens', { name: 'bad', ...body });
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json().message, JSON.stringify(body)).toContain(field);
      }
      expect((await alice.request('GET', '/api/tokens')).json()).toEqual([]);
    });

    it('a read-only token reads, and gets 403 on every route that is not a read', async () => {
      const { alice, tasks } = await world();
      const { id, token } = await mint(alice, { name: 'reader', scopes: ['read'] });
      expect((await bearer(token, 'GET', '/api/tasks')).json().map((x: { id: number }) => x.id)).toEqual([
        tasks.inbox,
      ]);
      expect((await bearer(token, 'GET', `/api/tasks/${tasks.own}`)).statusCode).toBe(200);
      const writes = t.routes.filter(
        (route) => route.url.startsWith('/api/') && !['GET', 'HEAD', 'OPTIONS'].includes(route.method),
      );
      expect(writes.length).toBeGreaterThan(50);
      for (const route of writes) {
        const url = route.url.replace(/:[A-Za-z]+/g, String(tasks.inbox));
        for (const payload of ['{}', '{"title": "x", "name": "x"}', '{"oops":']) {
          const response = await t.app.inject({
            method: route.method as 'POST',
            url,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            payload,
          });
          expect(response.statusCode, `${route.method} ${url}: ${response.body}`).toBe(403);
          expect(response.json()).toEqual({ message: 'This token can only read' });
        }
      }
      // Nothing changed: the task, the token and the session are as they were.
      expect((await alice.request('GET', `/api/tasks/${tasks.inbox}`)).json().title).toBe('In the Inbox');
      expect((await alice.request('GET', '/api/tokens')).json().map((x: { id: number }) => x.id)).toEqual([
        id,
      ]);
      expect((await alice.request('GET', '/api/auth/me')).statusCode).toBe(200);
    });

    it('a token limited to some projects sees and changes their tasks alone: 404 elsewhere, lists filtered', async () => {
      const { alice, own, shared, tasks } = await world();
      const { token } = await mint(alice, { name: 'website', projectIds: [own] });
      const as = (method: string, url: string, body?: unknown) => bearer(token, method, url, body);
      const ids = async (url: string) => {
        const response = await as('GET', url);
        expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
        return response.json().map((x: { id: number }) => x.id);
      };

      expect(await ids(`/api/tasks?projectId=${own}`)).toEqual([tasks.own]);
      expect(await ids('/api/tasks?projectId=all')).toEqual([tasks.own]);
      expect(await ids('/api/tasks?projectId=all&q=garden')).toEqual([]);
      expect(await ids('/api/projects')).toEqual([own]);
      // The session sees everything still.
      expect((await alice.request('GET', '/api/tasks?projectId=all')).json()).toHaveLength(3);

      for (const [method, url, body] of [
        ['GET', '/api/tasks'],
        ['GET', '/api/tasks/archived'],
        ['GET', `/api/tasks?projectId=${shared}`],
        ['GET', `/api/tasks/archived?projectId=${shared}`],
        ['GET', `/api/tasks/${tasks.inbox}`],
        ['GET', `/api/tasks/${tasks.shared}`],
        ['PATCH', `/api/tasks/${tasks.shared}`, { title: 'Mine now' }],
        ['PATCH', `/api/tasks/${tasks.own}`, { projectId: shared }],
        ['POST', `/api/tasks/${tasks.shared}/complete`, {}],
        ['DELETE', `/api/tasks/${tasks.inbox}`],
        ['POST', '/api/tasks', { title: 'Into the Inbox' }],
        ['POST', '/api/tasks', { title: 'Into the garden', projectId: shared }],
        ['GET', `/api/tasks/${tasks.shared}/comments`],
        ['POST', `/api/tasks/${tasks.shared}/comments`, { body: 'Hello' }],
        ['GET', `/api/tasks/${tasks.shared}/checklist`],
        ['POST', `/api/tasks/${tasks.shared}/checklist`, { title: 'Step' }],
        ['GET', `/api/tasks/${tasks.shared}/files`],
        ['GET', `/api/tasks/${tasks.shared}/activity`],
        ['GET', `/api/tasks/${tasks.shared}/ai-runs`],
        ['GET', `/api/tasks/${tasks.shared}/reminders`],
        ['GET', `/api/projects/${shared}/sections`],
        ['POST', `/api/projects/${shared}/sections`, { name: 'Doing' }],
        ['GET', `/api/projects/${shared}/members`],
        ['PATCH', `/api/projects/${alice.inboxId}`, { color: 'red' }],
      ] as const) {
        const response = await as(method, url, body);
        expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(404);
        expect(response.json().message).toMatch(/ not found$/);
      }

      // Inside its project it works as the person's own session does.
      expect((await as('PATCH', `/api/tasks/${tasks.own}`, { title: 'Relaunch' })).statusCode).toBe(200);
      expect((await as('POST', '/api/tasks', { title: 'New page', projectId: own })).statusCode).toBe(201);
      expect((await as('POST', `/api/tasks/${tasks.own}/comments`, { body: 'Done' })).statusCode).toBe(201);
      expect((await as('GET', `/api/projects/${own}/members`)).statusCode).toBe(200);

      // What would reach past its projects is refused: a new project, an export, a calendar feed.
      for (const [method, url] of [
        ['POST', '/api/projects'],
        ['GET', '/api/export?format=json'],
        ['GET', '/api/export?format=csv'],
        ['POST', '/api/calendar-feed'],
      ] as const) {
        const response = await as(method, url, method === 'POST' ? { name: 'More' } : undefined);
        expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(403);
        expect(response.json()).toEqual({ message: 'This token is limited to some projects' });
      }
      expect((await alice.request('GET', '/api/projects')).json()).toHaveLength(3);
      expect((await alice.request('GET', `/api/tasks/${tasks.shared}`)).json().title).toBe('In the garden');
    });

    it('a token limited to some projects reads and marks read the notifications of those alone', async () => {
      const { alice, bob, own, shared, tasks } = await world();
      // Bob joins Alice's project; each assigns the other a task: one notification per project.
      const joined = await alice.request('POST', `/api/projects/${own}/members`, {
        user: bob.user.username,
        role: 'editor',
      });
      expect(joined.statusCode, joined.body).toBe(201);
      await bob.request('PATCH', `/api/tasks/${tasks.own}`, { assigneeIds: [alice.user.id] });
      await bob.request('PATCH', `/api/tasks/${tasks.shared}`, { assigneeIds: [alice.user.id] });
      const projectsOf = async (
        url: string,
        who: (m: string, u: string, b?: unknown) => Promise<{ json(): unknown }>,
      ) =>
        ((await who('GET', url)).json() as Array<{ projectId: number | null; readAt: string | null }>)
          .filter((n) => n.readAt === null)
          .map((n) => n.projectId);
      const session = (method: string, url: string, body?: unknown) => alice.request(method, url, body);
      // Alice was told of each assignment, and of being added to Bob's project.
      expect(new Set(await projectsOf('/api/notifications', session))).toEqual(new Set([own, shared]));

      const { token } = await mint(alice, { name: 'website', projectIds: [own] });
      const as = (method: string, url: string, body?: unknown) => bearer(token, method, url, body);
      expect(new Set(await projectsOf('/api/notifications', as))).toEqual(new Set([own]));
      const all = await as('POST', '/api/notifications/read', { all: true });
      expect(all.statusCode, all.body).toBe(200);
      // The other project's notification is still unread, and its id cannot be marked either.
      const [other] = (await session('GET', '/api/notifications?unread=1')).json() as Array<{
        id: number;
        projectId: number;
      }>;
      expect(other?.projectId).toBe(shared);
      await as('POST', '/api/notifications/read', { ids: [other!.id] });
      const unread = await projectsOf('/api/notifications', session);
      expect(unread.length).toBeGreaterThan(1);
      expect(new Set(unread)).toEqual(new Set([shared]));
    });

    it("an administrator's token limited to some projects does not administer the server (403)", async () => {
      const admin = await t.signUp({ isAdmin: true });
      const limited = await mint(admin, { name: 'inbox', projectIds: [admin.inboxId] });
      const refused = await bearer(limited.token, 'GET', '/api/admin/users');
      expect([refused.statusCode, refused.json()]).toEqual([
        403,
        { message: 'This token is limited to some projects' },
      ]);
      const everything = await mint(admin, { name: 'all' });
      expect((await bearer(everything.token, 'GET', '/api/admin/users')).statusCode).toBe(200);
    });

    it('never widens: a project it was limited to that is left or deleted is simply gone from it', async () => {
      const { alice, bob, shared, tasks } = await world();
      const { token } = await mint(alice, { name: 'garden', projectIds: [shared] });
      expect((await bearer(token, 'GET', '/api/projects')).json().map((p: { id: number }) => p.id)).toEqual([
        shared,
      ]);
      expect(
        (await bob.request('DELETE', `/api/projects/${shared}/members/${alice.user.id}`)).statusCode,
      ).toBe(204);
      expect((await bearer(token, 'GET', '/api/projects')).json()).toEqual([]);
      expect((await bearer(token, 'GET', '/api/tasks?projectId=all')).json()).toEqual([]);
      expect((await bearer(token, 'GET', `/api/tasks/${tasks.shared}`)).statusCode).toBe(404);
      expect((await bob.request('DELETE', `/api/projects/${shared}`)).statusCode).toBe(204);
      expect((await bearer(token, 'GET', '/api/projects')).json()).toEqual([]);
      expect((await bearer(token, 'GET', `/api/tasks/${tasks.own}`)).statusCode).toBe(404);
      expect((await bearer(token, 'GET', '/api/tasks')).statusCode).toBe(404);
    });
  });

  it('jobs woken in a token’s request run without its limits (decision 042)', async () => {
    const user = await t.signUp();
    const seen: Array<ReadonlySet<number> | null> = [];
    t.ctx.jobs.register('token-limits-probe', async (_job, run) => {
      seen.push(projectLimitOf(user.user.id));
      await run.complete();
    });
    await t.ctx.jobs.enqueue([{ key: `probe-${user.user.id}`, kind: 'token-limits-probe', payload: {} }]);
    withTokenLimits({ userId: user.user.id, write: true, projectIds: new Set([user.inboxId]) }, () =>
      t.ctx.jobs.wake(),
    );
    await t.ctx.jobs.runDue();
    expect(seen).toEqual([null]);
  });

  describe('your devices', () => {
    it('lists the sessions with the current one marked, its user agent and address', async () => {
      const user = await t.signUp();
      const other = await signInAgain(user, 'Mozilla/5.0 (Phone) Test/1.0');
      const response = await user.request('GET', '/api/auth/sessions');
      expect(response.statusCode).toBe(200);
      const sessions = response.json();
      expect(sessions).toHaveLength(2);
      for (const session of sessions) {
        expect(session).toEqual({
          id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
          createdAt: expect.any(String),
          lastSeenAt: expect.any(String),
          userAgent: expect.any(String),
          ip: '127.0.0.1',
          current: expect.any(Boolean),
        });
      }
      const current = sessions.find((s: { current: boolean }) => s.current);
      const phone = sessions.find((s: { current: boolean }) => !s.current);
      expect(current.userAgent).toBe('lightMyRequest');
      expect(phone.userAgent).toBe('Mozilla/5.0 (Phone) Test/1.0');
      // Neither the secrets nor their hashes leave.
      for (const secret of [user.sessionId, other, hashToken(user.sessionId), hashToken(other)]) {
        expect(response.body).not.toContain(secret);
      }
      const fromOther = (await asSession(other, 'GET', '/api/auth/sessions')).json();
      expect(fromOther.find((s: { current: boolean }) => s.current).id).toBe(phone.id);
    });

    it('keeps at most 400 characters of the user agent', async () => {
      const user = await t.signUp();
      await signInAgain(user, `UA/${'x'.repeat(1000)}`);
      const sessions = (await user.request('GET', '/api/auth/sessions')).json();
      const long = sessions.find((s: { current: boolean }) => !s.current);
      expect(long.userAgent).toHaveLength(400);
    });

    it('ends another session: its next request is a 401', async () => {
      const user = await t.signUp();
      const other = await signInAgain(user);
      const phone = (await user.request('GET', '/api/auth/sessions'))
        .json()
        .find((s: { current: boolean }) => !s.current);
      expect((await asSession(other, 'GET', '/api/tasks')).statusCode).toBe(200);
      const response = await user.request('DELETE', `/api/auth/sessions/${phone.id}`);
      expect(response.statusCode).toBe(204);
      expect(String(response.headers['set-cookie'] ?? '')).not.toMatch(/tasklane_session=;/);
      expect((await asSession(other, 'GET', '/api/tasks')).statusCode).toBe(401);
      expect((await user.request('GET', '/api/tasks')).statusCode).toBe(200);
      expect((await user.request('GET', '/api/auth/sessions')).json()).toHaveLength(1);
    });

    it('signs out everywhere else, keeping only the current session', async () => {
      const user = await t.signUp();
      const others = [await signInAgain(user), await signInAgain(user), await signInAgain(user)];
      const bystander = await t.signUp();
      expect((await user.request('GET', '/api/auth/sessions')).json()).toHaveLength(4);
      expect((await user.request('DELETE', '/api/auth/sessions')).statusCode).toBe(204);
      const left = (await user.request('GET', '/api/auth/sessions')).json();
      expect(left).toHaveLength(1);
      expect(left[0].current).toBe(true);
      for (const other of others) expect((await asSession(other, 'GET', '/api/tasks')).statusCode).toBe(401);
      expect((await bystander.request('GET', '/api/tasks')).statusCode).toBe(200);
    });

    it('ending the current session signs out and clears the cookie', async () => {
      const user = await t.signUp();
      const [current] = (await user.request('GET', '/api/auth/sessions')).json();
      expect(current.current).toBe(true);
      const response = await user.request('DELETE', `/api/auth/sessions/${current.id}`);
      expect(response.statusCode).toBe(204);
      expect(String(response.headers['set-cookie'])).toMatch(/tasklane_session=;/);
      expect((await user.request('GET', '/api/auth/me')).statusCode).toBe(401);
    });

    it('answers 404 for another person’s session, an unknown or a malformed id', async () => {
      const alice = await t.signUp();
      const bob = await t.signUp();
      const [alices] = (await alice.request('GET', '/api/auth/sessions')).json();
      for (const id of [alices.id, 'AAAAAAAAAAAAAAAAAAAAAA', 'abc', '1', '%00']) {
        const response = await bob.request('DELETE', `/api/auth/sessions/${id}`);
        expect(response.statusCode, id).toBe(404);
        expect(response.json().message).toEqual(expect.any(String));
      }
      expect((await alice.request('GET', '/api/tasks')).statusCode).toBe(200);
    });

    it('needs a session: 401 without one', async () => {
      for (const [method, url] of [
        ['GET', '/api/auth/sessions'],
        ['DELETE', '/api/auth/sessions'],
        ['DELETE', '/api/auth/sessions/AAAAAAAAAAAAAAAAAAAAAA'],
        ['GET', '/api/tokens'],
        ['POST', '/api/tokens'],
        ['DELETE', '/api/tokens/1'],
      ]) {
        const response = await t.app.inject({ method: method as 'GET', url });
        expect(response.statusCode, `${method} ${url}`).toBe(401);
      }
    });

    it('gives a public id to a session written before the devices migration', async () => {
      const user = await t.signUp();
      await t.ctx.db.kysely
        .updateTable('sessions')
        .set({ public_id: null })
        .where('id_hash', '=', hashToken(user.sessionId))
        .execute();
      const [session] = (await user.request('GET', '/api/auth/sessions')).json();
      expect(session.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect((await user.request('GET', '/api/auth/sessions')).json()[0].id).toBe(session.id);
    });
  });
});

describe.each(testDialects)('migration 0004 on %s', (dialect) => {
  it('gives every existing session a distinct public id', () =>
    withDatabaseMigratedTo(dialect, '0003_rate_limiter_store', async (db, migrateToLatest) => {
      const now = new Date().toISOString();
      await db
        .insertInto('users')
        .values({ username: 'old', first_name: 'old', password_hash: 'x', created_at: now, updated_at: now })
        .execute();
      const { id } = await db.selectFrom('users').select('id').executeTakeFirstOrThrow();
      for (const idHash of ['hash-a', 'hash-b']) {
        await db
          .insertInto('sessions')
          .values({ id_hash: idHash, user_id: id, created_at: now, last_used_at: now, expires_at: now })
          .execute();
      }
      await migrateToLatest();
      const rows = await db.selectFrom('sessions').select(['public_id', 'user_agent', 'ip']).execute();
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(row.public_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
        expect(row.user_agent).toBeNull();
        expect(row.ip).toBeNull();
      }
      expect(new Set(rows.map((row) => row.public_id)).size).toBe(2);
    }));
});
