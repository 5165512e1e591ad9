import { HttpError } from '../http/errors';
import type { RateLimiter, RateLimitRule } from '../http/rate-limit';

/**
 * Sign-in limits that cannot be turned against a user (issue 10), after rate-limiter-flexible's
 * login-protection pattern: only failures count, per account and address and per address; a
 * success clears that account's failures from that address. Someone guessing a password from one
 * address neither locks the account for its owner elsewhere nor slows their own devices.
 */
export interface LoginGuard {
  /** Throws 429 with Retry-After when this address may not try this account, or any account, now. */
  check(account: string, address: string): Promise<void>;
  /** A wrong password, or a wrong second-factor code. */
  fail(account: string, address: string): Promise<void>;
  /** The right password: this account's failures from this address are forgotten. */
  succeed(account: string, address: string): Promise<void>;
}

/**
 * The app's one guard, from AUTH_RATE_LIMIT_*: the password step and the second-factor step count
 * against the same limits (the limiter shares counters by name, so every caller sees the same).
 */
export function createSignInGuard(
  rateLimiter: RateLimiter,
  limits: { perIp: number; perAccount: number; windowMs: number },
): LoginGuard {
  return createLoginGuard(rateLimiter, {
    perAccountAndAddress: { max: limits.perAccount, windowMs: limits.windowMs },
    perAddress: { max: limits.perIp, windowMs: limits.windowMs },
  });
}

/**
 * Counts a failure and answers the attempts left, or null when none were: the failure itself is
 * answered 401 all the same; the next attempt is the one refused.
 */
async function counted(failure: Promise<number>): Promise<number | null> {
  try {
    return await failure;
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 429) return null;
    throw error;
  }
}

export function createLoginGuard(
  rateLimiter: RateLimiter,
  rules: { perAccountAndAddress: RateLimitRule; perAddress: RateLimitRule },
): LoginGuard {
  const byAccountAndAddress = rateLimiter.limit('login-failures:account+ip', rules.perAccountAndAddress);
  const byAddress = rateLimiter.limit('login-failures:ip', rules.perAddress);
  const pair = (account: string, address: string) => `${account.toLowerCase()}|${address}`;

  return {
    async check(account, address) {
      await byAccountAndAddress.check(pair(account, address));
      await byAddress.check(address);
    },
    async fail(account, address) {
      await Promise.all([
        counted(byAccountAndAddress.consume(pair(account, address))),
        counted(byAddress.consume(address)),
      ]);
    },
    async succeed(account, address) {
      await byAccountAndAddress.reset(pair(account, address));
    },
  };
}

/** Wrong second-factor codes for one account, from any address (issue 20). */
export interface SecondFactorGuard {
  /** Throws 429 with Retry-After while the account's second step is locked. */
  check(userId: number): Promise<void>;
  /** A wrong code (TOTP or recovery); true for the one that locks the second step, once per lockout. */
  fail(userId: number): Promise<boolean>;
  /** The right code: the account's count starts again. */
  succeed(userId: number): Promise<void>;
}

/**
 * RFC 6238 §5.2 asks for a limit on the second step itself. It counts per account only, with no
 * address in the key: someone holding the password could otherwise spread guesses over addresses.
 * The password step does not consult it, so the owner is never shut out of the first step, and
 * passkeys (a sign-in of their own) never meet it.
 */
export function createSecondFactorGuard(
  rateLimiter: RateLimiter,
  limits: { wrongCodesPerAccount: number; windowMs: number },
): SecondFactorGuard {
  const byAccount = rateLimiter.limit('second-factor-failures:account', {
    max: limits.wrongCodesPerAccount,
    windowMs: limits.windowMs,
  });
  return {
    check: (userId) => byAccount.check(String(userId)),
    // The store counts atomically: of instances failing at once, one sees the last attempt spent.
    fail: async (userId) => (await counted(byAccount.consume(String(userId)))) === 0,
    succeed: (userId) => byAccount.reset(String(userId)),
  };
}
