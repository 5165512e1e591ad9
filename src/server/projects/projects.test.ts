import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PROJECT_COLORS,
  PROJECT_MESSAGES,
  type Project,
  type ProjectMember,
  type ProjectRole,
} from '../../common/projects';
import { ACCESS_MESSAGES, createAccess } from '../access';
import type { MailMessage } from '../mail/mailer';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { withDatabaseMigratedTo } from '../testing/migrations';

const MEMBER_ROLES = ['admin', 'editor', 'commenter', 'viewer'] as const;
type Caller = ProjectRole | 'non-member';
const CALLERS: Caller[] = ['owner', ...MEMBER_ROLES, 'non-member'];

describe.each(testDialects)('projects, members and roles on %s', (dialect) => {
  let t: TestApp;
  const mails: MailMessage[] = [];
  let people: Record<Caller | 'target' | 'newcomer', TestUser>;

  beforeAll(async () => {
    t = await createTestApp(dialect, {
      mailer: {
        send: async (message) => {
          mails.push(message);
        },
        close: () => {},
      },
    });
    const entries = await Promise.all(
      [...CALLERS, 'target', 'newcomer'].map(async (name) => [name, await t.signUp()] as const),
    );
    people = Object.fromEntries(entries) as typeof people;
  });
  afterAll(async () => {
    await t.close();
  });

  async function projectsOf(user: TestUser): Promise<Project[]> {
    const response = await user.request('GET', '/api/projects');
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  async function create(user: TestUser, body: unknown = { name: 'Launch' }): Promise<Project> {
    const response = await user.request('POST', '/api/projects', body);
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  let shares = 0;
  async function share(owner: TestUser, projectId: number, user: TestUser, role: string) {
    const response = await owner.request('POST', `/api/projects/${projectId}/members`, {
      user: user.user.username,
      role,
    });
    expect(response.statusCode, response.body).toBe(201);
    // Two members added within one millisecond would tie for 'longest-standing': each gets a
    // second of its own, after the owner's.
    shares += 1;
    await t.ctx.db.kysely
      .updateTable('project_members')
      .set({ added_at: new Date(Date.now() + shares * 1000).toISOString() })
      .where('project_id', '=', projectId)
      .where('user_id', '=', user.user.id)
      .execute();
    return response.json() as ProjectMember;
  }

  /** A project owned by people.owner with one member of each role, and `target` a viewer. */
  async function team(): Promise<Project> {
    const project = await create(people.owner, { name: 'Team', color: 'teal' });
    for (const role of MEMBER_ROLES) await share(people.owner, project.id, people[role], role);
    await share(people.owner, project.id, people.target, 'viewer');
    return project;
  }

  const inboxOf = async (user: TestUser) => (await projectsOf(user)).find((p) => p.inbox)!;

  describe('the Inbox', () => {
    it('every user has exactly one, listed first, counting their active tasks', async () => {
      const user = await t.signUp();
      await user.request('POST', '/api/tasks', { title: 'One' });
      await user.request('POST', '/api/tasks', { title: 'Two' });
      await user.request('POST', '/api/tasks', { title: 'Old', archived: true });
      await create(user, { name: 'Alpha' });
      const list = await projectsOf(user);
      expect(list.filter((p) => p.inbox)).toHaveLength(1);
      expect(list[0]).toMatchObject({
        name: 'Inbox',
        inbox: true,
        archived: false,
        role: 'owner',
        ownerId: user.user.id,
        memberCount: 1,
        taskCount: 2,
      });
      expect(list[1]).toMatchObject({ name: 'Alpha', taskCount: 0 });
    });

    it('cannot be shared, renamed, archived, transferred or deleted (400), and a second cannot be made', async () => {
      const user = await t.signUp();
      const inbox = await inboxOf(user);
      const cases: Array<[string, string, unknown, string]> = [
        [
          'POST',
          `/api/projects/${inbox.id}/members`,
          { user: people.target.user.username, role: 'viewer' },
          PROJECT_MESSAGES.inboxShared,
        ],
        ['PATCH', `/api/projects/${inbox.id}`, { name: 'Mine' }, PROJECT_MESSAGES.inboxRenamed],
        ['PATCH', `/api/projects/${inbox.id}`, { archived: true }, PROJECT_MESSAGES.inboxArchived],
        [
          'POST',
          `/api/projects/${inbox.id}/transfer`,
          { userId: people.target.user.id },
          PROJECT_MESSAGES.inboxTransferred,
        ],
        ['DELETE', `/api/projects/${inbox.id}`, undefined, PROJECT_MESSAGES.inboxDeleted],
      ];
      for (const [method, url, body, message] of cases) {
        const response = await user.request(method, url, body);
        expect(response.statusCode, `${method} ${url}`).toBe(400);
        expect(response.json()).toEqual({ message });
      }
      await expect(
        t.ctx.db.kysely
          .insertInto('projects')
          .values({
            name: 'Second',
            color: 'grey',
            owner_id: user.user.id,
            is_inbox: true,
            archived: false,
            created_at: new Date().toISOString(),
            updated_at: new Date().toISOString(),
          })
          .execute(),
      ).rejects.toThrow();
      expect(await inboxOf(user)).toMatchObject({ id: inbox.id, name: 'Inbox' });
    });

    it('is made with every account, in the one place users are inserted', async () => {
      const admin = await t.signUp({ isAdmin: true });
      const created = await admin.request('POST', '/api/admin/users', {
        firstName: 'Nadia',
        email: `nadia-${Date.now()}@example.com`,
      });
      expect(created.statusCode, created.body).toBe(201);
      const userId = created.json().user.id as number;
      const requestedUsername = `olga${Date.now()}`;
      const asked = await t.app.inject({
        method: 'POST',
        url: '/api/access-requests',
        payload: { email: `${requestedUsername}@example.com`, requestedUsername },
      });
      expect(asked.statusCode, asked.body).toBe(201);
      const requests = (await admin.request('GET', '/api/admin/access-requests')).json() as Array<{
        id: number;
        requestedUsername: string;
      }>;
      const request = requests.find((r) => r.requestedUsername === requestedUsername)!;
      const approved = await admin.request('PATCH', `/api/admin/access-requests/${request.id}/approve`);
      expect(approved.statusCode, approved.body).toBe(200);
      const inboxes = await t.ctx.db.kysely
        .selectFrom('projects')
        .select('owner_id')
        .where('is_inbox', '=', true)
        .execute();
      const owners = inboxes.map((row) => row.owner_id);
      expect(owners).toContain(userId);
      expect(owners).toContain(approved.json().user.id);
      const users = await t.ctx.db.kysely.selectFrom('users').select('id').execute();
      expect(new Set(owners)).toEqual(new Set(users.map((u) => u.id)));
      expect(owners).toHaveLength(users.length);
    });
  });

  it('the bootstrap administrator has an Inbox from the first start', async () => {
    const fresh = await createTestApp(dialect);
    try {
      expect((await fresh.ctx.auth.ensureBootstrapAdmin({ username: 'root' })).created).toBe(true);
      const inbox = await fresh.ctx.db.kysely
        .selectFrom('projects')
        .innerJoin('users', 'users.id', 'projects.owner_id')
        .select(['users.username', 'projects.name'])
        .where('projects.is_inbox', '=', true)
        .execute();
      expect(inbox).toEqual([{ username: 'root', name: 'Inbox' }]);
    } finally {
      await fresh.close();
    }
  });

  describe('creating and changing projects', () => {
    it('creates a project the caller owns, names trimmed, grey by default', async () => {
      const user = await t.signUp();
      const project = await create(user, { name: '  Garden  ' });
      expect(project).toMatchObject({
        name: 'Garden',
        color: 'grey',
        inbox: false,
        archived: false,
        role: 'owner',
        ownerId: user.user.id,
        memberCount: 1,
        taskCount: 0,
      });
      const names = (await projectsOf(user)).map((p) => p.name);
      expect(names).toEqual(['Inbox', 'Garden']);
      await create(user, { name: 'apples', color: 'red' });
      expect((await projectsOf(user)).map((p) => p.name)).toEqual(['Inbox', 'apples', 'Garden']);
    });

    it('refuses a bad name or a colour outside the palette of twelve', async () => {
      expect(PROJECT_COLORS).toHaveLength(12);
      const user = people.owner;
      for (const body of [{ name: '   ' }, { name: 'x'.repeat(101) }, { name: 'A', color: 'gold' }, {}]) {
        const response = await user.request('POST', '/api/projects', body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json().message).toEqual(expect.any(String));
      }
      expect((await create(user, { name: 'x'.repeat(100), color: 'violet' })).color).toBe('violet');
    });

    it('renames, recolours and archives; an archived project refuses every write until restored', async () => {
      const project = await team();
      const owner = people.owner;
      const renamed = await owner.request('PATCH', `/api/projects/${project.id}`, {
        name: 'Renamed',
        color: 'blue',
      });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json()).toMatchObject({ name: 'Renamed', color: 'blue', memberCount: 6 });
      expect(
        (await owner.request('PATCH', `/api/projects/${project.id}`, { archived: true })).json(),
      ).toMatchObject({
        archived: true,
      });
      const writes: Array<[string, string, unknown]> = [
        ['PATCH', `/api/projects/${project.id}`, { name: 'Again' }],
        ['PATCH', `/api/projects/${project.id}`, { archived: true }],
        [
          'POST',
          `/api/projects/${project.id}/members`,
          { user: people.newcomer.user.username, role: 'viewer' },
        ],
        ['PATCH', `/api/projects/${project.id}/members/${people.target.user.id}`, { role: 'editor' }],
        ['DELETE', `/api/projects/${project.id}/members/${people.target.user.id}`, undefined],
        ['POST', `/api/projects/${project.id}/transfer`, { userId: people.admin.user.id }],
        ['DELETE', `/api/projects/${project.id}`, undefined],
      ];
      for (const [method, url, body] of writes) {
        const response = await owner.request(method, url, body);
        expect(response.statusCode, `${method} ${url}`).toBe(409);
        expect(response.json()).toEqual({ message: PROJECT_MESSAGES.archived });
      }
      // Reading still works, and a member may still leave.
      expect((await people.viewer.request('GET', `/api/projects/${project.id}/members`)).statusCode).toBe(
        200,
      );
      const restored = await people.admin.request('PATCH', `/api/projects/${project.id}`, {
        archived: false,
      });
      expect(restored.statusCode).toBe(200);
      expect(restored.json()).toMatchObject({ archived: false, role: 'admin' });
      expect(
        (await owner.request('PATCH', `/api/projects/${project.id}`, { name: 'Again' })).statusCode,
      ).toBe(200);
    });

    it('deletes a project with its memberships, for every member', async () => {
      const project = await team();
      expect((await people.owner.request('DELETE', `/api/projects/${project.id}`)).statusCode).toBe(204);
      for (const role of MEMBER_ROLES) {
        expect((await projectsOf(people[role])).some((p) => p.id === project.id)).toBe(false);
      }
      const rows = await t.ctx.db.kysely
        .selectFrom('project_members')
        .select('user_id')
        .where('project_id', '=', project.id)
        .execute();
      expect(rows).toEqual([]);
      expect((await people.owner.request('DELETE', `/api/projects/${project.id}`)).statusCode).toBe(404);
    });
  });

  describe('members', () => {
    it('lists members with their roles, oldest first', async () => {
      const project = await team();
      const response = await people.viewer.request('GET', `/api/projects/${project.id}/members`);
      expect(response.statusCode).toBe(200);
      const members = response.json() as ProjectMember[];
      expect(members.map((m) => [m.userId, m.role])).toEqual([
        [people.owner.user.id, 'owner'],
        ...MEMBER_ROLES.map((role) => [people[role].user.id, role]),
        [people.target.user.id, 'viewer'],
      ]);
      expect(members[0]).toMatchObject({
        username: people.owner.user.username,
        firstName: people.owner.user.firstName,
        addedAt: expect.any(String),
      });
    });

    it('adds by username or e-mail; unknown and suspended get the same 400; a member twice is 409', async () => {
      const owner = people.owner;
      const project = await create(owner, { name: 'Sharing' });
      const byEmail = await owner.request('POST', `/api/projects/${project.id}/members`, {
        user: people.newcomer.user.email!.toUpperCase(),
        role: 'editor',
      });
      expect(byEmail.statusCode, byEmail.body).toBe(201);
      expect(byEmail.json()).toMatchObject({ userId: people.newcomer.user.id, role: 'editor' });
      const again = await owner.request('POST', `/api/projects/${project.id}/members`, {
        user: people.newcomer.user.username,
        role: 'viewer',
      });
      expect(again.statusCode).toBe(409);
      const suspended = await t.signUp();
      await t.ctx.db.kysely
        .updateTable('users')
        .set({ is_suspended: true })
        .where('id', '=', suspended.user.id)
        .execute();
      for (const user of ['nobody-at-all', 'nobody@example.com', suspended.user.username]) {
        const response = await owner.request('POST', `/api/projects/${project.id}/members`, {
          user,
          role: 'viewer',
        });
        expect(response.statusCode, user).toBe(400);
        expect(response.json()).toEqual({ message: 'No active user with that name or e-mail' });
      }
      const owned = await owner.request('POST', `/api/projects/${project.id}/members`, {
        user: people.target.user.username,
        role: 'owner',
      });
      expect(owned.statusCode).toBe(400);
    });

    it('e-mails the new member a link to the project', async () => {
      const project = await create(people.owner, { name: 'Kitchen "plans"' });
      mails.length = 0;
      await share(people.owner, project.id, people.newcomer, 'commenter');
      // Sent by a delivery job (issue 22), never in the request.
      await t.ctx.jobs.runDue();
      expect(mails).toHaveLength(1);
      expect(mails[0]).toMatchObject({
        to: people.newcomer.user.email,
        subject: `${people.owner.user.firstName} shared "Kitchen "plans"" with you`,
      });
      expect(mails[0]!.text).toContain(`http://localhost:3000/?project=${project.id}`);
      expect(mails[0]!.html).toContain('Kitchen &quot;plans&quot;');
    });

    it('tells the new member their role with the right article: "as an editor" (issue 28)', async () => {
      for (const [role, words] of [
        ['editor', 'as an editor'],
        ['admin', 'as an admin'],
        ['viewer', 'as a viewer'],
      ] as const) {
        const project = await create(people.owner, { name: `Articles ${role}` });
        const person = await t.signUp();
        mails.length = 0;
        await share(people.owner, project.id, person, role);
        const sentence = `${people.owner.user.firstName} added you to the project "${project.name}" ${words}.`;
        const notifications = (await person.request('GET', '/api/notifications')).json() as Array<{
          body: string;
        }>;
        expect(notifications.map((notification) => notification.body)).toContain(sentence);
        await t.ctx.jobs.runDue();
        expect(mails).toHaveLength(1);
        expect(mails[0]!.text).toContain(sentence);
      }
    });

    it('only the owner adds, promotes, demotes or removes admins; nobody changes the owner', async () => {
      const project = await team();
      const url = `/api/projects/${project.id}/members`;
      const admin = people.admin;
      const ownerOnly = { message: ACCESS_MESSAGES.owner };
      const addAdmin = await admin.request('POST', url, {
        user: people.newcomer.user.username,
        role: 'admin',
      });
      expect([addAdmin.statusCode, addAdmin.json()]).toEqual([403, ownerOnly]);
      const promote = await admin.request('PATCH', `${url}/${people.target.user.id}`, { role: 'admin' });
      expect([promote.statusCode, promote.json()]).toEqual([403, ownerOnly]);
      const demoteOwner = await admin.request('PATCH', `${url}/${people.owner.user.id}`, { role: 'viewer' });
      expect([demoteOwner.statusCode, demoteOwner.json()]).toEqual([403, ownerOnly]);
      const removeOwner = await admin.request('DELETE', `${url}/${people.owner.user.id}`);
      expect([removeOwner.statusCode, removeOwner.json()]).toEqual([403, ownerOnly]);
      // An admin manages the roles below admin.
      const editor = await admin.request('PATCH', `${url}/${people.target.user.id}`, { role: 'editor' });
      expect([editor.statusCode, editor.json().role]).toEqual([200, 'editor']);
      // The owner manages admins; their own role changes only by transfer.
      const selfDemote = await people.owner.request('PATCH', `${url}/${people.owner.user.id}`, {
        role: 'admin',
      });
      expect([selfDemote.statusCode, selfDemote.json()]).toEqual([
        400,
        { message: PROJECT_MESSAGES.ownerRole },
      ]);
      expect(
        (await people.owner.request('PATCH', `${url}/${people.target.user.id}`, { role: 'admin' }))
          .statusCode,
      ).toBe(200);
      const otherAdmin = await admin.request('DELETE', `${url}/${people.target.user.id}`);
      expect([otherAdmin.statusCode, otherAdmin.json()]).toEqual([403, ownerOnly]);
      expect((await people.owner.request('DELETE', `${url}/${people.target.user.id}`)).statusCode).toBe(204);
      expect(
        (await people.owner.request('PATCH', `${url}/${people.newcomer.user.id}`, { role: 'viewer' }))
          .statusCode,
      ).toBe(404);
    });

    it("anyone but the owner who adds, promotes, demotes or removes an admin is told it is the owner's (issue 28)", async () => {
      const project = await team();
      const url = `/api/projects/${project.id}/members`;
      const ownerOnly = { message: ACCESS_MESSAGES.owner };
      for (const caller of ['viewer', 'commenter', 'editor', 'admin'] as const) {
        const person = people[caller];
        const add = await person.request('POST', url, { user: people.newcomer.user.username, role: 'admin' });
        expect([caller, add.statusCode, add.json()]).toEqual([caller, 403, ownerOnly]);
        const promote = await person.request('PATCH', `${url}/${people.target.user.id}`, { role: 'admin' });
        expect([caller, promote.statusCode, promote.json()]).toEqual([caller, 403, ownerOnly]);
        const demote = await person.request('PATCH', `${url}/${people.admin.user.id}`, { role: 'viewer' });
        expect([caller, demote.statusCode, demote.json()]).toEqual([caller, 403, ownerOnly]);
        const changeOwner = await person.request('PATCH', `${url}/${people.owner.user.id}`, {
          role: 'viewer',
        });
        expect([caller, changeOwner.statusCode, changeOwner.json()]).toEqual([caller, 403, ownerOnly]);
        if (caller !== 'admin') {
          const remove = await person.request('DELETE', `${url}/${people.admin.user.id}`);
          expect([caller, remove.statusCode, remove.json()]).toEqual([caller, 403, ownerOnly]);
          // The roles below admin are an admin's: that is the role named.
          const share = await person.request('POST', url, {
            user: people.newcomer.user.username,
            role: 'editor',
          });
          expect([caller, share.statusCode, share.json()]).toEqual([
            caller,
            403,
            { message: ACCESS_MESSAGES.admin },
          ]);
          const change = await person.request('PATCH', `${url}/${people.target.user.id}`, { role: 'editor' });
          expect([caller, change.statusCode, change.json()]).toEqual([
            caller,
            403,
            { message: ACCESS_MESSAGES.admin },
          ]);
        }
      }
      // A non-member still learns nothing: the words of a project that does not exist.
      const outsider = await people['non-member'].request('POST', url, {
        user: people.newcomer.user.username,
        role: 'admin',
      });
      expect([outsider.statusCode, outsider.json()]).toEqual([404, { message: 'Project not found' }]);
      const members = (await people.owner.request('GET', url)).json() as ProjectMember[];
      expect(members.find((m) => m.userId === people.admin.user.id)?.role).toBe('admin');
      expect(members.some((m) => m.userId === people.newcomer.user.id)).toBe(false);
    });

    it('a member leaves; the owner cannot without transferring', async () => {
      const project = await team();
      const url = `/api/projects/${project.id}/members`;
      expect((await people.viewer.request('DELETE', `${url}/${people.viewer.user.id}`)).statusCode).toBe(204);
      expect((await people.viewer.request('GET', url)).statusCode).toBe(404);
      const ownerLeaves = await people.owner.request('DELETE', `${url}/${people.owner.user.id}`);
      expect([ownerLeaves.statusCode, ownerLeaves.json()]).toEqual([
        400,
        { message: PROJECT_MESSAGES.ownerLeaves },
      ]);
    });

    it('transfers to a member: they own it, the old owner is an admin', async () => {
      const project = await team();
      const url = `/api/projects/${project.id}/transfer`;
      const notMember = await people.owner.request('POST', url, { userId: people.newcomer.user.id });
      expect([notMember.statusCode, notMember.json()]).toEqual([
        400,
        { message: PROJECT_MESSAGES.transferTarget },
      ]);
      const transferred = await people.owner.request('POST', url, { userId: people.editor.user.id });
      expect(transferred.statusCode, transferred.body).toBe(200);
      expect(transferred.json()).toMatchObject({ ownerId: people.editor.user.id, role: 'admin' });
      const members = (
        await people.editor.request('GET', `/api/projects/${project.id}/members`)
      ).json() as ProjectMember[];
      expect(members.find((m) => m.userId === people.editor.user.id)?.role).toBe('owner');
      expect(members.find((m) => m.userId === people.owner.user.id)?.role).toBe('admin');
      expect(members.filter((m) => m.role === 'owner')).toHaveLength(1);
      // The old owner may leave now.
      expect(
        (await people.owner.request('DELETE', `/api/projects/${project.id}/members/${people.owner.user.id}`))
          .statusCode,
      ).toBe(204);
    });

    it("tells every affected member's stream; a removed member's browsers drop the project", async () => {
      const project = await team();
      const heard: number[] = [];
      const stops = await Promise.all(
        (['owner', 'viewer', 'target'] as const).map((name) =>
          t.ctx.live.subscribe(people[name].user.id, {
            onEvent: (keys) => {
              if (keys.includes('/api/projects')) heard.push(people[name].user.id);
            },
            onInterrupted: () => {},
          }),
        ),
      );
      try {
        const removed = await people.admin.request(
          'DELETE',
          `/api/projects/${project.id}/members/${people.target.user.id}`,
        );
        expect(removed.statusCode).toBe(204);
        await expect
          .poll(() => [...new Set(heard)].sort())
          .toEqual([people.owner.user.id, people.viewer.user.id, people.target.user.id].sort());
        expect((await projectsOf(people.target)).some((p) => p.id === project.id)).toBe(false);
        expect((await people.target.request('GET', `/api/projects/${project.id}/members`)).statusCode).toBe(
          404,
        );
      } finally {
        for (const stop of stops) stop();
      }
    });
  });

  describe('the role matrix', () => {
    type Route = {
      name: string;
      call: (caller: TestUser, project: Project) => Promise<{ statusCode: number; json(): unknown }>;
      expected: Record<Caller, number>;
    };
    const allowAdmins = (ok: number): Record<Caller, number> => ({
      owner: ok,
      admin: ok,
      editor: 403,
      commenter: 403,
      viewer: 403,
      'non-member': 404,
    });
    const ownerOnly = (ok: number): Record<Caller, number> => ({ ...allowAdmins(ok), admin: 403 });
    const routes: Route[] = [
      {
        name: 'GET /api/projects/:id/members',
        call: (caller, project) => caller.request('GET', `/api/projects/${project.id}/members`),
        expected: { owner: 200, admin: 200, editor: 200, commenter: 200, viewer: 200, 'non-member': 404 },
      },
      {
        name: 'PATCH /api/projects/:id',
        call: (caller, project) => caller.request('PATCH', `/api/projects/${project.id}`, { color: 'pink' }),
        expected: allowAdmins(200),
      },
      {
        name: 'POST /api/projects/:id/members',
        call: (caller, project) =>
          caller.request('POST', `/api/projects/${project.id}/members`, {
            user: people.newcomer.user.username,
            role: 'viewer',
          }),
        expected: allowAdmins(201),
      },
      {
        name: 'PATCH /api/projects/:id/members/:userId',
        call: (caller, project) =>
          caller.request('PATCH', `/api/projects/${project.id}/members/${people.target.user.id}`, {
            role: 'commenter',
          }),
        expected: allowAdmins(200),
      },
      {
        name: 'DELETE /api/projects/:id/members/:userId',
        call: (caller, project) =>
          caller.request('DELETE', `/api/projects/${project.id}/members/${people.target.user.id}`),
        expected: allowAdmins(204),
      },
      {
        name: 'POST /api/projects/:id/transfer',
        call: (caller, project) =>
          caller.request('POST', `/api/projects/${project.id}/transfer`, { userId: people.target.user.id }),
        expected: ownerOnly(200),
      },
      {
        name: 'DELETE /api/projects/:id',
        call: (caller, project) => caller.request('DELETE', `/api/projects/${project.id}`),
        expected: ownerOnly(204),
      },
      {
        // Issue 29: anyone who sees the project may keep its structure as their own template.
        name: 'POST /api/projects/:id/template',
        call: (caller, project) => caller.request('POST', `/api/projects/${project.id}/template`, {}),
        expected: { owner: 201, admin: 201, editor: 201, commenter: 201, viewer: 201, 'non-member': 404 },
      },
    ];

    it('covers every registered route inside a project, so none can skip the access module', () => {
      const registered = t.routes
        // A project's sections are content, walked by the access module's table (access.test.ts).
        .filter(
          (route) =>
            route.url.startsWith('/api/projects/:id') &&
            !route.url.startsWith('/api/projects/:id/sections') &&
            route.method !== 'HEAD',
        )
        .map((route) => `${route.method} ${route.url}`)
        .sort();
      expect(routes.map((route) => route.name).sort()).toEqual(registered);
    });

    it.each(routes)('$name for each role and a non-member', async (route) => {
      const got: Record<string, number> = {};
      for (const caller of CALLERS) {
        const project = await team();
        const response = await route.call(people[caller], project);
        got[caller] = response.statusCode;
        if (response.statusCode === 404) {
          // The words of a project that does not exist: nothing says this one does.
          expect(response.json()).toEqual({ message: 'Project not found' });
        }
        if (response.statusCode === 403) {
          expect(Object.values(ACCESS_MESSAGES)).toContain((response.json() as { message: string }).message);
        }
      }
      expect(got).toEqual(route.expected);
    });

    it('a non-member is answered as for a project that does not exist', async () => {
      const project = await team();
      const outsider = people['non-member'];
      const missing = await outsider.request('GET', '/api/projects/999999/members');
      const hidden = await outsider.request('GET', `/api/projects/${project.id}/members`);
      expect([hidden.statusCode, hidden.json()]).toEqual([missing.statusCode, missing.json()]);
      expect((await projectsOf(outsider)).some((p) => p.id === project.id)).toBe(false);
    });

    it('403 names the role needed', async () => {
      const project = await team();
      const response = await people.viewer.request('PATCH', `/api/projects/${project.id}`, { name: 'Mine' });
      expect(response.json()).toEqual({ message: ACCESS_MESSAGES.admin });
      const access = createAccess(t.ctx.db.kysely);
      await expect(access.requireProjectRole(people.viewer.user, project.id, 'editor')).rejects.toMatchObject(
        {
          statusCode: 403,
          message: 'Editors can change tasks in this project',
        },
      );
      expect(await access.projectRole(people.commenter.user.id, project.id)).toBe('commenter');
      expect(await access.projectRole(people['non-member'].user.id, project.id)).toBeUndefined();
      expect((await access.memberships(people.viewer.user.id)).get(project.id)).toBe('viewer');
    });
  });

  describe('when an administrator deletes a user', () => {
    async function deleteUser(user: TestUser) {
      const admin = await t.signUp({ isAdmin: true });
      const response = await admin.request('DELETE', `/api/admin/users/${user.user.id}`);
      expect(response.statusCode, response.body).toBe(204);
    }
    const ownerOf = async (projectId: number) =>
      (
        await t.ctx.db.kysely
          .selectFrom('projects')
          .select('owner_id')
          .where('id', '=', projectId)
          .executeTakeFirst()
      )?.owner_id;

    it('their projects pass to the longest-standing admin, else editor, else member; alone, deleted', async () => {
      const leaving = await t.signUp();
      const [a, b, c, d] = await Promise.all([t.signUp(), t.signUp(), t.signUp(), t.signUp()]);
      const withAdmins = await create(leaving, { name: 'Admins' });
      await share(leaving, withAdmins.id, a!, 'editor');
      await share(leaving, withAdmins.id, b!, 'admin');
      await share(leaving, withAdmins.id, c!, 'admin');
      const withEditors = await create(leaving, { name: 'Editors' });
      await share(leaving, withEditors.id, a!, 'viewer');
      await share(leaving, withEditors.id, d!, 'editor');
      await share(leaving, withEditors.id, c!, 'editor');
      const withMembers = await create(leaving, { name: 'Members' });
      await share(leaving, withMembers.id, d!, 'commenter');
      await share(leaving, withMembers.id, a!, 'viewer');
      const alone = await create(leaving, { name: 'Alone' });
      const inbox = await inboxOf(leaving);
      const heard: string[][] = [];
      const stop = await t.ctx.live.subscribe(b!.user.id, {
        onEvent: (keys) => heard.push(keys),
        onInterrupted: () => {},
      });
      try {
        await deleteUser(leaving);
        // The new owner's browsers refetch their projects, and the lists: the leaver's tasks changed hands.
        await expect.poll(() => heard).toContainEqual(['/api/projects', '/api/tasks', '/api/tasks/archived']);
      } finally {
        stop();
      }
      expect(await ownerOf(withAdmins.id)).toBe(b!.user.id);
      expect(await ownerOf(withEditors.id)).toBe(d!.user.id);
      expect(await ownerOf(withMembers.id)).toBe(d!.user.id);
      expect(await ownerOf(alone.id)).toBeUndefined();
      expect(await ownerOf(inbox.id)).toBeUndefined();
      const bView = (await projectsOf(b!)).find((p) => p.id === withAdmins.id);
      expect(bView).toMatchObject({ role: 'owner', ownerId: b!.user.id, memberCount: 3 });
      const orphans = await t.ctx.db.kysely
        .selectFrom('project_members')
        .select('project_id')
        .where('user_id', '=', leaving.user.id)
        .execute();
      expect(orphans).toEqual([]);
    });
  });

  it('the migration gives every existing user an Inbox they own', async () => {
    await withDatabaseMigratedTo(dialect, '0012_completed_tasks_archived', async (db, migrateToLatest) => {
      const at = '2025-01-02T03:04:05.000Z';
      for (const username of ['ann', 'bob']) {
        await db
          .insertInto('users')
          .values({ username, first_name: username, password_hash: 'x', created_at: at, updated_at: at })
          .execute();
      }
      await migrateToLatest();
      const inboxes = await db
        .selectFrom('projects')
        .innerJoin('project_members', 'project_members.project_id', 'projects.id')
        .innerJoin('users', 'users.id', 'projects.owner_id')
        .select([
          'users.username',
          'projects.name',
          'project_members.role',
          'project_members.user_id',
          'projects.owner_id',
        ])
        .where('projects.is_inbox', '=', dialect === 'postgres' ? true : 1)
        .orderBy('users.username')
        .execute();
      expect(inboxes.map((row) => [row.username, row.name, row.role, row.user_id === row.owner_id])).toEqual([
        ['ann', 'Inbox', 'owner', true],
        ['bob', 'Inbox', 'owner', true],
      ]);
    });
  });
});
