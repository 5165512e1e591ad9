import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActivityEntry, DELETED_USER_NAME } from '../../common/activity';
import { COMMENT_LIMITS, COMMENT_MESSAGES, type Comment, findMentions } from '../../common/comments';
import { PROJECT_MESSAGES, type ProjectRole } from '../../common/projects';
import type { Task } from '../../common/tasks';
import { ACCESS_MESSAGES } from '../access';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';

const MEMBER_ROLES = ['admin', 'editor', 'commenter', 'viewer'] as const;
type Caller = ProjectRole | 'non-member';
const CALLERS: Caller[] = ['owner', ...MEMBER_ROLES, 'non-member'];

describe('findMentions', () => {
  it('finds @username of the names given, in any case, not inside an e-mail address or a word', () => {
    const names = ['ana', 'ben.k', 'cy_3'];
    const found = (text: string) => findMentions(text, names).map((m) => m.username);
    expect(found('@Ana and @ben.k. Also @cy_3, @nobody')).toEqual(['ana', 'ben.k', 'cy_3']);
    expect(found('mail ana@ana.org or x@ana; `@ana` is a mention too')).toEqual(['ana']);
    expect(findMentions('hi @ana!', names)).toEqual([{ index: 3, length: 4, username: 'ana' }]);
  });
});

describe.each(testDialects)('comments on %s', (dialect) => {
  let t: TestApp;
  let people: Record<Caller, TestUser>;
  let projectId: number;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    const entries = await Promise.all(CALLERS.map(async (name) => [name, await t.signUp()] as const));
    people = Object.fromEntries(entries) as typeof people;
    const created = await people.owner.request('POST', '/api/projects', { name: 'Team' });
    projectId = created.json<{ id: number }>().id;
    for (const role of MEMBER_ROLES) {
      const shared = await people.owner.request('POST', `/api/projects/${projectId}/members`, {
        user: people[role].user.username,
        role,
      });
      expect(shared.statusCode, shared.body).toBe(201);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  async function newTask(title = 'Discuss'): Promise<Task> {
    const response = await people.owner.request('POST', '/api/tasks', { title, projectId });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }
  async function post(user: TestUser, taskId: number, body: unknown): Promise<Comment> {
    const response = await user.request('POST', `/api/tasks/${taskId}/comments`, { body });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }
  const thread = async (user: TestUser, taskId: number): Promise<Comment[]> =>
    (await user.request('GET', `/api/tasks/${taskId}/comments`)).json();
  const taskOf = async (taskId: number): Promise<Task> =>
    (await people.owner.request('GET', `/api/tasks/${taskId}`)).json();
  const mentionsOf = async (commentId: number) =>
    (
      await t.ctx.db.kysely
        .selectFrom('comment_mentions')
        .select('user_id')
        .where('comment_id', '=', commentId)
        .orderBy('user_id')
        .execute()
    ).map((row) => row.user_id);

  describe('roles, route by route', () => {
    const expectRefusal = (response: { statusCode: number; json(): unknown }, status: number) => {
      if (status === 404) expect(response.json()).toEqual({ message: expect.stringMatching(/not found$/) });
      if (status === 403) expect(response.json()).toEqual({ message: expect.any(String) });
    };

    it('GET: every member; a non-member gets 404', async () => {
      const task = await newTask();
      await post(people.owner, task.id, 'First');
      const got: Record<string, number> = {};
      for (const caller of CALLERS) {
        const response = await people[caller].request('GET', `/api/tasks/${task.id}/comments`);
        got[caller] = response.statusCode;
        expectRefusal(response, response.statusCode);
      }
      expect(got).toEqual({
        owner: 200,
        admin: 200,
        editor: 200,
        commenter: 200,
        viewer: 200,
        'non-member': 404,
      });
      expect((await people['non-member'].request('GET', `/api/tasks/${task.id}/comments`)).json()).toEqual({
        message: 'Task not found',
      });
    });

    it('POST: commenters and above; a viewer gets 403 naming the role, a non-member 404', async () => {
      const task = await newTask();
      const got: Record<string, number> = {};
      for (const caller of CALLERS) {
        const response = await people[caller].request('POST', `/api/tasks/${task.id}/comments`, {
          body: `From ${caller}`,
        });
        got[caller] = response.statusCode;
        expectRefusal(response, response.statusCode);
      }
      expect(got).toEqual({
        owner: 201,
        admin: 201,
        editor: 201,
        commenter: 201,
        viewer: 403,
        'non-member': 404,
      });
      const refused = await people.viewer.request('POST', `/api/tasks/${task.id}/comments`, { body: 'Hi' });
      expect(refused.json()).toEqual({ message: ACCESS_MESSAGES.commenter });
      expect((await thread(people.viewer, task.id)).map((c) => c.body)).toEqual([
        'From owner',
        'From admin',
        'From editor',
        'From commenter',
      ]);
    });

    it('PATCH: the author only (403 for others who can see it, 404 for who cannot); sets editedAt', async () => {
      const task = await newTask();
      const comment = await post(people.commenter, task.id, 'Draft');
      expect(comment.editedAt).toBeNull();
      const got: Record<string, number> = {};
      for (const caller of CALLERS) {
        const response = await people[caller].request('PATCH', `/api/comments/${comment.id}`, {
          body: `Edited by ${caller}`,
        });
        got[caller] = response.statusCode;
        expectRefusal(response, response.statusCode);
      }
      expect(got).toEqual({
        owner: 403,
        admin: 403,
        editor: 403,
        commenter: 200,
        viewer: 403,
        'non-member': 404,
      });
      const byOwner = await people.owner.request('PATCH', `/api/comments/${comment.id}`, {
        body: 'Mine now',
      });
      expect(byOwner.json()).toEqual({ message: COMMENT_MESSAGES.onlyAuthorEdits });
      const hidden = await people['non-member'].request('PATCH', `/api/comments/${comment.id}`, {
        body: 'x',
      });
      expect(hidden.json()).toEqual({ message: 'Comment not found' });
      const [edited] = await thread(people.owner, task.id);
      expect(edited).toMatchObject({ body: 'Edited by commenter', editedAt: expect.any(String) });
      expect(edited!.createdAt).toBe(comment.createdAt);
    });

    it('PATCH and DELETE: an author demoted to viewer may do neither', async () => {
      const author = await t.signUp();
      await people.owner.request('POST', `/api/projects/${projectId}/members`, {
        user: author.user.username,
        role: 'commenter',
      });
      const task = await newTask();
      const comment = await post(author, task.id, 'Before');
      await people.owner.request('PATCH', `/api/projects/${projectId}/members/${author.user.id}`, {
        role: 'viewer',
      });
      const edit = await author.request('PATCH', `/api/comments/${comment.id}`, { body: 'After' });
      expect([edit.statusCode, edit.json()]).toEqual([403, { message: ACCESS_MESSAGES.commenter }]);
      const remove = await author.request('DELETE', `/api/comments/${comment.id}`);
      expect([remove.statusCode, remove.json()]).toEqual([403, { message: ACCESS_MESSAGES.commenter }]);
    });

    it('DELETE: the author, or an admin or the owner; others 403, a non-member 404', async () => {
      const got: Record<string, number> = {};
      for (const caller of CALLERS) {
        const task = await newTask();
        const comment = await post(people.editor, task.id, 'Remove me');
        const response = await people[caller].request('DELETE', `/api/comments/${comment.id}`);
        got[caller] = response.statusCode;
        expectRefusal(response, response.statusCode);
        if (response.statusCode === 403) {
          expect(response.json()).toEqual({ message: COMMENT_MESSAGES.onlyAuthorOrAdminDeletes });
        }
      }
      expect(got).toEqual({
        owner: 204,
        admin: 204,
        editor: 204,
        commenter: 403,
        viewer: 403,
        'non-member': 404,
      });
      const ownTask = await newTask();
      const own = await post(people.commenter, ownTask.id, 'Mine');
      expect((await people.commenter.request('DELETE', `/api/comments/${own.id}`)).statusCode).toBe(204);
      expect((await people.commenter.request('DELETE', `/api/comments/${own.id}`)).json()).toEqual({
        message: 'Comment not found',
      });
    });

    it('an archived project is read-only: 409 for writes, the thread still readable', async () => {
      const other = await people.owner.request('POST', '/api/projects', { name: 'Shelved' });
      const shelved = other.json<{ id: number }>().id;
      const task = (
        await people.owner.request('POST', '/api/tasks', { title: 'Old', projectId: shelved })
      ).json<Task>();
      const comment = await post(people.owner, task.id, 'Before');
      await people.owner.request('PATCH', `/api/projects/${shelved}`, { archived: true });
      for (const response of [
        await people.owner.request('POST', `/api/tasks/${task.id}/comments`, { body: 'After' }),
        await people.owner.request('PATCH', `/api/comments/${comment.id}`, { body: 'After' }),
        await people.owner.request('DELETE', `/api/comments/${comment.id}`),
      ]) {
        expect([response.statusCode, response.json()]).toEqual([409, { message: PROJECT_MESSAGES.archived }]);
      }
      expect((await thread(people.owner, task.id)).map((c) => c.body)).toEqual(['Before']);
    });
  });

  describe('the body', () => {
    it('is trimmed, 1 to 10,000 characters; errors name the field', async () => {
      const task = await newTask();
      expect((await post(people.commenter, task.id, '  padded \n')).body).toBe('padded');
      const longest = 'x'.repeat(COMMENT_LIMITS.bodyMax);
      expect((await post(people.commenter, task.id, ` ${longest} `)).body).toBe(longest);
      const cases: Array<[unknown, string]> = [
        [{ body: '   ' }, COMMENT_MESSAGES.bodyRequired],
        [{}, COMMENT_MESSAGES.bodyRequired],
        [{ body: `${longest}y` }, COMMENT_MESSAGES.bodyTooLong],
      ];
      for (const [payload, message] of cases) {
        const response = await people.commenter.request('POST', `/api/tasks/${task.id}/comments`, payload);
        expect([response.statusCode, response.json<{ message: string }>().message]).toEqual([400, message]);
        expect(message).toMatch(/^body /);
      }
      const [first] = await thread(people.commenter, task.id);
      const edit = await people.commenter.request('PATCH', `/api/comments/${first!.id}`, { body: '' });
      expect([edit.statusCode, edit.json()]).toEqual([400, { message: COMMENT_MESSAGES.bodyRequired }]);
    });

    it('keeps XSS payloads as the text written: rendering safely is the client’s job', async () => {
      const task = await newTask();
      const payload = '<img src=x onerror=alert(1)> [x](javascript:alert(1)) <script>alert(2)</script>';
      const comment = await post(people.commenter, task.id, payload);
      expect(comment.body).toBe(payload);
      expect((await thread(people.viewer, task.id))[0]!.body).toBe(payload);
    });
  });

  describe('mentions', () => {
    it('stores @username of project members only; others stay text; an edit recomputes them', async () => {
      const outsider = people['non-member'].user.username;
      const task = await newTask();
      const comment = await post(
        people.editor,
        task.id,
        `@${people.viewer.user.username.toUpperCase()} and @${people.admin.user.username}, not @${outsider} or @nobody`,
      );
      expect(await mentionsOf(comment.id)).toEqual(
        [people.admin.user.id, people.viewer.user.id].sort((a, b) => a - b),
      );
      await people.editor.request('PATCH', `/api/comments/${comment.id}`, {
        body: `Only @${people.commenter.user.username} now, twice: @${people.commenter.user.username}`,
      });
      expect(await mentionsOf(comment.id)).toEqual([people.commenter.user.id]);
    });
  });

  describe('what a comment changes', () => {
    it("keeps the task's comment count (in the task and in the cached list) and refreshes members' views", async () => {
      const task = await newTask();
      const before = await people.viewer.request('GET', `/api/tasks?projectId=${projectId}`);
      expect(before.json<Task[]>().find((x) => x.id === task.id)!.commentCount).toBe(0);
      const heard: string[][] = [];
      const stop = await t.ctx.live.subscribe(people.viewer.user.id, {
        onEvent: (keys) => heard.push(keys),
        onInterrupted: () => {},
      });
      try {
        const first = await post(people.commenter, task.id, 'One');
        await post(people.commenter, task.id, 'Two');
        await expect
          .poll(() => heard.flat())
          .toEqual(expect.arrayContaining([`/api/tasks/${task.id}/comments`, '/api/tasks']));
        const listed = await people.viewer.request('GET', `/api/tasks?projectId=${projectId}`);
        expect(listed.json<Task[]>().find((x) => x.id === task.id)!.commentCount).toBe(2);
        await people.commenter.request('DELETE', `/api/comments/${first.id}`);
        expect((await taskOf(task.id)).commentCount).toBe(1);
        const after = await people.viewer.request('GET', `/api/tasks?projectId=${projectId}`);
        expect(after.json<Task[]>().find((x) => x.id === task.id)!.commentCount).toBe(1);
      } finally {
        stop();
      }
    });

    it('writes a `commented` activity with the comment', async () => {
      const task = await newTask();
      const comment = await post(people.commenter, task.id, 'Noted');
      const activity = (await people.viewer.request('GET', `/api/tasks/${task.id}/activity`)).json<
        ActivityEntry[]
      >();
      expect(activity[0]).toMatchObject({
        kind: 'commented',
        actorId: people.commenter.user.id,
        actorName: people.commenter.user.firstName,
        data: { commentId: comment.id },
      });
    });

    it('a refused comment writes nothing: no comment, count or activity', async () => {
      const task = await newTask();
      await people.viewer.request('POST', `/api/tasks/${task.id}/comments`, { body: 'Not allowed' });
      expect(await thread(people.owner, task.id)).toEqual([]);
      expect((await taskOf(task.id)).commentCount).toBe(0);
      const activity = (await people.owner.request('GET', `/api/tasks/${task.id}/activity`)).json<
        ActivityEntry[]
      >();
      expect(activity.map((entry) => entry.kind)).toEqual(['created']);
    });
  });

  it("a deleted author's comments stay, shown as 'Deleted user'", async () => {
    const leaving = await t.signUp();
    await people.owner.request('POST', `/api/projects/${projectId}/members`, {
      user: leaving.user.username,
      role: 'commenter',
    });
    const task = await newTask();
    await post(leaving, task.id, 'Goodbye');
    await post(people.owner, task.id, 'Farewell');
    const admin = await t.signUp({ isAdmin: true });
    const deleted = await admin.request('DELETE', `/api/admin/users/${leaving.user.id}`);
    expect(deleted.statusCode, deleted.body).toBe(204);
    const comments = await thread(people.viewer, task.id);
    expect(comments.map((c) => [c.authorId, c.authorName, c.body])).toEqual([
      [null, DELETED_USER_NAME, 'Goodbye'],
      [people.owner.user.id, people.owner.user.firstName, 'Farewell'],
    ]);
    expect((await taskOf(task.id)).commentCount).toBe(2);
  });
});
