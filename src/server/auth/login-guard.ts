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

export function createLoginGuard(
  rateLimiter: RateLimiter,
  rules: { perAccountAndAddress: RateLimitRule; perAddress: RateLimitRule },
): LoginGuard {
  const byAccountAndAddress = rateLimiter.limit('login-failures:account+ip', rules.perAccountAndAddress);
  const byAddress = rateLimiter.limit('login-failures:ip', rules.perAddress);
  const pair = (account: string, address: string) => `${account.toLowerCase()}|${address}`;
  // The failure itself is answered 401; the next attempt is the one refused.
  const counted = (promise: Promise<void>) =>
    promise.catch((error: unknown) => {
      if (!(error instanceof HttpError && error.statusCode === 429)) throw error;
    });

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
