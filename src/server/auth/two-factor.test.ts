import { Secret, TOTP } from 'otpauth';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TWO_FACTOR_MESSAGES } from '../../common/two-factor';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { createSoftwareAuthenticator } from '../testing/authenticator';
import { testDialects } from '../testing/database';
import { startSmtpServer } from '../testing/smtp';
import { AUTH_MESSAGES } from './service';
import { hashRecoveryCode, normalizeRecoveryCode } from './two-factor';

const STEP_MS = 30_000;

/** A code as an authenticator app would show it, `steps` steps from now (the clock is frozen). */
const totp = (secret: string, steps = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * STEP_MS });

/** Moves the frozen clock on by whole steps. */
const advance = (steps: number) => vi.setSystemTime(Date.now() + steps * STEP_MS);

describe.each(testDialects)('two-factor sign-in on %s', (dialect) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(dialect, { env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(() => {
    // Only Date: the clock stands still in the middle of a step, so a code never straddles two.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Math.floor(Date.now() / STEP_MS) * STEP_MS + STEP_MS / 2);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const login = (username: string, password: string, remoteAddress = '127.0.0.1') =>
    t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { username, password } });
  const secondStep = (challenge: string, code: string, remoteAddress = '127.0.0.1') =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/login/2fa',
      remoteAddress,
      payload: { challenge, code },
    });
  const me = (sessionId: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'user-session': sessionId } });

  /** The password step: a challenge and no session. */
  async function challengeFor(user: TestUser, remoteAddress?: string): Promise<string> {
    const response = await login(user.user.username, user.password, remoteAddress);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ twoFactorRequired: true, challenge: expect.any(String) });
    return response.json().challenge;
  }

  /** Sets up and turns on two-factor sign-in; the clock moves on a step, past the code used to enable. */
  async function enable(user: TestUser) {
    const setup = await user.request('POST', '/api/auth/2fa/setup');
    expect(setup.statusCode, setup.body).toBe(200);
    const { secret } = setup.json() as { secret: string };
    const enabled = await user.request('POST', '/api/auth/2fa/enable', { code: totp(secret) });
    expect(enabled.statusCode, enabled.body).toBe(200);
    advance(1);
    return { secret, recoveryCodes: enabled.json().recoveryCodes as string[] };
  }

  describe('setup and enable', () => {
    it('hands out a secret, turns on with a code from it, and shows 10 recovery codes once', async () => {
      const user = await t.signUp();
      expect((await user.request('GET', '/api/auth/2fa')).json()).toEqual({
        enabled: false,
        recoveryCodesLeft: 0,
      });
      const setup = await user.request('POST', '/api/auth/2fa/setup');
      expect(setup.statusCode).toBe(200);
      const { secret, otpauthUrl } = setup.json();
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      const url = new URL(otpauthUrl);
      expect(url.protocol).toBe('otpauth:');
      expect(url.host).toBe('totp');
      expect(decodeURIComponent(url.pathname)).toBe(`/Tasklane:${user.user.username}`);
      expect(url.searchParams.get('secret')).toBe(secret);
      expect(url.searchParams.get('issuer')).toBe('Tasklane');
      expect(url.searchParams.get('period')).toBe('30');
      expect(url.searchParams.get('digits')).toBe('6');
      // Not in force until a code confirms it.
      expect((await me(user.sessionId)).json().user.twoFactorEnabled).toBe(false);
      expect((await login(user.user.username, user.password)).json().sessionId).toEqual(expect.any(String));

      const enabled = await user.request('POST', '/api/auth/2fa/enable', { code: totp(secret) });
      expect(enabled.statusCode, enabled.body).toBe(200);
      const { recoveryCodes } = enabled.json() as { recoveryCodes: string[] };
      expect(recoveryCodes).toHaveLength(10);
      expect(new Set(recoveryCodes).size).toBe(10);
      for (const code of recoveryCodes) expect(code).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);

      expect((await me(user.sessionId)).json().user.twoFactorEnabled).toBe(true);
      expect((await user.request('GET', '/api/auth/2fa')).json()).toEqual({
        enabled: true,
        recoveryCodesLeft: 10,
      });
      // Only hashes are stored.
      const rows = await t.ctx.db.kysely
        .selectFrom('two_factor_recovery_codes')
        .selectAll()
        .where('user_id', '=', user.user.id)
        .execute();
      expect(rows.map((row) => row.code_hash).sort()).toEqual(recoveryCodes.map(hashRecoveryCode).sort());
      for (const code of recoveryCodes) expect(JSON.stringify(rows)).not.toContain(code);
    });

    it('refuses enable without setup or with a wrong code (400 naming code), and setup while on (409)', async () => {
      const user = await t.signUp();
      const early = await user.request('POST', '/api/auth/2fa/enable', { code: '123456' });
      expect(early.statusCode).toBe(400);
      expect(early.json().message).toMatch(/code/);

      const { secret } = (await user.request('POST', '/api/auth/2fa/setup')).json();
      for (const code of [totp(secret, 2), totp(secret, -2), '12345', 'abcdef']) {
        const wrong = await user.request('POST', '/api/auth/2fa/enable', { code });
        expect(wrong.statusCode, code).toBe(400);
        expect(wrong.json().message).toMatch(/code/);
      }
      for (const body of [{}, { code: '' }, { code: 123456 }]) {
        const invalid = await user.request('POST', '/api/auth/2fa/enable', body);
        expect(invalid.statusCode, JSON.stringify(body)).toBe(400);
        expect(invalid.json().message).toMatch(/code/i);
      }
      // A second setup replaces the first secret: a code from the old one no longer enables.
      const again = (await user.request('POST', '/api/auth/2fa/setup')).json().secret as string;
      expect(again).not.toBe(secret);
      expect((await user.request('POST', '/api/auth/2fa/enable', { code: totp(secret) })).statusCode).toBe(
        400,
      );
      expect((await user.request('POST', '/api/auth/2fa/enable', { code: totp(again) })).statusCode).toBe(
        200,
      );

      const setupWhileOn = await user.request('POST', '/api/auth/2fa/setup');
      expect(setupWhileOn.statusCode).toBe(409);
      expect(setupWhileOn.json().message).toBe(TWO_FACTOR_MESSAGES.alreadyOn);
      expect((await user.request('POST', '/api/auth/2fa/enable', { code: totp(again, 1) })).statusCode).toBe(
        409,
      );
    });

    it('answers 403 to an API token and 401 to a stranger', async () => {
      const user = await t.signUp();
      const { token } = (await user.request('POST', '/api/tokens', { name: 'script' })).json();
      for (const [method, url, payload] of [
        ['GET', '/api/auth/2fa', undefined],
        ['POST', '/api/auth/2fa/setup', undefined],
        ['POST', '/api/auth/2fa/enable', { code: '123456' }],
        ['POST', '/api/auth/2fa/disable', { password: user.password, code: '123456' }],
      ] as const) {
        const asToken = await t.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${token}` },
          ...(payload ? { payload } : {}),
        });
        expect(asToken.statusCode, url).toBe(403);
        expect(asToken.json().message).toEqual(expect.any(String));
        const stranger = await t.app.inject({ method, url, ...(payload ? { payload } : {}) });
        expect(stranger.statusCode, url).toBe(401);
      }
      expect((await user.request('GET', '/api/auth/2fa')).json().enabled).toBe(false);
    });

    it('ends the other sessions when turned on and when turned off, keeping the current one', async () => {
      const user = await t.signUp();
      const other = (await login(user.user.username, user.password)).json().sessionId as string;
      const { secret } = await enable(user);
      expect((await me(other)).statusCode).toBe(401);
      expect((await me(user.sessionId)).statusCode).toBe(200);

      const challenge = await challengeFor(user);
      const another = (await secondStep(challenge, totp(secret))).json().sessionId as string;
      expect((await me(another)).statusCode).toBe(200);
      advance(1);
      const off = await user.request('POST', '/api/auth/2fa/disable', {
        password: user.password,
        code: totp(secret),
      });
      expect(off.statusCode, off.body).toBe(204);
      expect((await me(another)).statusCode).toBe(401);
      expect((await me(user.sessionId)).statusCode).toBe(200);
    });
  });

  describe('signing in', () => {
    it('asks for a code after the password, with no session, then signs in like a login', async () => {
      const user = await t.signUp();
      const { secret } = await enable(user);
      const first = await login(user.user.username, user.password);
      expect(first.statusCode).toBe(200);
      expect(first.headers['set-cookie']).toBeUndefined();
      expect(first.json()).toEqual({ twoFactorRequired: true, challenge: expect.any(String) });
      expect(first.body).not.toContain('sessionId');
      // The wrong password is still a plain 401, with no hint of the second step.
      expect((await login(user.user.username, 'wrong-password')).statusCode).toBe(401);

      const second = await secondStep(first.json().challenge, totp(secret));
      expect(second.statusCode, second.body).toBe(200);
      expect(second.json()).toEqual({
        sessionId: expect.any(String),
        user: expect.objectContaining({ id: user.user.id, twoFactorEnabled: true }),
      });
      expect(String(second.headers['set-cookie'])).toMatch(/tasklane_session=.+HttpOnly/i);
      expect((await me(second.json().sessionId)).json().user.username).toBe(user.user.username);

      // Single-use once it succeeded.
      advance(1);
      const reused = await secondStep(first.json().challenge, totp(secret));
      expect(reused.statusCode).toBe(401);
      expect(reused.json().message).toBe(TWO_FACTOR_MESSAGES.challengeExpired);
    });

    it('refuses a replayed code, and the code that turned it on', async () => {
      const user = await t.signUp();
      const setup = (await user.request('POST', '/api/auth/2fa/setup')).json();
      const enableCode = totp(setup.secret);
      expect((await user.request('POST', '/api/auth/2fa/enable', { code: enableCode })).statusCode).toBe(200);
      const replayedEnable = await secondStep(await challengeFor(user), enableCode);
      expect(replayedEnable.statusCode).toBe(401);
      expect(replayedEnable.json().message).toBe(TWO_FACTOR_MESSAGES.wrongCode);

      advance(1);
      const code = totp(setup.secret);
      expect((await secondStep(await challengeFor(user), code)).statusCode).toBe(200);
      const replayed = await secondStep(await challengeFor(user), code);
      expect(replayed.statusCode).toBe(401);
      // Once a later step was used, an earlier one is refused too.
      advance(1);
      expect((await secondStep(await challengeFor(user), totp(setup.secret))).statusCode).toBe(200);
      expect((await secondStep(await challengeFor(user), totp(setup.secret, -1))).statusCode).toBe(401);
    });

    it('accepts the previous and the next step, not two steps away', async () => {
      const user = await t.signUp();
      const { secret } = await enable(user);
      advance(5);
      const challenge = await challengeFor(user);
      for (const steps of [-2, 2, -3, 3]) {
        const far = await secondStep(challenge, totp(secret, steps));
        expect(far.statusCode, `${steps} steps`).toBe(401);
      }
      expect((await secondStep(challenge, totp(secret, -1))).statusCode).toBe(200);
      expect((await secondStep(await challengeFor(user), totp(secret, 1))).statusCode).toBe(200);
    });

    it('signs in with a recovery code once, however it is typed', async () => {
      const user = await t.signUp();
      const { recoveryCodes } = await enable(user);
      const [code, another] = recoveryCodes as [string, string];
      const typed = ` ${code.toUpperCase().replace(/-/g, ' ')} `;
      expect(normalizeRecoveryCode(typed)).toBe(code.replace(/-/g, ''));
      const used = await secondStep(await challengeFor(user), typed);
      expect(used.statusCode, used.body).toBe(200);
      expect((await user.request('GET', '/api/auth/2fa')).json().recoveryCodesLeft).toBe(9);

      const again = await secondStep(await challengeFor(user), code);
      expect(again.statusCode).toBe(401);
      expect(again.json().message).toBe(TWO_FACTOR_MESSAGES.wrongCode);
      expect((await secondStep(await challengeFor(user), another)).statusCode).toBe(200);
    });

    it('expires the challenge after 5 minutes', async () => {
      const user = await t.signUp();
      const { secret } = await enable(user);
      const late = await challengeFor(user);
      const inTime = await challengeFor(user);
      vi.setSystemTime(Date.now() + 4 * 60_000 + 50_000);
      expect((await secondStep(inTime, totp(secret))).statusCode).toBe(200);
      vi.setSystemTime(Date.now() + 10_001);
      const expired = await secondStep(late, totp(secret, 1));
      expect(expired.statusCode).toBe(401);
      expect(expired.json().message).toBe(TWO_FACTOR_MESSAGES.challengeExpired);
      for (const challenge of ['unknown', 'x'.repeat(201)]) {
        expect([400, 401]).toContain((await secondStep(challenge, totp(secret, 1))).statusCode);
      }
      const missing = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login/2fa',
        payload: { challenge: late },
      });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().message).toBe(TWO_FACTOR_MESSAGES.codeRequired);
    });

    it('keeps a suspended user out at the second step', async () => {
      const admin = await t.signUp({ isAdmin: true });
      const user = await t.signUp();
      const { secret } = await enable(user);
      const challenge = await challengeFor(user);
      expect((await admin.request('PATCH', `/api/admin/users/${user.user.id}/suspend`)).statusCode).toBe(200);
      const refused = await secondStep(challenge, totp(secret));
      expect(refused.statusCode).toBe(403);
      expect(refused.json().message).toBe(AUTH_MESSAGES.suspended);
    });
  });

  describe('sign-in limits', () => {
    let strict: TestApp;
    beforeEach(async () => {
      strict = await createTestApp(dialect, { env: { AUTH_RATE_LIMIT_PER_ACCOUNT: '3' } });
    });
    afterEach(async () => {
      await strict.close();
    });

    it('counts each wrong code as a failed sign-in: 429 after the limit, even with the right password', async () => {
      const user = await strict.signUp();
      const setup = (await user.request('POST', '/api/auth/2fa/setup')).json();
      await user.request('POST', '/api/auth/2fa/enable', { code: totp(setup.secret) });
      advance(1);
      const attempt = (path: string, payload: object) =>
        strict.app.inject({ method: 'POST', url: path, remoteAddress: '203.0.113.9', payload });
      const password = { username: user.user.username, password: user.password };
      const { challenge } = (await attempt('/api/auth/login', password)).json();
      for (const code of ['000000', '111111', 'not-a-recovery-code']) {
        expect((await attempt('/api/auth/login/2fa', { challenge, code })).statusCode).toBe(401);
      }
      // The right password does not buy fresh guesses at the code.
      const afterLimit = await attempt('/api/auth/login', password);
      expect(afterLimit.statusCode).toBe(429);
      const right = await attempt('/api/auth/login/2fa', { challenge, code: totp(setup.secret) });
      expect(right.statusCode).toBe(429);
      expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
      // Another address is not refused.
      const elsewhere = await strict.app.inject({
        method: 'POST',
        url: '/api/auth/login/2fa',
        remoteAddress: '198.51.100.1',
        payload: { challenge, code: totp(setup.secret) },
      });
      expect(elsewhere.statusCode, elsewhere.body).toBe(200);
    });
  });

  describe('wrong codes per account, from any addresses (issue 20)', () => {
    let own: TestApp;
    let mail: Awaited<ReturnType<typeof startSmtpServer>>;
    beforeEach(async () => {
      mail = await startSmtpServer();
      own = await createTestApp(dialect, { env: { SMTP_URL: mail.url } });
    });
    afterEach(async () => {
      await own.close();
      await mail.close();
    });

    const post = (url: string, remoteAddress: string, payload: object) =>
      own.app.inject({ method: 'POST', url, remoteAddress, payload });
    /** The password step from this address: it must answer a challenge. */
    async function passwordStep(user: TestUser, remoteAddress: string): Promise<string> {
      const response = await post('/api/auth/login', remoteAddress, {
        username: user.user.username,
        password: user.password,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ twoFactorRequired: true, challenge: expect.any(String) });
      return response.json().challenge;
    }
    /** One wrong code from each of `count` addresses, TOTP- and recovery-shaped in turn. */
    async function wrongCodes(user: TestUser, count: number, network: string) {
      for (let i = 0; i < count; i += 1) {
        const from = `${network}.${i + 1}`;
        const code = i % 2 === 0 ? '000000' : 'aaaa-bbbb-cccc-dddd';
        const wrong = await post('/api/auth/login/2fa', from, {
          challenge: await passwordStep(user, from),
          code,
        });
        expect(wrong.statusCode, `${code} from ${from}: ${wrong.body}`).toBe(401);
      }
    }
    const SENTENCE =
      'Someone entered your password and then a wrong code several times. If it was not you, change your password.';

    it('locks the second step after 10 wrong codes from 10 addresses, mails the owner once, and lets passkeys in', async () => {
      const user = await own.signUp();
      const { secret, recoveryCodes } = await enable(user);
      const authenticator = createSoftwareAuthenticator({ origin: 'http://localhost:3000' });
      const options = (await user.request('POST', '/api/auth/passkeys/register/options')).json().options;
      const registered = await user.request('POST', '/api/auth/passkeys/register', {
        name: 'Laptop',
        response: authenticator.register(options).response,
      });
      expect(registered.statusCode, registered.body).toBe(201);

      await wrongCodes(user, 10, '203.0.113');
      // The 11th attempt, from an address that has not failed, with the right code: refused.
      const challenge = await passwordStep(user, '198.51.100.1');
      const right = await post('/api/auth/login/2fa', '198.51.100.1', { challenge, code: totp(secret) });
      expect(right.statusCode, right.body).toBe(429);
      expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
      expect(right.json()).toEqual({ message: expect.any(String) });
      const recovery = await post('/api/auth/login/2fa', '198.51.100.1', {
        challenge,
        code: recoveryCodes[0],
      });
      expect(recovery.statusCode).toBe(429);
      // Refused before the code is looked at: neither the step nor the recovery code is used up.
      expect((await user.request('GET', '/api/auth/2fa')).json().recoveryCodesLeft).toBe(10);
      // The password step stays as it is, from a failing address too.
      await passwordStep(user, '203.0.113.1');
      // Passkey sign-in is unaffected.
      const passkeyOptions = (await post('/api/auth/passkeys/login/options', '198.51.100.2', {})).json()
        .options;
      const passkey = await post('/api/auth/passkeys/login', '198.51.100.2', {
        response: authenticator.authenticate(passkeyOptions),
      });
      expect(passkey.statusCode, passkey.body).toBe(200);

      // One e-mail to the owner for this lockout, however many attempts follow.
      const [message] = await mail.waitFor(1);
      expect(message!.to).toEqual([user.user.email]);
      expect(message!.text).toContain(SENTENCE);
      expect(message!.html).toContain('If it was not you, change your password.');
      for (let i = 0; i < 3; i += 1) {
        expect(
          (await post('/api/auth/login/2fa', '192.0.2.1', { challenge, code: '123456' })).statusCode,
        ).toBe(429);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(mail.messages).toHaveLength(1);

      // After the window, the right code signs in and clears the count: 10 more wrong codes are answered 401.
      vi.setSystemTime(Date.now() + 15 * 60_000 + 1000);
      await wrongCodes(user, 5, '192.0.2');
      const later = await passwordStep(user, '198.51.100.3');
      const signedIn = await post('/api/auth/login/2fa', '198.51.100.3', {
        challenge: later,
        code: totp(secret),
      });
      expect(signedIn.statusCode, signedIn.body).toBe(200);
      await wrongCodes(user, 10, '198.51.100');
      const locked = await post('/api/auth/login/2fa', '198.51.100.3', {
        challenge: await passwordStep(user, '198.51.100.3'),
        code: totp(secret, 1),
      });
      expect(locked.statusCode).toBe(429);
      await mail.waitFor(2);
    });

    it('sends no e-mail to an owner without an address', async () => {
      const user = await own.signUp();
      const { secret } = await enable(user);
      await own.ctx.db.kysely
        .updateTable('users')
        .set({ email: null })
        .where('id', '=', user.user.id)
        .execute();
      await wrongCodes(user, 10, '203.0.113');
      const challenge = await passwordStep(user, '198.51.100.1');
      expect(
        (await post('/api/auth/login/2fa', '198.51.100.1', { challenge, code: totp(secret) })).statusCode,
      ).toBe(429);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(mail.messages).toEqual([]);
    });
  });

  describe('turning it off', () => {
    it('needs the password and a code (TOTP or recovery), each named when wrong', async () => {
      const user = await t.signUp();
      const { secret, recoveryCodes } = await enable(user);
      const disable = (body: object) => user.request('POST', '/api/auth/2fa/disable', body);

      const wrongPassword = await disable({ password: 'nope', code: totp(secret) });
      expect(wrongPassword.statusCode).toBe(400);
      expect(wrongPassword.json().message).toMatch(/password/);
      const wrongCode = await disable({ password: user.password, code: totp(secret, 3) });
      expect(wrongCode.statusCode).toBe(400);
      expect(wrongCode.json().message).toMatch(/code/);
      const missing = await disable({ code: totp(secret) });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().message).toMatch(/password/);

      expect((await disable({ password: user.password, code: recoveryCodes[0] })).statusCode).toBe(204);
      expect((await me(user.sessionId)).json().user.twoFactorEnabled).toBe(false);
      const plain = await login(user.user.username, user.password);
      expect(plain.json().sessionId).toEqual(expect.any(String));
      expect(
        await t.ctx.db.kysely
          .selectFrom('two_factor_recovery_codes')
          .selectAll()
          .where('user_id', '=', user.user.id)
          .execute(),
      ).toEqual([]);
      const again = await disable({ password: user.password, code: totp(secret) });
      expect(again.statusCode).toBe(409);

      // On again: a fresh secret and fresh codes; the old recovery codes stay dead.
      const second = await enable(user);
      expect(second.secret).not.toBe(secret);
      expect((await secondStep(await challengeFor(user), recoveryCodes[1]!)).statusCode).toBe(401);
    });
  });

  describe('an administrator’s reset', () => {
    it('turns it off, removes the recovery codes, writes the audit log and e-mails the user', async () => {
      smtp.messages.length = 0;
      const admin = await t.signUp({ isAdmin: true });
      const user = await t.signUp({ email: `reset-${Date.now()}@example.com` });
      const { secret } = await enable(user);
      const pending = await challengeFor(user);

      const listed = (await admin.request('GET', '/api/admin/users')).json() as Array<{
        id: number;
        twoFactorEnabled: boolean;
      }>;
      expect(listed.find((u) => u.id === user.user.id)?.twoFactorEnabled).toBe(true);

      const reset = await admin.request('DELETE', `/api/admin/users/${user.user.id}/2fa`);
      expect(reset.statusCode, reset.body).toBe(204);
      expect((await me(user.sessionId)).json().user.twoFactorEnabled).toBe(false);
      expect(
        await t.ctx.db.kysely
          .selectFrom('two_factor_recovery_codes')
          .selectAll()
          .where('user_id', '=', user.user.id)
          .execute(),
      ).toEqual([]);
      const row = await t.ctx.db.kysely
        .selectFrom('users')
        .select(['two_factor_secret', 'two_factor_last_step'])
        .where('id', '=', user.user.id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ two_factor_secret: null, two_factor_last_step: null });
      // A second step begun before the reset no longer completes; the password alone signs in.
      expect((await secondStep(pending, totp(secret))).statusCode).toBe(401);
      expect((await login(user.user.username, user.password)).json().sessionId).toEqual(expect.any(String));

      const audit = (await admin.request('GET', '/api/admin/audit-log')).json();
      expect(audit[0]).toMatchObject({
        action: 'user.2fa_reset',
        actorUsername: admin.user.username,
        targetUserId: user.user.id,
        targetLabel: user.user.username,
      });
      const [mail] = await smtp.waitFor(1);
      expect(mail!.to).toEqual([user.user.email]);
      expect(mail!.subject).toBe('Tasklane: Two-factor authentication was turned off');
      expect(mail!.text).toContain('An administrator turned off two-factor authentication');

      // Nothing to reset: 204, no second entry or mail.
      expect((await admin.request('DELETE', `/api/admin/users/${user.user.id}/2fa`)).statusCode).toBe(204);
      expect((await admin.request('GET', '/api/admin/audit-log')).json()[0].id).toBe(audit[0].id);
      expect(smtp.messages).toHaveLength(1);
    });

    it('answers 404 for an unknown user, 403 to a non-administrator and for one’s own', async () => {
      const admin = await t.signUp({ isAdmin: true });
      const user = await t.signUp();
      await enable(user);
      expect((await admin.request('DELETE', '/api/admin/users/999999/2fa')).statusCode).toBe(404);
      expect((await admin.request('DELETE', '/api/admin/users/abc/2fa')).statusCode).toBe(404);
      expect((await user.request('DELETE', `/api/admin/users/${user.user.id}/2fa`)).statusCode).toBe(403);
      await enable(admin);
      expect((await admin.request('DELETE', `/api/admin/users/${admin.user.id}/2fa`)).statusCode).toBe(403);
      expect((await me(user.sessionId)).json().user.twoFactorEnabled).toBe(true);
    });
  });
});
