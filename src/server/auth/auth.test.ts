import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ERRORS, VALIDATION } from '../../common/spec';
import { createTestApp, type TestApp } from '../testing/app';
import { testDialects } from '../testing/database';
import { withDatabaseMigratedTo } from '../testing/migrations';
import { startSmtpServer } from '../testing/smtp';
import { AUTH_MESSAGES } from './service';

describe.each(testDialects)('auth on %s', (dialect) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp.close();
  });
  beforeEach(async () => {
    smtp.messages.length = 0;
    t = await createTestApp(dialect, { env: { SMTP_URL: smtp.url } });
  });
  afterEach(async () => {
    await t.close();
  });

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers });

  describe('login', () => {
    it('returns the session id and the public user, and sets an httpOnly cookie', async () => {
      const user = await t.signUp({ username: 'Alice', password: 'pw-1234' });
      const response = await post('/api/auth/login', { username: 'alice', password: 'pw-1234' });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(body.user).toEqual({
        id: user.user.id,
        username: 'Alice',
        firstName: 'Alice',
        email: 'Alice@example.com',
        isAdmin: false,
        isSuspended: false,
        createdAt: expect.any(String),
        twoFactorEnabled: false,
        timeZone: t.ctx.config.defaultTimeZone,
        timeZoneChosen: false,
      });
      expect(JSON.stringify(body)).not.toMatch(/hash|scrypt/);
      const cookie = String(response.headers['set-cookie']);
      expect(cookie).toMatch(/tasklane_session=/);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
    });

    it('stores only a hash of the session id', async () => {
      const user = await t.signUp();
      const rows = await t.ctx.db.kysely.selectFrom('sessions').select('id_hash').execute();
      expect(rows.map((r) => r.id_hash)).not.toContain(user.sessionId);
    });

    it('refuses wrong credentials with the same message for unknown users', async () => {
      await t.signUp({ username: 'bob', password: 'right' });
      for (const payload of [
        { username: 'bob', password: 'wrong' },
        { username: 'nobody', password: 'wrong' },
      ]) {
        const response = await post('/api/auth/login', payload);
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({ message: ERRORS.invalidLogin });
      }
    });

    it('names the missing field', async () => {
      const response = await post('/api/auth/login', { username: 'x' });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toMatch(/password/i);
    });

    it('refuses a suspended account with a clear message', async () => {
      const user = await t.signUp({ username: 'sus', password: 'pw-1234' });
      await t.ctx.db.kysely
        .updateTable('users')
        .set({ is_suspended: true })
        .where('id', '=', user.user.id)
        .execute();
      const response = await post('/api/auth/login', { username: 'sus', password: 'pw-1234' });
      expect(response.statusCode).toBe(403);
      expect(response.json().message).toBe(AUTH_MESSAGES.suspended);
      // and the session it had no longer works
      expect((await user.request('GET', '/api/auth/me')).statusCode).toBe(401);
    });
  });

  describe('time zone (issue 28)', () => {
    it("is the server's DEFAULT_TIME_ZONE until the person or their browser sets one; never null", async () => {
      const kolkata = await createTestApp(dialect, { env: { DEFAULT_TIME_ZONE: 'Asia/Kolkata' } });
      try {
        const admin = await kolkata.signUp({ isAdmin: true });
        const ana = await kolkata.signUp();
        expect(ana.user).toMatchObject({ timeZone: 'Asia/Kolkata', timeZoneChosen: false });
        expect((await ana.request('GET', '/api/auth/me')).json().user).toMatchObject({
          timeZone: 'Asia/Kolkata',
          timeZoneChosen: false,
        });
        // Everything that reads the person's zone reads the default: a due time they set, the admin's list.
        const task = await ana.request('POST', '/api/tasks', {
          title: 'Call',
          dueDate: '2027-01-15',
          dueTime: '09:00',
        });
        expect(task.json().dueTimeZone).toBe('Asia/Kolkata');
        const listed = (await admin.request('GET', '/api/admin/users')).json() as Array<{
          id: number;
          timeZone: string;
        }>;
        expect(listed.find((user) => user.id === ana.user.id)?.timeZone).toBe('Asia/Kolkata');
        expect(listed.every((user) => typeof user.timeZone === 'string')).toBe(true);
      } finally {
        await kolkata.close();
      }
    });

    it("migration 0023: a zone set before counts as chosen, and ICU's old names take their IANA names", () =>
      withDatabaseMigratedTo(dialect, '0022_token_limits', async (db, migrateToLatest) => {
        const now = new Date().toISOString();
        const user = (username: string, time_zone: string | null) => ({
          username,
          first_name: username,
          password_hash: 'x',
          created_at: now,
          updated_at: now,
          time_zone,
        });
        await db
          .insertInto('users')
          .values([user('kolkata', 'Asia/Calcutta'), user('berlin', 'Europe/Berlin'), user('unset', null)])
          .execute();
        await migrateToLatest();
        const rows = await db
          .selectFrom('users')
          .select(['username', 'time_zone', 'time_zone_chosen'])
          .orderBy('username')
          .execute();
        expect(rows.map((row) => [row.username, row.time_zone, Boolean(row.time_zone_chosen)])).toEqual([
          ['berlin', 'Europe/Berlin', true],
          ['kolkata', 'Asia/Kolkata', true],
          ['unset', null, false],
        ]);
      }));

    it("follows the browser's zone until the person chooses one, then keeps theirs", async () => {
      const ana = await t.signUp();
      const set = async (body: object) => {
        const response = await ana.request('PATCH', '/api/auth/me', body);
        expect(response.statusCode, response.body).toBe(200);
        return response.json().user;
      };
      // The browser's zone (timeZoneChosen: false) is taken, and the next browser's again.
      expect(await set({ timeZone: 'Europe/Berlin', timeZoneChosen: false })).toMatchObject({
        timeZone: 'Europe/Berlin',
        timeZoneChosen: false,
      });
      expect(await set({ timeZone: 'America/New_York', timeZoneChosen: false })).toMatchObject({
        timeZone: 'America/New_York',
        timeZoneChosen: false,
      });
      // The person's choice (the settings, or a script: timeZoneChosen defaults to true) stays.
      expect(await set({ timeZone: 'Asia/Tokyo' })).toMatchObject({
        timeZone: 'Asia/Tokyo',
        timeZoneChosen: true,
      });
      expect(await set({ timeZone: 'Europe/Berlin', timeZoneChosen: false })).toMatchObject({
        timeZone: 'Asia/Tokyo',
        timeZoneChosen: true,
      });
      expect((await ana.request('GET', '/api/auth/me')).json().user.timeZone).toBe('Asia/Tokyo');
      const wrong = await ana.request('PATCH', '/api/auth/me', {
        timeZone: 'Asia/Tokyo',
        timeZoneChosen: 'yes',
      });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().message).toContain('timeZoneChosen');
    });
  });

  describe('session', () => {
    it('accepts the user-session header, the x-session-id header and the cookie', async () => {
      const user = await t.signUp();
      for (const headers of [
        { 'user-session': user.sessionId },
        { 'x-session-id': user.sessionId },
        { cookie: `tasklane_session=${user.sessionId}` },
      ]) {
        const response = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers });
        expect(response.statusCode).toBe(200);
        expect(response.json().user.username).toBe(user.user.username);
      }
    });

    it('answers 401 with a message when signed out or with an unknown session', async () => {
      for (const headers of [{}, { 'user-session': 'nope' }]) {
        const response = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers });
        expect(response.statusCode).toBe(401);
        expect(response.json().message).toEqual(expect.any(String));
      }
    });

    it('logout ends the session and clears the cookie', async () => {
      const user = await t.signUp();
      const response = await user.request('POST', '/api/auth/logout');
      expect(response.statusCode).toBe(204);
      expect(String(response.headers['set-cookie'])).toMatch(/tasklane_session=;/);
      expect((await user.request('GET', '/api/auth/me')).statusCode).toBe(401);
    });

    it('an expired session is refused', async () => {
      const user = await t.signUp();
      await t.ctx.db.kysely
        .updateTable('sessions')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .execute();
      expect((await user.request('GET', '/api/auth/me')).statusCode).toBe(401);
    });

    it('refuses a cookie-only state change from another origin', async () => {
      const user = await t.signUp();
      const cookie = `tasklane_session=${user.sessionId}`;
      const foreign = await t.app.inject({
        method: 'POST',
        url: '/api/auth/logout',
        headers: { cookie, origin: 'https://evil.example' },
      });
      expect(foreign.statusCode).toBe(403);
      const own = await t.app.inject({
        method: 'POST',
        url: '/api/auth/logout',
        headers: { cookie, origin: 'http://localhost:3000' },
      });
      expect(own.statusCode).toBe(204);
    });
  });

  describe('change password', () => {
    it('needs a session, whatever the body', async () => {
      for (const body of [{ currentPassword: 'a', newPassword: 'abcd' }, {}, { currentPassword: 1 }]) {
        const response = await post('/api/auth/change-password', body);
        expect(response.statusCode, JSON.stringify(body)).toBe(401);
        expect(response.json().message).toBe(VALIDATION.loginRequiredForPasswordChange);
      }
    });

    it('checks the current password and the minimum length', async () => {
      const user = await t.signUp({ password: 'old-pass' });
      const headers = { 'x-session-id': user.sessionId };
      const wrong = await post(
        '/api/auth/change-password',
        { currentPassword: 'bad', newPassword: 'abcd' },
        headers,
      );
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().message).toBe(AUTH_MESSAGES.wrongCurrentPassword);
      const short = await post(
        '/api/auth/change-password',
        { currentPassword: 'old-pass', newPassword: 'abc' },
        headers,
      );
      expect(short.statusCode).toBe(400);
      expect(short.json().message).toBe(VALIDATION.passwordTooShort);
    });

    it('changes the password and ends the other sessions only', async () => {
      const user = await t.signUp({ username: 'carol', password: 'old-pass' });
      const other = (await post('/api/auth/login', { username: 'carol', password: 'old-pass' })).json();
      const response = await post(
        '/api/auth/change-password',
        { currentPassword: 'old-pass', newPassword: 'new-pass' },
        { 'x-session-id': user.sessionId },
      );
      expect(response.statusCode).toBe(200);
      expect((await user.request('GET', '/api/auth/me')).statusCode).toBe(200);
      const otherMe = await t.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { 'user-session': other.sessionId },
      });
      expect(otherMe.statusCode).toBe(401);
      expect((await post('/api/auth/login', { username: 'carol', password: 'old-pass' })).statusCode).toBe(
        401,
      );
      expect((await post('/api/auth/login', { username: 'carol', password: 'new-pass' })).statusCode).toBe(
        200,
      );
    });
  });

  describe('send password (reset link)', () => {
    it('answers the same for known and unknown addresses and mails a one-time link to known ones', async () => {
      const user = await t.signUp({ username: 'dave', email: 'dave@example.com', password: 'old-pass' });
      const known = await post('/api/auth/send-password', { email: 'DAVE@example.com' });
      const unknown = await post('/api/auth/send-password', { email: 'ghost@example.com' });
      expect(known.statusCode).toBe(200);
      expect(unknown.statusCode).toBe(200);
      expect(known.json()).toEqual(unknown.json());

      const [mail] = await smtp.waitFor(1);
      expect(smtp.messages).toHaveLength(1);
      expect(mail!.to).toEqual(['dave@example.com']);
      expect(mail!.subject).toContain('Tasklane');
      const link = mail!.text.match(/http:\/\/localhost:3000\/reset-password\/([A-Za-z0-9_-]+)/);
      expect(link).not.toBeNull();
      expect(mail!.html).toContain(link![0]);
      const token = link![1]!;
      // no password in the mail
      expect(mail!.raw).not.toContain('old-pass');

      const reset = await post('/api/auth/reset-password', { token, newPassword: 'brand-new' });
      expect(reset.statusCode).toBe(200);
      expect((await user.request('GET', '/api/auth/me')).statusCode).toBe(401);
      expect((await post('/api/auth/login', { username: 'dave', password: 'brand-new' })).statusCode).toBe(
        200,
      );

      const reuse = await post('/api/auth/reset-password', { token, newPassword: 'another' });
      expect(reuse.statusCode).toBe(400);
      expect(reuse.json().message).toBe(AUTH_MESSAGES.resetLinkInvalid);
    });

    it('refuses an expired link', async () => {
      await t.signUp({ username: 'erin', email: 'erin@example.com' });
      await post('/api/auth/send-password', { email: 'erin@example.com' });
      const [mail] = await smtp.waitFor(1);
      const token = mail!.text.match(/reset-password\/([A-Za-z0-9_-]+)/)![1]!;
      await t.ctx.db.kysely
        .updateTable('password_reset_tokens')
        .set({ expires_at: new Date(Date.now() - 1).toISOString() })
        .execute();
      const response = await post('/api/auth/reset-password', { token, newPassword: 'whatever' });
      expect(response.statusCode).toBe(400);
    });

    it('validates the e-mail address', async () => {
      const response = await post('/api/auth/send-password', { email: 'not-an-email' });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(VALIDATION.validEmailRequired);
    });
  });

  describe('access requests', () => {
    it('stores a request once per address', async () => {
      const body = { email: 'new@example.com', requestedUsername: 'newbie', message: 'Hello' };
      const first = await post('/api/access-requests', body);
      expect(first.statusCode).toBe(201);
      expect(first.json().message).toEqual(expect.any(String));
      const second = await post('/api/access-requests', { ...body, email: 'NEW@example.com' });
      expect(second.statusCode).toBe(201);
      const rows = await t.ctx.db.kysely.selectFrom('access_requests').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        email: 'new@example.com',
        requested_username: 'newbie',
        message: 'Hello',
      });
    });

    it('names the invalid field', async () => {
      const badEmail = await post('/api/access-requests', { email: 'x', requestedUsername: 'ok' });
      expect(badEmail.json().message).toBe(VALIDATION.validEmailRequired);
      const noName = await post('/api/access-requests', { email: 'a@b.co' });
      expect(noName.statusCode).toBe(400);
      expect(noName.json().message).toMatch(/username/i);
    });
  });

  describe('rate limits', () => {
    it('limits sign-in attempts per account with 429 and Retry-After', async () => {
      const limited = await createTestApp(dialect, { env: { AUTH_RATE_LIMIT_PER_ACCOUNT: '3' } });
      try {
        const attempt = () =>
          limited.app.inject({
            method: 'POST',
            url: '/api/auth/login',
            payload: { username: 'victim', password: 'guess' },
          });
        for (let i = 0; i < 3; i++) expect((await attempt()).statusCode).toBe(401);
        const blocked = await attempt();
        expect(blocked.statusCode).toBe(429);
        expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
        expect(blocked.json().message).toEqual(expect.any(String));
        // a forged X-Forwarded-For does not reset the counter
        const forged = await limited.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          headers: { 'x-forwarded-for': '10.9.8.7' },
          payload: { username: 'victim', password: 'guess' },
        });
        expect(forged.statusCode).toBe(429);
      } finally {
        await limited.close();
      }
    });

    it('limits the public forms per address', async () => {
      const limited = await createTestApp(dialect, { env: { AUTH_RATE_LIMIT_PER_IP: '2' } });
      try {
        const send = (i: number) =>
          limited.app.inject({
            method: 'POST',
            url: '/api/access-requests',
            headers: { 'x-forwarded-for': `10.0.0.${i}` },
            payload: { email: `p${i}@example.com`, requestedUsername: `p${i}` },
          });
        expect((await send(1)).statusCode).toBe(201);
        expect((await send(2)).statusCode).toBe(201);
        expect((await send(3)).statusCode).toBe(429);
      } finally {
        await limited.close();
      }
    });
  });

  it('creates the bootstrap administrator once', async () => {
    // createTestApp does not bootstrap; the service does it on demand.
    const first = await t.ctx.auth.ensureBootstrapAdmin({ username: 'root', password: 'root-pass' });
    expect(first).toEqual({ created: true, generatedPassword: undefined });
    expect((await t.ctx.auth.ensureBootstrapAdmin({ username: 'root' })).created).toBe(false);
    const login = await post('/api/auth/login', { username: 'root', password: 'root-pass' });
    expect(login.json().user.isAdmin).toBe(true);
  });

  it('generates a strong password when none is configured', async () => {
    const result = await t.ctx.auth.ensureBootstrapAdmin({ username: 'boss' });
    expect(result.generatedPassword).toMatch(/^[A-Za-z0-9]{16}$/);
  });
});
