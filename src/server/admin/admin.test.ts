import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AccessRequest, AuditEntry, CredentialsResponse } from '../../common/admin';
import type { LoginResponse, PublicUser } from '../../common/auth';
import { VALIDATION } from '../../common/spec';
import { hashPassword } from '../auth/passwords';
import { AUTH_MESSAGES } from '../auth/service';
import { nowIso } from '../db/values';
import { createTestApp, FIXTURE_HASH_COST, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { startSmtpServer } from '../testing/smtp';
import { ADMIN_MESSAGES, firstFreeUsername, usernameStem } from './service';

describe('username derivation', () => {
  it('keeps lower-case ASCII letters and digits, strips accents, falls back to user', () => {
    expect(usernameStem('Zoë')).toBe('zoe');
    expect(usernameStem('  Jean-Luc O’Brien 2 ')).toBe('jeanlucobrien2');
    expect(usernameStem('Ångström')).toBe('angstrom');
    expect(usernameStem('日本')).toBe('user');
    expect(usernameStem('<script>')).toBe('script');
    expect(usernameStem('a'.repeat(100))).toHaveLength(32);
  });

  it('appends 2, 3... until the name is free', () => {
    expect(firstFreeUsername('zoe', new Set())).toBe('zoe');
    expect(firstFreeUsername('zoe', new Set(['zoe']))).toBe('zoe2');
    expect(firstFreeUsername('zoe', new Set(['zoe', 'zoe2', 'zoe3']))).toBe('zoe4');
  });
});

describe.each(testDialects)('admin on %s', (dialect) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let admin: TestUser;

  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp.close();
  });
  beforeEach(async () => {
    smtp.messages.length = 0;
    t = await createTestApp(dialect, { env: { SMTP_URL: smtp.url } });
    admin = await t.signUp({ username: 'boss', isAdmin: true });
  });
  afterEach(async () => {
    await t.close();
  });

  const login = (username: string, password: string) =>
    t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });
  const me = (sessionId: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'user-session': sessionId } });
  const createUser = async (firstName: string, email: string) => {
    const response = await admin.request('POST', '/api/admin/users', { firstName, email });
    expect(response.statusCode).toBe(201);
    return response.json() as CredentialsResponse;
  };
  const submitAccessRequest = async (email: string, requestedUsername: string, message?: string) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/access-requests',
      payload: { email, requestedUsername, message },
    });
    expect(response.statusCode).toBe(201);
    const requests = (await admin.request('GET', '/api/admin/access-requests')).json() as AccessRequest[];
    return requests.find((r) => r.email === email)!;
  };
  // ensureBootstrapAdmin does nothing once an admin exists, as here, so the row is written directly.
  const bootstrapAdmin = async () =>
    t.ctx.users.insert({
      username: 'root',
      first_name: 'root',
      email: null,
      password_hash: await hashPassword('root-pass', FIXTURE_HASH_COST),
      is_admin: true,
      is_suspended: false,
      is_bootstrap: true,
    });

  describe('access', () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/api/admin/users'],
      ['POST', '/api/admin/users', { firstName: 'Ann', email: 'ann@example.com' }],
      ['PATCH', '/api/admin/users/1/suspend'],
      ['POST', '/api/admin/users/1/resend-invite'],
      ['DELETE', '/api/admin/users/1'],
      ['GET', '/api/admin/access-requests'],
      ['PATCH', '/api/admin/access-requests/1/approve'],
      ['PATCH', '/api/admin/access-requests/1/deny'],
      ['GET', '/api/admin/audit-log'],
    ];

    it.each(routes)('%s %s answers 401 signed out and 403 to a regular user', async (method, url, body) => {
      const signedOut = await t.app.inject({
        method: method as 'GET',
        url,
        ...(body ? { payload: body as object } : {}),
      });
      expect(signedOut.statusCode).toBe(401);
      expect(signedOut.json().message).toEqual(expect.any(String));

      const regular = await t.signUp();
      const refused = await regular.request(method, url, body);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().message).toEqual(expect.any(String));
      // Nothing happened: no user was created, no one was touched.
      expect(await t.ctx.db.kysely.selectFrom('audit_log').selectAll().execute()).toEqual([]);
    });

    it('checks the role before the body', async () => {
      const regular = await t.signUp();
      const response = await regular.request('POST', '/api/admin/users', { nonsense: true });
      expect(response.statusCode).toBe(403);
    });

    it('a malformed or unknown id answers 404 with a message, never 500', async () => {
      for (const url of [
        '/api/admin/users/abc/suspend',
        '/api/admin/users/0/suspend',
        '/api/admin/users/99999999999999/suspend',
      ]) {
        const response = await admin.request('PATCH', url);
        expect(response.statusCode).toBe(404);
        expect(response.json().message).toMatch(/id/);
      }
      for (const [method, url] of [
        ['PATCH', '/api/admin/users/4242/suspend'],
        ['POST', '/api/admin/users/4242/resend-invite'],
        ['DELETE', '/api/admin/users/4242'],
        ['PATCH', '/api/admin/access-requests/4242/approve'],
        ['PATCH', '/api/admin/access-requests/4242/deny'],
      ] as const) {
        const response = await admin.request(method, url);
        expect(response.statusCode).toBe(404);
        expect(response.json().message).toMatch(/not found/);
      }
    });
  });

  describe('users', () => {
    it('creates a user with a derived username, a strong password, and mails the credentials', async () => {
      const { user, password } = await createUser('Zoë', 'zoe@example.com');
      expect(user).toEqual({
        id: expect.any(Number),
        username: 'zoe',
        firstName: 'Zoë',
        email: 'zoe@example.com',
        isAdmin: false,
        isSuspended: false,
        createdAt: expect.any(String),
        twoFactorEnabled: false,
        timeZone: t.ctx.config.defaultTimeZone,
        timeZoneChosen: false,
      });
      expect(password.length).toBeGreaterThanOrEqual(12);
      expect((await login('zoe', password)).statusCode).toBe(200);

      const [mail] = await smtp.waitFor(1);
      expect(mail!.to).toEqual(['zoe@example.com']);
      expect(mail!.subject).toBe('Tasklane: Your account');
      expect(mail!.text).toContain('Hello Zoë,');
      expect(mail!.text).toContain('Username: zoe');
      expect(mail!.text).toContain(`Password: ${password}`);
      expect(mail!.text).toContain('http://localhost:3000');
      expect(mail!.html).toContain(password);

      // A clash, whatever its case, gets the next free number.
      expect((await createUser('ZOE', 'zoe2@example.com')).user.username).toBe('zoe2');
      expect((await createUser('zoe', 'zoe3@example.com')).user.username).toBe('zoe3');
      expect((await createUser('日本', 'jp@example.com')).user.username).toBe('user');
    });

    it('escapes user text in the HTML mail', async () => {
      await createUser('<script>alert(1)</script>', 'xss@example.com');
      const [mail] = await smtp.waitFor(1);
      expect(mail!.text).toContain('Hello <script>alert(1)</script>,');
      expect(mail!.html).not.toContain('<script>');
      expect(mail!.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    });

    it('refuses a taken e-mail address with 409, whatever its case', async () => {
      await t.signUp({ username: 'taken', email: 'taken@example.com' });
      const response = await admin.request('POST', '/api/admin/users', {
        firstName: 'Other',
        email: 'TAKEN@example.com',
      });
      expect(response.statusCode).toBe(409);
      expect(response.json().message).toBe(ADMIN_MESSAGES.emailTaken);
    });

    it('names the invalid field', async () => {
      const cases: Array<[unknown, string]> = [
        [{ email: 'a@example.com' }, VALIDATION.firstNameRequired],
        [{ firstName: '   ', email: 'a@example.com' }, VALIDATION.firstNameRequired],
        [{ firstName: 'Ann' }, VALIDATION.validEmailRequired],
        [{ firstName: 'Ann', email: 'not-an-email' }, VALIDATION.validEmailRequired],
        // A wrong type names the type: the value was sent.
        [{ firstName: 42, email: 'a@example.com' }, 'firstName must be a string'],
      ];
      for (const [body, message] of cases) {
        const response = await admin.request('POST', '/api/admin/users', body);
        expect(response.statusCode).toBe(400);
        expect(response.json().message).toBe(message);
      }
      const notJson = await t.app.inject({
        method: 'POST',
        url: '/api/admin/users',
        headers: { ...admin.headers, 'content-type': 'application/json' },
        payload: '{oops',
      });
      expect(notJson.statusCode).toBe(400);
    });

    it('lists everyone but the bootstrap administrator, newest first, without secrets', async () => {
      await bootstrapAdmin();
      await createUser('Ann', 'ann@example.com');
      await createUser('Ben', 'ben@example.com');
      const response = await admin.request('GET', '/api/admin/users');
      expect(response.statusCode).toBe(200);
      const users = response.json() as PublicUser[];
      expect(users.map((u) => u.username)).toEqual(['ben', 'ann', 'boss']);
      expect(users.find((u) => u.username === 'boss')!.isAdmin).toBe(true);
      expect(response.body).not.toMatch(/hash|scrypt|password/i);
    });

    it('suspending ends the sessions at once and blocks sign-in; reactivating restores it', async () => {
      const user = await t.signUp({ username: 'sam', password: 'sam-pass' });
      const suspended = await admin.request('PATCH', `/api/admin/users/${user.user.id}/suspend`);
      expect(suspended.statusCode).toBe(200);
      expect(suspended.json()).toMatchObject({ id: user.user.id, username: 'sam', isSuspended: true });
      expect(
        await t.ctx.db.kysely
          .selectFrom('sessions')
          .selectAll()
          .where('user_id', '=', user.user.id)
          .execute(),
      ).toEqual([]);
      expect((await user.request('GET', '/api/auth/me')).statusCode).toBe(401);
      const refused = await login('sam', 'sam-pass');
      expect(refused.statusCode).toBe(403);
      expect(refused.json().message).toBe(AUTH_MESSAGES.suspended);

      const reactivated = await admin.request('PATCH', `/api/admin/users/${user.user.id}/suspend`);
      expect(reactivated.json().isSuspended).toBe(false);
      expect((await login('sam', 'sam-pass')).statusCode).toBe(200);
    });

    it('resending an invite sets a new password, mails it and ends the old sessions', async () => {
      const user = await t.signUp({ username: 'ivy', password: 'ivy-pass', email: 'ivy@example.com' });
      const response = await admin.request('POST', `/api/admin/users/${user.user.id}/resend-invite`);
      expect(response.statusCode).toBe(200);
      const { user: returned, password } = response.json() as CredentialsResponse;
      expect(returned.username).toBe('ivy');
      expect(password.length).toBeGreaterThanOrEqual(12);
      expect((await user.request('GET', '/api/auth/me')).statusCode).toBe(401);
      expect((await login('ivy', 'ivy-pass')).statusCode).toBe(401);
      expect((await login('ivy', password)).statusCode).toBe(200);

      const [mail] = await smtp.waitFor(1);
      expect(mail!.to).toEqual(['ivy@example.com']);
      expect(mail!.text).toContain('Here are new sign-in details for your account.');
      expect(mail!.text).toContain(`Password: ${password}`);
    });

    it('an admin may resend their own invite and keeps the session they act from', async () => {
      const other = (await login('boss', admin.password)).json() as LoginResponse;
      const response = await admin.request('POST', `/api/admin/users/${admin.user.id}/resend-invite`);
      expect(response.statusCode).toBe(200);
      expect((await admin.request('GET', '/api/auth/me')).statusCode).toBe(200);
      expect((await me(other.sessionId)).statusCode).toBe(401);
    });

    it('deleting a user removes their tasks, agents, files (rows and contents) and sessions', async () => {
      const user = await t.signUp({ username: 'del', password: 'del-pass' });
      const keep = await t.signUp({ username: 'keep' });
      const db = t.ctx.db.kysely;
      const now = nowIso();
      const agent = await db
        .insertInto('agents')
        .values({ user_id: user.user.id, title: 'A', prompt: 'P', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const task = await db
        .insertInto('tasks')
        .values({
          user_id: user.user.id,
          project_id: user.inboxId,
          title: 'T',
          completed: false,
          archived: false,
          position: 0,
          context_id: agent.id,
          ai_assisted: false,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const keptTask = await db
        .insertInto('tasks')
        .values({
          user_id: keep.user.id,
          project_id: keep.inboxId,
          title: 'Mine',
          completed: false,
          archived: false,
          position: 0,
          ai_assisted: false,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const stored = await t.ctx.fileStore.put(Readable.from([Buffer.from('secret contents')]));
      const kept = await t.ctx.fileStore.put(Readable.from([Buffer.from('kept contents')]));
      for (const [owner, taskId, key] of [
        [user.user.id, task.id, stored.key],
        [keep.user.id, keptTask.id, kept.key],
      ] as const) {
        await db
          .insertInto('files')
          .values({
            task_id: taskId,
            user_id: owner,
            original_name: 'a.txt',
            file_size: 10,
            content_type: 'text/plain',
            storage_key: key,
            created_at: now,
          })
          .execute();
      }

      const response = await admin.request('DELETE', `/api/admin/users/${user.user.id}`);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');

      for (const table of ['tasks', 'agents', 'files', 'sessions'] as const) {
        const rows = await db.selectFrom(table).selectAll().where('user_id', '=', user.user.id).execute();
        expect(rows, table).toEqual([]);
      }
      expect(await t.ctx.users.findById(user.user.id)).toBeUndefined();
      expect(await t.ctx.fileStore.get(stored.key)).toBeNull();
      // Someone else's data stays.
      const keptContents = await t.ctx.fileStore.get(kept.key);
      expect(keptContents).not.toBeNull();
      keptContents!.destroy();
      expect(
        await db.selectFrom('files').selectAll().where('user_id', '=', keep.user.id).execute(),
      ).toHaveLength(1);
      expect((await user.request('GET', '/api/auth/me')).statusCode).toBe(401);
      expect((await login('del', 'del-pass')).statusCode).toBe(401);
      expect((await admin.request('DELETE', `/api/admin/users/${user.user.id}`)).statusCode).toBe(404);
    });

    it('nobody can suspend, reset or delete the bootstrap administrator', async () => {
      const root = await bootstrapAdmin();
      for (const [method, url] of [
        ['PATCH', `/api/admin/users/${root.id}/suspend`],
        ['POST', `/api/admin/users/${root.id}/resend-invite`],
        ['DELETE', `/api/admin/users/${root.id}`],
      ] as const) {
        const response = await admin.request(method, url);
        expect(response.statusCode, url).toBe(403);
        expect(response.json().message).toBe(ADMIN_MESSAGES.bootstrapProtected);
      }
      // Not even the bootstrap administrator themselves.
      const rootSession = (await login('root', 'root-pass')).json() as LoginResponse;
      const self = await t.app.inject({
        method: 'DELETE',
        url: `/api/admin/users/${root.id}`,
        headers: { 'user-session': rootSession.sessionId },
      });
      expect(self.statusCode).toBe(403);
      expect((await login('root', 'root-pass')).statusCode).toBe(200);
    });

    it('an admin cannot suspend or delete their own account', async () => {
      for (const [method, url] of [
        ['PATCH', `/api/admin/users/${admin.user.id}/suspend`],
        ['DELETE', `/api/admin/users/${admin.user.id}`],
      ] as const) {
        const response = await admin.request(method, url);
        expect(response.statusCode).toBe(403);
        expect(response.json().message).toBe(ADMIN_MESSAGES.selfProtected);
      }
      expect((await admin.request('GET', '/api/auth/me')).json().user.isSuspended).toBe(false);
    });
  });

  describe('access requests', () => {
    it('lists pending requests oldest first', async () => {
      await submitAccessRequest('first@example.com', 'first', 'Please');
      await submitAccessRequest('second@example.com', 'second');
      const response = await admin.request('GET', '/api/admin/access-requests');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual([
        {
          id: expect.any(Number),
          email: 'first@example.com',
          requestedUsername: 'first',
          message: 'Please',
          createdAt: expect.any(String),
        },
        expect.objectContaining({ email: 'second@example.com', message: null }),
      ]);
    });

    it('approving creates the account; the requester signs in with the e-mailed password', async () => {
      const request = await submitAccessRequest('newbie@example.com', 'Newbie', 'Hi there');
      const response = await admin.request('PATCH', `/api/admin/access-requests/${request.id}/approve`);
      expect(response.statusCode).toBe(200);
      const { user, password } = response.json() as CredentialsResponse;
      expect(user).toMatchObject({ username: 'Newbie', email: 'newbie@example.com', isAdmin: false });

      const [mail] = await smtp.waitFor(1);
      expect(mail!.to).toEqual(['newbie@example.com']);
      expect(mail!.subject).toBe('Tasklane: Your access request was approved');
      expect(mail!.text).toContain('Your access request was approved.');
      expect(mail!.text).toContain('Username: Newbie');
      const mailed = mail!.text.match(/Password: (\S+)/)![1]!;
      expect(mailed).toBe(password);
      expect((await login('newbie', mailed)).statusCode).toBe(200);

      expect((await admin.request('GET', '/api/admin/access-requests')).json()).toEqual([]);
      expect(
        (await admin.request('PATCH', `/api/admin/access-requests/${request.id}/approve`)).statusCode,
      ).toBe(404);
    });

    it('escapes the requested username in the HTML mail', async () => {
      const { id } = await t.ctx.db.kysely
        .insertInto('access_requests')
        .values({
          email: 'x@example.com',
          requested_username: '<script>x</script>',
          message: null,
          created_at: nowIso(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      expect((await admin.request('PATCH', `/api/admin/access-requests/${id}/approve`)).statusCode).toBe(200);
      const [mail] = await smtp.waitFor(1);
      expect(mail!.html).not.toContain('<script>');
      expect(mail!.html).toContain('&lt;script&gt;x&lt;/script&gt;');
    });

    it('a taken username or e-mail answers 409 and keeps the request', async () => {
      await t.signUp({ username: 'dup', email: 'dup@example.com' });
      const byName = await submitAccessRequest('fresh@example.com', 'DUP');
      const byEmail = await submitAccessRequest('DUP@example.com', 'fresh');
      const nameClash = await admin.request('PATCH', `/api/admin/access-requests/${byName.id}/approve`);
      expect(nameClash.statusCode).toBe(409);
      expect(nameClash.json().message).toBe(ADMIN_MESSAGES.usernameTaken('DUP'));
      const emailClash = await admin.request('PATCH', `/api/admin/access-requests/${byEmail.id}/approve`);
      expect(emailClash.statusCode).toBe(409);
      expect(emailClash.json().message).toBe(ADMIN_MESSAGES.emailTaken);
      expect((await admin.request('GET', '/api/admin/access-requests')).json()).toHaveLength(2);
      expect(await t.ctx.users.findByUsername('fresh')).toBeUndefined();
      expect(smtp.messages).toEqual([]);
    });

    it('denying removes the request and tells the requester', async () => {
      const request = await submitAccessRequest('no@example.com', 'nope');
      const response = await admin.request('PATCH', `/api/admin/access-requests/${request.id}/deny`);
      expect(response.statusCode).toBe(204);
      expect((await admin.request('GET', '/api/admin/access-requests')).json()).toEqual([]);
      expect(await t.ctx.users.findByUsername('nope')).toBeUndefined();

      const [mail] = await smtp.waitFor(1);
      expect(mail!.to).toEqual(['no@example.com']);
      expect(mail!.subject).toBe('Tasklane: Your access request');
      expect(mail!.text).toContain('Hello nope,');
      expect(mail!.text).toContain('did not approve it');
      expect((await admin.request('PATCH', `/api/admin/access-requests/${request.id}/deny`)).statusCode).toBe(
        404,
      );
    });

    it('a mail that cannot be sent does not undo the approval', async () => {
      const offline = await createTestApp(dialect, { env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
      try {
        const boss = await offline.signUp({ isAdmin: true });
        await offline.app.inject({
          method: 'POST',
          url: '/api/access-requests',
          payload: { email: 'late@example.com', requestedUsername: 'late' },
        });
        const [request] = (await boss.request('GET', '/api/admin/access-requests')).json() as AccessRequest[];
        const response = await boss.request('PATCH', `/api/admin/access-requests/${request!.id}/approve`);
        expect(response.statusCode).toBe(200);
        const { password } = response.json() as CredentialsResponse;
        const signIn = await offline.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { username: 'late', password },
        });
        expect(signIn.statusCode).toBe(200);
      } finally {
        await offline.close();
      }
    });
  });

  it('writes every admin action to the audit log, newest first', async () => {
    const { user } = await createUser('Ann', 'ann@example.com');
    await admin.request('PATCH', `/api/admin/users/${user.id}/suspend`);
    await admin.request('PATCH', `/api/admin/users/${user.id}/suspend`);
    await admin.request('POST', `/api/admin/users/${user.id}/resend-invite`);
    const approved = await submitAccessRequest('yes@example.com', 'yes');
    await admin.request('PATCH', `/api/admin/access-requests/${approved.id}/approve`);
    const denied = await submitAccessRequest('no@example.com', 'no');
    await admin.request('PATCH', `/api/admin/access-requests/${denied.id}/deny`);
    await admin.request('DELETE', `/api/admin/users/${user.id}`);

    const response = await admin.request('GET', '/api/admin/audit-log');
    expect(response.statusCode).toBe(200);
    const entries = response.json() as AuditEntry[];
    expect(entries.map((e) => [e.action, e.targetLabel])).toEqual([
      ['user.delete', 'ann'],
      ['access_request.deny', 'no@example.com'],
      ['access_request.approve', 'yes'],
      ['user.resend_invite', 'ann'],
      ['user.reactivate', 'ann'],
      ['user.suspend', 'ann'],
      ['user.create', 'ann'],
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        actorId: admin.user.id,
        actorUsername: 'boss',
        createdAt: expect.any(String),
      });
    }
    expect(entries[0]!.targetUserId).toBe(user.id);
    expect(entries[1]!.targetUserId).toBeNull();
  });
});
