import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app';
import { testDialects } from '../testing/database';

/**
 * Issue 10: sign-in limits that cannot be turned against a user. Failures count, per account and
 * address and per address; a success clears that account's failures from that address.
 * The defaults: 10 failures per account from one address, 30 per address, per 15 minutes.
 */
describe.each(testDialects)('sign-in limits on %s', (dialect) => {
  let t: TestApp;
  const password = 'the-right-password';
  let username: string;

  beforeEach(async () => {
    t = await createTestApp(dialect, {
      env: { AUTH_RATE_LIMIT_PER_IP: '30', AUTH_RATE_LIMIT_PER_ACCOUNT: '10' },
    });
    username = (await t.signUp({ password })).user.username;
  });
  afterEach(async () => t.close());

  const signIn = (from: string, guess: string, name = username) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: from,
      payload: { username: name, password: guess },
    });

  it('lets the right password in from another address after 50 failures from one', async () => {
    for (let i = 0; i < 50; i += 1) {
      expect([401, 429]).toContain((await signIn('203.0.113.1', `guess-${i}`)).statusCode);
    }
    expect((await signIn('198.51.100.7', password)).statusCode).toBe(200);
  });

  it('lets 20 successful sign-ins in a row all succeed', async () => {
    for (let i = 0; i < 20; i += 1) expect((await signIn('203.0.113.2', password)).statusCode).toBe(200);
  });

  it('answers the 11th failure from one address for one account with 429 and Retry-After', async () => {
    for (let i = 0; i < 10; i += 1) expect((await signIn('203.0.113.3', `guess-${i}`)).statusCode).toBe(401);
    const eleventh = await signIn('203.0.113.3', 'guess-10');
    expect(eleventh.statusCode).toBe(429);
    expect(Number(eleventh.headers['retry-after'])).toBeGreaterThan(0);
    expect(eleventh.json().message).toEqual(expect.any(String));
    // The same account from an address that has not failed is not refused.
    expect((await signIn('203.0.113.4', password)).statusCode).toBe(200);
  });

  it('clears an account’s failures from an address when the right password comes from it', async () => {
    for (let i = 0; i < 9; i += 1) expect((await signIn('203.0.113.5', `guess-${i}`)).statusCode).toBe(401);
    expect((await signIn('203.0.113.5', password)).statusCode).toBe(200);
    for (let i = 0; i < 10; i += 1) expect((await signIn('203.0.113.5', `again-${i}`)).statusCode).toBe(401);
  });

  it('limits failures per address across accounts', async () => {
    const strict = await createTestApp(dialect, { env: { AUTH_RATE_LIMIT_PER_IP: '5' } });
    try {
      const attempt = (name: string) =>
        strict.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          remoteAddress: '203.0.113.6',
          payload: { username: name, password: 'wrong' },
        });
      for (let i = 0; i < 5; i += 1) expect((await attempt(`someone${i}`)).statusCode).toBe(401);
      expect((await attempt('someone-else')).statusCode).toBe(429);
    } finally {
      await strict.close();
    }
  });
});
