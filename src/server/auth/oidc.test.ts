import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDC_ERRORS, OIDC_HANDOFF_COOKIE, OIDC_PATHS } from '../../common/sign-in';
import { SESSION_COOKIE } from '../http/session';
import { createTestApp, type TestApp } from '../testing/app';
import { testDialects } from '../testing/database';
import { ScriptedBrowser, startOidcProvider, type TestOidcProvider } from '../testing/oidc-provider';
import { OIDC_FLOW_COOKIE } from './oidc-routes';
import { AUTH_MESSAGES } from './service';

const APP_URL = 'http://localhost:3000';
const HOME = `${APP_URL}/`;

/** Where a failed sign-in landed: the code in `/?signInError=<code>`. */
const errorOf = (landedAt: string) => new URL(landedAt).searchParams.get('signInError');

describe.each(testDialects)('single sign-on (OpenID Connect) on %s', (dialect) => {
  let provider: TestOidcProvider;
  let t: TestApp;
  let counter = 0;
  /** A person unique to the test: subject and e-mail. */
  const person = (label: string) => {
    counter += 1;
    return { subject: `${label}-${counter}-sub`, email: `${label}${counter}@example.com` };
  };
  const oidcEnv = (extra: Record<string, string> = {}) => ({
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret,
    OIDC_NAME: 'Acme ID',
    ...extra,
  });
  const browser = (app: TestApp = t) => new ScriptedBrowser(app.app, APP_URL, provider.ca);
  const identities = (app: TestApp = t) =>
    app.ctx.db.kysely.selectFrom('oidc_identities').selectAll().orderBy('id').execute();

  beforeAll(async () => {
    provider = await startOidcProvider({ redirectUri: `${APP_URL}${OIDC_PATHS.callback}` });
    t = await createTestApp(dialect, { env: oidcEnv(), oidcFetch: provider.fetch });
  });
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  it('offers the provider on the login screen', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/providers' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ oidc: { name: 'Acme ID' } });
  });

  it('starts at the provider with PKCE, state and nonce, and a flow cookie for the callback only', async () => {
    const response = await t.app.inject({ method: 'GET', url: OIDC_PATHS.start });
    expect(response.statusCode).toBe(302);
    const location = new URL(response.headers.location as string);
    expect(location.origin).toBe(provider.issuer);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      client_id: provider.clientId,
      redirect_uri: `${APP_URL}${OIDC_PATHS.callback}`,
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      state: expect.any(String),
      nonce: expect.any(String),
      code_challenge: expect.any(String),
    });
    const cookie = [response.headers['set-cookie']].flat().find((line) => line?.startsWith(OIDC_FLOW_COOKIE));
    expect(cookie).toMatch(/Path=\/api\/auth\/oidc\/callback/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Max-Age=600/);
    // The browser holds no readable secret: the state is not in the cookie in the clear.
    expect(cookie).not.toContain(location.searchParams.get('state'));
  });

  it('signs in an existing user by verified e-mail, links them, and lands on / with a session', async () => {
    const ada = person('ada');
    const user = await t.signUp({ email: ada.email });
    provider.setAccount(ada.subject, { email: ada.email.toUpperCase(), email_verified: true });
    const b = browser();

    expect(await b.signInWithProvider(ada.subject)).toBe(HOME);
    const cookies = b.cookies(APP_URL);
    expect(cookies.has(OIDC_FLOW_COOKIE)).toBe(false);
    expect(cookies.get(OIDC_HANDOFF_COOKIE)).toBe('1');
    const sessionCookie = cookies.get(SESSION_COOKIE);
    expect(sessionCookie).toEqual(expect.any(String));

    // The app takes the session up as it would a password sign-in's.
    const handoff = await t.app.inject({
      method: 'POST',
      url: OIDC_PATHS.session,
      headers: { cookie: `${SESSION_COOKIE}=${sessionCookie}`, origin: APP_URL },
    });
    expect(handoff.statusCode).toBe(200);
    expect(handoff.json()).toMatchObject({ sessionId: sessionCookie, user: { id: user.user.id } });
    const devices = await t.app.inject({
      method: 'GET',
      url: '/api/auth/sessions',
      headers: { 'user-session': sessionCookie as string },
    });
    expect(devices.json()).toContainEqual(
      expect.objectContaining({ current: true, userAgent: b.userAgent, ip: '127.0.0.1' }),
    );
    expect(await identities()).toContainEqual(
      expect.objectContaining({ user_id: user.user.id, issuer: provider.issuer, subject: ada.subject }),
    );
  });

  it('signs a linked person in by their subject, even after their e-mail changed', async () => {
    const bea = person('bea');
    const user = await t.signUp({ email: bea.email });
    provider.setAccount(bea.subject, { email: bea.email, email_verified: true });
    expect(await browser().signInWithProvider(bea.subject)).toBe(HOME);

    provider.setAccount(bea.subject, { email: 'bea-new@elsewhere.example', email_verified: false });
    const b = browser();
    expect(await b.signInWithProvider(bea.subject)).toBe(HOME);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { 'user-session': b.cookies(APP_URL).get(SESSION_COOKIE) as string },
    });
    expect(me.json().user).toMatchObject({ id: user.user.id, email: bea.email });
  });

  it('refuses an unverified e-mail: it neither matches nor links', async () => {
    const cy = person('cy');
    await t.signUp({ email: cy.email });
    for (const claims of [{ email: cy.email, email_verified: false }, { email: cy.email }, {}]) {
      provider.setAccount(cy.subject, claims);
      const b = browser();
      expect(errorOf(await b.signInWithProvider(cy.subject))).toBe('unverifiedEmail');
      expect(b.cookies(APP_URL).has(SESSION_COOKIE)).toBe(false);
    }
    expect((await identities()).filter((row) => row.subject === cy.subject)).toEqual([]);
  });

  it("says 'No Tasklane account for this e-mail' when nobody has it and auto-create is off", async () => {
    const dee = person('dee');
    provider.setAccount(dee.subject, { email: dee.email, email_verified: true });
    const b = browser();
    expect(errorOf(await b.signInWithProvider(dee.subject))).toBe('noAccount');
    expect(OIDC_ERRORS.noAccount).toBe('No Tasklane account for this e-mail');
    expect(b.cookies(APP_URL).has(SESSION_COOKIE)).toBe(false);
    expect(await t.ctx.users.findByEmail(dee.email)).toBeUndefined();
  });

  it('keeps a suspended account out, linked or not, with the password sign-in’s words', async () => {
    expect(OIDC_ERRORS.suspended).toBe(AUTH_MESSAGES.suspended);
    const eve = person('eve');
    const fay = person('fay');
    const linked = await t.signUp({ email: eve.email });
    const unlinked = await t.signUp({ email: fay.email });
    provider.setAccount(eve.subject, { email: eve.email, email_verified: true });
    provider.setAccount(fay.subject, { email: fay.email, email_verified: true });
    expect(await browser().signInWithProvider(eve.subject)).toBe(HOME);
    await t.ctx.db.kysely
      .updateTable('users')
      .set({ is_suspended: true })
      .where('id', 'in', [linked.user.id, unlinked.user.id])
      .execute();

    for (const subject of [eve.subject, fay.subject]) {
      const b = browser();
      expect(errorOf(await b.signInWithProvider(subject))).toBe('suspended');
      expect(b.cookies(APP_URL).has(SESSION_COOKIE)).toBe(false);
    }
  });

  it('does not link a second person at the provider to an account already linked there', async () => {
    const gus = person('gus');
    await t.signUp({ email: gus.email });
    provider.setAccount(gus.subject, { email: gus.email, email_verified: true });
    expect(await browser().signInWithProvider(gus.subject)).toBe(HOME);
    provider.setAccount(`${gus.subject}-other`, { email: gus.email, email_verified: true });
    expect(errorOf(await browser().signInWithProvider(`${gus.subject}-other`))).toBe('linkedElsewhere');
  });

  it('refuses a wrong state', async () => {
    const hal = person('hal');
    await t.signUp({ email: hal.email });
    provider.setAccount(hal.subject, { email: hal.email, email_verified: true });
    const b = browser();
    const callback = new URL(await b.callbackUrlFor(hal.subject));
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
    callback.searchParams.set('state', 'forged-state');
    const { landedAt } = await b.navigate(callback.href);
    expect(errorOf(landedAt)).toBe('failed');
    expect(b.cookies(APP_URL).has(SESSION_COOKIE)).toBe(false);
  });

  it('refuses a callback in another browser than the one that started, and a replay', async () => {
    const ian = person('ian');
    await t.signUp({ email: ian.email });
    provider.setAccount(ian.subject, { email: ian.email, email_verified: true });
    const started = browser();
    const callback = await started.callbackUrlFor(ian.subject);
    const flowCookie = started.cookies(APP_URL).get(OIDC_FLOW_COOKIE) as string;

    // Another browser (no flow cookie) brings the answer: refused.
    const other = browser();
    expect(errorOf((await other.navigate(callback)).landedAt)).toBe('failed');
    expect(other.cookies(APP_URL).has(SESSION_COOKIE)).toBe(false);

    // The browser that started it completes it once...
    expect((await started.navigate(callback)).landedAt).toBe(HOME);
    expect(started.cookies(APP_URL).has(OIDC_FLOW_COOKIE)).toBe(false);
    // ...and not twice: without the flow cookie (spent), nor with it put back (the code is spent).
    const replay = browser();
    expect(errorOf((await replay.navigate(callback)).landedAt)).toBe('failed');
    replay.cookies(APP_URL).set(OIDC_FLOW_COOKIE, flowCookie);
    expect(errorOf((await replay.navigate(callback)).landedAt)).toBe('failed');
    expect(replay.cookies(APP_URL).has(SESSION_COOKIE)).toBe(false);
  });

  it('refuses a tampered flow cookie', async () => {
    const jo = person('jo');
    await t.signUp({ email: jo.email });
    provider.setAccount(jo.subject, { email: jo.email, email_verified: true });
    const b = browser();
    const callback = await b.callbackUrlFor(jo.subject);
    const sealed = b.cookies(APP_URL).get(OIDC_FLOW_COOKIE) as string;
    b.cookies(APP_URL).set(OIDC_FLOW_COOKIE, `${sealed.slice(0, -4)}AAAA`);
    expect(errorOf((await b.navigate(callback)).landedAt)).toBe('failed');
  });

  it('creates a regular account for a verified stranger when OIDC_AUTO_CREATE=true', async () => {
    const auto = await createTestApp(dialect, {
      env: oidcEnv({ OIDC_AUTO_CREATE: 'true' }),
      oidcFetch: provider.fetch,
    });
    try {
      const kim = person('kim');
      const kit = person('kit');
      const lee = person('lee');
      provider.setAccount(kim.subject, {
        email: kim.email,
        email_verified: true,
        preferred_username: 'kim.doe',
        given_name: 'Kim',
      });
      provider.setAccount(kit.subject, {
        email: kit.email,
        email_verified: true,
        preferred_username: 'Kim.Doe',
      });
      provider.setAccount(lee.subject, { email: `Lee.Smith+${counter}@example.com`, email_verified: true });

      expect(await browser(auto).signInWithProvider(kim.subject)).toBe(HOME);
      expect(await browser(auto).signInWithProvider(kit.subject)).toBe(HOME);
      expect(await browser(auto).signInWithProvider(lee.subject)).toBe(HOME);
      const kimUser = await auto.ctx.users.findByEmail(kim.email);
      expect(kimUser).toMatchObject({ username: 'kimdoe', first_name: 'Kim', email: kim.email });
      expect(Boolean(kimUser?.is_admin)).toBe(false);
      expect(Boolean(kimUser?.is_suspended)).toBe(false);
      expect((await auto.ctx.users.findByEmail(kit.email))?.username).toBe('kimdoe2');
      expect((await auto.ctx.users.findByEmail(`Lee.Smith+${counter}@example.com`))?.username).toBe(
        'leesmith',
      );
      // Nobody knows the password it was given.
      const login = await auto.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'kimdoe', password: '' },
      });
      expect(login.statusCode).toBe(400);
      // The second sign-in is the same account.
      expect(await browser(auto).signInWithProvider(kim.subject)).toBe(HOME);
      expect((await identities(auto)).filter((row) => row.user_id === kimUser?.id)).toHaveLength(1);
      const audit = await auto.ctx.db.kysely.selectFrom('audit_log').selectAll().execute();
      expect(audit).toContainEqual(
        expect.objectContaining({ action: 'user.create', target_label: 'kimdoe', actor_id: null }),
      );

      // Unverified e-mails create nothing, even here.
      const max = person('max');
      provider.setAccount(max.subject, { email: max.email, email_verified: false });
      expect(errorOf(await browser(auto).signInWithProvider(max.subject))).toBe('unverifiedEmail');
      expect(await auto.ctx.users.findByEmail(max.email)).toBeUndefined();
    } finally {
      await auto.close();
    }
  });

  it('retries discovery when the provider was down, without stopping the server', async () => {
    await provider.pause();
    let late: TestApp | undefined;
    try {
      late = await createTestApp(dialect, { env: oidcEnv(), oidcFetch: provider.fetch });
      const down = await late.app.inject({ method: 'GET', url: OIDC_PATHS.start });
      expect(down.statusCode).toBe(302);
      expect(down.headers.location).toBe('/?signInError=unavailable');
      await provider.resume();
      const up = await late.app.inject({ method: 'GET', url: OIDC_PATHS.start });
      expect(up.statusCode).toBe(302);
      expect(up.headers.location).toMatch(new RegExp(`^${provider.issuer}/`));
    } finally {
      await provider.resume().catch(() => {});
      await late?.close();
    }
  });

  it('has no button and no routes when OIDC_ISSUER is not set', async () => {
    const plain = await createTestApp(dialect);
    try {
      const providers = await plain.app.inject({ method: 'GET', url: '/api/auth/providers' });
      expect(providers.json()).toEqual({ oidc: null });
      for (const url of [OIDC_PATHS.start, `${OIDC_PATHS.callback}?code=x&state=y`]) {
        const response = await plain.app.inject({ method: 'GET', url });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ message: expect.any(String) });
      }
    } finally {
      await plain.close();
    }
  });
});
