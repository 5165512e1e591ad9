import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSKEY_MESSAGES } from '../../common/passkeys';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import {
  type CreationOptions,
  createSoftwareAuthenticator,
  type RequestOptions,
  type SoftwareAuthenticator,
} from '../testing/authenticator';
import { testDialects } from '../testing/database';
import { relyingPartyFor } from './passkeys';
import { AUTH_MESSAGES } from './service';
import { hashToken } from './tokens';

const ORIGIN = 'http://localhost:3000';

describe('the relying party', () => {
  it('is APP_URL’s host name, only where browsers allow passkeys', () => {
    expect(relyingPartyFor('http://localhost:3000')).toEqual({ id: 'localhost', origin: ORIGIN });
    expect(relyingPartyFor('https://tasks.example.com')).toEqual({
      id: 'tasks.example.com',
      origin: 'https://tasks.example.com',
    });
    expect(relyingPartyFor('https://tasks.example.com:8443')?.origin).toBe('https://tasks.example.com:8443');
    expect(relyingPartyFor('http://app.localhost:8080')?.id).toBe('app.localhost');
    for (const url of [
      'http://127.0.0.1:3000',
      'https://192.168.1.20',
      'https://[::1]:3000',
      'http://[fe80::1]',
      // Not a secure context: the browser would refuse.
      'http://tasks.example.com',
    ]) {
      expect(relyingPartyFor(url), url).toBeNull();
    }
  });
});

describe.each(testDialects)('passkeys on %s', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  const newAuthenticator = (options: Partial<Parameters<typeof createSoftwareAuthenticator>[0]> = {}) =>
    createSoftwareAuthenticator({ origin: ORIGIN, ...options });

  async function registrationOptions(user: TestUser): Promise<CreationOptions> {
    const response = await user.request('POST', '/api/auth/passkeys/register/options');
    expect(response.statusCode, response.body).toBe(200);
    return response.json().options;
  }

  /** Registers a new passkey on the authenticator; returns the API's answer. */
  async function addPasskey(user: TestUser, authenticator: SoftwareAuthenticator, name = 'Laptop') {
    const { response } = authenticator.register(await registrationOptions(user));
    return user.request('POST', '/api/auth/passkeys/register', { name, response });
  }

  async function signInOptions(): Promise<RequestOptions> {
    const response = await t.app.inject({ method: 'POST', url: '/api/auth/passkeys/login/options' });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().options;
  }

  const postSignIn = (response: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/auth/passkeys/login', headers, payload: { response } });

  async function signInWith(authenticator: SoftwareAuthenticator) {
    return postSignIn(authenticator.authenticate(await signInOptions()), {
      'user-agent': 'Passkey browser/1.0',
    });
  }

  it('tells the login screen that passkeys are available', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/providers' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ passkeys: true, oidc: null });
  });

  it('registers a passkey, lists it, and signs in with it as the password sign-in does', async () => {
    const user = await t.signUp();
    const authenticator = newAuthenticator();
    const options = await registrationOptions(user);
    expect(options).toMatchObject({
      rp: { id: 'localhost', name: 'Tasklane' },
      user: { name: user.user.username, displayName: user.user.firstName },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: [],
    });
    const { response } = authenticator.register(options);
    const before = Date.now();
    const created = await user.request('POST', '/api/auth/passkeys/register', {
      name: '  Work laptop ',
      response,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({
      id: expect.any(Number),
      name: 'Work laptop',
      createdAt: expect.any(String),
      lastUsedAt: null,
    });
    expect(new Date(created.json().createdAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect((await user.request('GET', '/api/auth/passkeys')).json()).toEqual([created.json()]);

    // No username: the authenticator's answer names the passkey, and through it the person.
    const signInOpts = await signInOptions();
    expect(signInOpts.allowCredentials ?? []).toEqual([]);
    expect(signInOpts).toMatchObject({ rpId: 'localhost', userVerification: 'required' });
    const signedIn = await postSignIn(authenticator.authenticate(signInOpts), {
      'user-agent': 'Passkey browser/1.0',
    });
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    const body = signedIn.json();
    expect(body).toEqual({ sessionId: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), user: user.user });
    expect(String(signedIn.headers['set-cookie'])).toMatch(
      new RegExp(`tasklane_session=${body.sessionId}; Max-Age=\\d+; Path=/; HttpOnly; SameSite=Lax`),
    );
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { 'user-session': body.sessionId },
    });
    expect(me.json().user.id).toBe(user.user.id);
    const devices = (await user.request('GET', '/api/auth/sessions')).json();
    expect(devices.map((d: { userAgent: string }) => d.userAgent)).toContain('Passkey browser/1.0');

    // The counter and last use are recorded on each sign-in.
    const [listed] = (await user.request('GET', '/api/auth/passkeys')).json();
    expect(new Date(listed.lastUsedAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
    const row = await t.ctx.db.kysely
      .selectFrom('passkeys')
      .selectAll()
      .where('id', '=', listed.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.counter)).toBe(2);
    expect(JSON.parse(row.transports)).toEqual(['internal']);
    expect((await signInWith(authenticator)).statusCode).toBe(200);
    expect(
      Number(
        (
          await t.ctx.db.kysely
            .selectFrom('passkeys')
            .select('counter')
            .where('id', '=', listed.id)
            .executeTakeFirstOrThrow()
        ).counter,
      ),
    ).toBe(3);
  });

  it('signs in with an authenticator that keeps no counter', async () => {
    const user = await t.signUp();
    const authenticator = newAuthenticator({ counterStep: 0 });
    expect((await addPasskey(user, authenticator)).statusCode).toBe(201);
    expect((await signInWith(authenticator)).statusCode).toBe(200);
    expect((await signInWith(authenticator)).statusCode).toBe(200);
  });

  it('keeps one user handle per person and excludes the passkeys they have', async () => {
    const user = await t.signUp();
    const first = await registrationOptions(user);
    const laptop = newAuthenticator();
    const { response } = laptop.register(first);
    expect(
      (await user.request('POST', '/api/auth/passkeys/register', { name: 'Laptop', response })).statusCode,
    ).toBe(201);
    const second = await registrationOptions(user);
    expect(second.user.id).toBe(first.user.id);
    expect(second.excludeCredentials?.map((c) => c.id)).toEqual([laptop.credentials[0]!.id]);
    const other = await registrationOptions(await t.signUp());
    expect(other.user.id).not.toBe(first.user.id);
  });

  it('stores challenges hashed, and refuses a replayed sign-in', async () => {
    const user = await t.signUp();
    const authenticator = newAuthenticator();
    await addPasskey(user, authenticator);
    const options = await signInOptions();
    const stored = await t.ctx.db.kysely
      .selectFrom('webauthn_challenges')
      .selectAll()
      .where('challenge_hash', '=', hashToken(options.challenge))
      .executeTakeFirstOrThrow();
    expect(stored.purpose).toBe('authentication');
    expect(JSON.stringify(stored)).not.toContain(options.challenge);

    const answer = authenticator.authenticate(options);
    expect((await postSignIn(answer)).statusCode).toBe(200);
    const replayed = await postSignIn(answer);
    expect(replayed.statusCode).toBe(401);
    expect(replayed.json().message).toBe(PASSKEY_MESSAGES.signInChallengeInvalid);
    // Even with the counter moved on: the challenge is gone.
    const again = authenticator.authenticate(options);
    expect((await postSignIn(again)).json().message).toBe(PASSKEY_MESSAGES.signInChallengeInvalid);
  });

  it('refuses an expired sign-in or registration challenge', async () => {
    const user = await t.signUp();
    const authenticator = newAuthenticator();
    await addPasskey(user, authenticator);
    const expire = (challenge: string) =>
      t.ctx.db.kysely
        .updateTable('webauthn_challenges')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('challenge_hash', '=', hashToken(challenge))
        .execute();

    const options = await signInOptions();
    await expire(options.challenge);
    const response = await postSignIn(authenticator.authenticate(options));
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toBe(PASSKEY_MESSAGES.signInChallengeInvalid);

    const creation = await registrationOptions(user);
    await expire(creation.challenge);
    const { response: attestation } = newAuthenticator().register(creation);
    const refused = await user.request('POST', '/api/auth/passkeys/register', {
      name: 'Late',
      response: attestation,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe(PASSKEY_MESSAGES.registrationChallengeInvalid);
    expect((await user.request('GET', '/api/auth/passkeys')).json()).toHaveLength(1);
  });

  it('expires challenges after five minutes', async () => {
    const options = await signInOptions();
    const row = await t.ctx.db.kysely
      .selectFrom('webauthn_challenges')
      .selectAll()
      .where('challenge_hash', '=', hashToken(options.challenge))
      .executeTakeFirstOrThrow();
    const ttl = new Date(row.expires_at).getTime() - new Date(row.created_at).getTime();
    expect(ttl).toBe(5 * 60 * 1000);
  });

  it('refuses a replayed registration, and one made with another person’s options', async () => {
    const alice = await t.signUp();
    const bob = await t.signUp();
    const { response } = newAuthenticator().register(await registrationOptions(alice));
    expect(
      (await alice.request('POST', '/api/auth/passkeys/register', { name: 'Key', response })).statusCode,
    ).toBe(201);
    const replayed = await alice.request('POST', '/api/auth/passkeys/register', { name: 'Key', response });
    expect(replayed.statusCode).toBe(400);
    expect(replayed.json().message).toBe(PASSKEY_MESSAGES.registrationChallengeInvalid);

    const { response: forAlice } = newAuthenticator().register(await registrationOptions(alice));
    const stolen = await bob.request('POST', '/api/auth/passkeys/register', {
      name: 'Key',
      response: forAlice,
    });
    expect(stolen.statusCode).toBe(400);
    expect((await bob.request('GET', '/api/auth/passkeys')).json()).toEqual([]);
  });

  it('refuses an answer from another origin, and one without user verification', async () => {
    const user = await t.signUp();
    const phishing = createSoftwareAuthenticator({ origin: 'https://tasklane.example.evil' });
    const { response } = phishing.register(await registrationOptions(user));
    const refused = await user.request('POST', '/api/auth/passkeys/register', { name: 'Phish', response });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(/^The passkey could not be verified/);

    const unverified = newAuthenticator({ userVerified: false });
    const { response: noUv } = unverified.register(await registrationOptions(user));
    expect(
      (await user.request('POST', '/api/auth/passkeys/register', { name: 'No UV', response: noUv }))
        .statusCode,
    ).toBe(400);
    expect((await user.request('GET', '/api/auth/passkeys')).json()).toEqual([]);

    const authenticator = newAuthenticator();
    await addPasskey(user, authenticator);
    const elsewhere = createSoftwareAuthenticator({ origin: 'https://tasklane.example.evil' });
    elsewhere.credentials.push(authenticator.credentials[0]!);
    const response2 = await postSignIn(elsewhere.authenticate(await signInOptions()));
    expect(response2.statusCode).toBe(401);
    expect(response2.json().message).toBe(PASSKEY_MESSAGES.signInNotVerified);
  });

  it('answers 401 for an unknown passkey, a bad signature or a wrong user handle', async () => {
    const user = await t.signUp();
    const authenticator = newAuthenticator();
    await addPasskey(user, authenticator);

    const stranger = newAuthenticator();
    stranger.register({
      challenge: 'x',
      rp: { id: 'localhost', name: 'Tasklane' },
      user: { id: 'AAAA', name: 'x', displayName: 'x' },
    });
    const unknown = await postSignIn(stranger.authenticate(await signInOptions()));
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().message).toBe(PASSKEY_MESSAGES.unknownCredential);

    const answer = authenticator.authenticate(await signInOptions());
    const signature = Buffer.from(answer.response.signature, 'base64url');
    signature[signature.length - 1]! ^= 0xff;
    const forged = await postSignIn({
      ...answer,
      response: { ...answer.response, signature: signature.toString('base64url') },
    });
    expect(forged.statusCode).toBe(401);
    expect(forged.json().message).toBe(PASSKEY_MESSAGES.signInNotVerified);

    const otherHandle = authenticator.authenticate(await signInOptions());
    const wrongUser = await postSignIn({
      ...otherHandle,
      response: { ...otherHandle.response, userHandle: 'AAAA' },
    });
    expect(wrongUser.statusCode).toBe(401);

    // A cloned authenticator shows itself by a counter that does not move forward.
    const clone = authenticator.authenticate(await signInOptions());
    const good = await signInWith(authenticator);
    expect(good.statusCode).toBe(200);
    const stale = await postSignIn(clone);
    expect(stale.statusCode).toBe(401);
  });

  it('validates the bodies', async () => {
    const user = await t.signUp();
    const { response } = newAuthenticator().register(await registrationOptions(user));
    for (const body of [
      {},
      { name: 'x' },
      { response },
      { name: '   ', response },
      { name: 'x'.repeat(101), response },
      { name: 'ok', response: { ...response, type: 'other' } },
      { name: 'ok', response: { ...response, response: {} } },
      { name: 'ok', response: { ...response, id: 'not base64!' } },
    ]) {
      const answer = await user.request('POST', '/api/auth/passkeys/register', body);
      expect(answer.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.json().message).toEqual(expect.any(String));
    }
    for (const body of [{}, { response: {} }, { response: 'x' }]) {
      const answer = await t.app.inject({ method: 'POST', url: '/api/auth/passkeys/login', payload: body });
      expect(answer.statusCode).toBe(400);
    }
    // Garbage client data is a failed sign-in, not a 500.
    const garbage = await postSignIn({
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
    });
    expect(garbage.statusCode).toBe(401);
  });

  it('renames and removes a passkey; a removed passkey no longer signs in', async () => {
    const user = await t.signUp();
    const authenticator = newAuthenticator();
    const { id } = (await addPasskey(user, authenticator)).json();
    const renamed = await user.request('PATCH', `/api/auth/passkeys/${id}`, { name: ' Phone ' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ id, name: 'Phone' });
    expect((await user.request('PATCH', `/api/auth/passkeys/${id}`, { name: '' })).statusCode).toBe(400);

    const removed = await user.request('DELETE', `/api/auth/passkeys/${id}`);
    expect(removed.statusCode).toBe(204);
    expect((await user.request('GET', '/api/auth/passkeys')).json()).toEqual([]);
    expect((await user.request('DELETE', `/api/auth/passkeys/${id}`)).statusCode).toBe(404);
    const response = await signInWith(authenticator);
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toBe(PASSKEY_MESSAGES.unknownCredential);
  });

  it('keeps one person from seeing, renaming or deleting another person’s passkeys', async () => {
    const alice = await t.signUp();
    const bob = await t.signUp();
    const authenticator = newAuthenticator();
    const { id } = (await addPasskey(alice, authenticator)).json();
    expect((await bob.request('GET', '/api/auth/passkeys')).json()).toEqual([]);
    const deleted = await bob.request('DELETE', `/api/auth/passkeys/${id}`);
    expect(deleted.statusCode).toBe(404);
    expect(deleted.json().message).toEqual(expect.any(String));
    expect((await bob.request('PATCH', `/api/auth/passkeys/${id}`, { name: 'Mine' })).statusCode).toBe(404);
    expect((await alice.request('GET', '/api/auth/passkeys')).json()).toEqual([
      expect.objectContaining({ id, name: 'Laptop' }),
    ]);
    expect((await signInWith(authenticator)).json().user.id).toBe(alice.user.id);
    for (const bad of ['abc', '0', '-1', '99999999999999999999']) {
      expect((await alice.request('DELETE', `/api/auth/passkeys/${bad}`)).statusCode, bad).toBe(404);
    }
  });

  it('refuses an API token (403) and a visitor (401) on every management route', async () => {
    const user = await t.signUp();
    const { id } = (await addPasskey(user, newAuthenticator())).json();
    const token = (await user.request('POST', '/api/tokens', { name: 'script' })).json().token;
    const routes = [
      ['GET', '/api/auth/passkeys'],
      ['POST', '/api/auth/passkeys/register/options'],
      ['POST', '/api/auth/passkeys/register'],
      ['PATCH', `/api/auth/passkeys/${id}`],
      ['DELETE', `/api/auth/passkeys/${id}`],
    ] as const;
    for (const [method, url] of routes) {
      const withToken = await t.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(method === 'GET' || method === 'DELETE' ? {} : { payload: { name: 'x' } }),
      });
      expect(withToken.statusCode, `${method} ${url}`).toBe(403);
      expect(withToken.json().message).toMatch(/API token cannot/);
      const visitor = await t.app.inject({ method, url });
      expect(visitor.statusCode, `${method} ${url}`).toBe(401);
    }
    expect((await user.request('GET', '/api/auth/passkeys')).json()).toHaveLength(1);
  });

  it('keeps a suspended person out with the password sign-in’s message', async () => {
    const user = await t.signUp();
    const authenticator = newAuthenticator();
    await addPasskey(user, authenticator);
    await t.ctx.db.kysely
      .updateTable('users')
      .set({ is_suspended: true })
      .where('id', '=', user.user.id)
      .execute();
    const response = await signInWith(authenticator);
    expect(response.statusCode).toBe(403);
    expect(response.json().message).toBe(AUTH_MESSAGES.suspended);
    expect(response.headers['set-cookie']).toBeUndefined();
  });
});

describe.each(testDialects)('passkey sign-in limits on %s', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect, {
      env: { AUTH_RATE_LIMIT_PER_IP: '3', AUTH_RATE_LIMIT_PER_ACCOUNT: '100' },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts failed passkey sign-ins against the sign-in limits per address', async () => {
    const stranger = createSoftwareAuthenticator({ origin: ORIGIN });
    stranger.register({
      challenge: 'x',
      rp: { id: 'localhost', name: 'Tasklane' },
      user: { id: 'AAAA', name: 'x', displayName: 'x' },
    });
    const attempt = async () => {
      const options = (await t.app.inject({ method: 'POST', url: '/api/auth/passkeys/login/options' })).json()
        .options;
      return t.app.inject({
        method: 'POST',
        url: '/api/auth/passkeys/login',
        payload: { response: stranger.authenticate(options) },
      });
    };
    for (let i = 0; i < 3; i += 1) expect((await attempt()).statusCode).toBe(401);
    const refused = await attempt();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toEqual(expect.any(String));
    // The same address is refused a password sign-in too: one limit for both ways in.
    const password = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'admin', password: 'wrong' },
    });
    expect(password.statusCode).toBe(429);
  });
});

describe.each(testDialects)('passkeys with APP_URL at an IP address on %s', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { APP_URL: 'http://192.168.1.20:3000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('says so on the login screen and on every ceremony route', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/providers' })).json()).toEqual({
      passkeys: false,
      oidc: null,
    });
    const user = await t.signUp();
    for (const [url, asUser] of [
      ['/api/auth/passkeys/register/options', true],
      ['/api/auth/passkeys/login/options', false],
    ] as const) {
      const response = asUser ? await user.request('POST', url) : await t.app.inject({ method: 'POST', url });
      expect(response.statusCode, url).toBe(403);
      expect(response.json().message).toBe(PASSKEY_MESSAGES.unavailable);
    }
    // What was registered before stays listed and removable.
    expect((await user.request('GET', '/api/auth/passkeys')).json()).toEqual([]);
  });
});
