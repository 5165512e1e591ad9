import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import {
  type RateLimiterAbstract,
  RateLimiterPostgres,
  RateLimiterRes,
  RateLimiterSQLite,
} from 'rate-limiter-flexible';
import type { Db } from '../db';
import { tooMany } from './errors';

export interface RateLimitRule {
  /** Attempts allowed per window. */
  max: number;
  windowMs: number;
}

/** A limit on one kind of attempt: its counters are keyed by `name:key`. */
export interface RateLimit {
  /** Counts one attempt and answers how many are left; throws 429 with Retry-After when none were. */
  consume(key: string): Promise<number>;
  /** Throws 429 with Retry-After when the key has none left, counting nothing. */
  check(key: string): Promise<void>;
  /** Forgets the key's attempts. */
  reset(key: string): Promise<void>;
}

export interface RateLimiter {
  /** The named limit with this rule, made once and shared by every caller. */
  limit(name: string, rule: RateLimitRule): RateLimit;
}

/**
 * Counts one attempt against each limit; throws 429 with Retry-After when any is spent. Every
 * limit counts the attempt, even once one is over: a blocked caller stays blocked.
 */
export async function consumeAll(attempts: ReadonlyArray<readonly [RateLimit, string]>): Promise<void> {
  const results = await Promise.allSettled(attempts.map(([limit, key]) => limit.consume(key)));
  const refused = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (refused) throw refused.reason;
}

/** The table the limiters share (migration 0003): key, points, expire. */
const TABLE = 'rate_limits';

const retryAfterSeconds = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

/**
 * Counters in the database through rate-limiter-flexible (PostgreSQL or SQLite store), so every
 * instance shares them (DESIGN.md §1). A store that fails (the database away) rejects with its own
 * error, never a 429.
 */
export function createRateLimiter(db: Db): RateLimiter {
  const limits = new Map<string, RateLimit>();

  const store = (name: string, rule: RateLimitRule): RateLimiterAbstract => {
    const options = {
      tableName: TABLE,
      tableCreated: true,
      clearExpiredByTimeout: false,
      keyPrefix: name,
      points: rule.max,
      duration: Math.ceil(rule.windowMs / 1000),
    };
    return db.dialect === 'postgres'
      ? new RateLimiterPostgres({ ...options, storeClient: db.pgPool as pg.Pool, storeType: 'pool' })
      : new RateLimiterSQLite({
          ...options,
          storeClient: db.sqlite as SqliteDatabase.Database,
          storeType: 'better-sqlite3',
        });
  };

  let lastSweep = Date.now();
  /** Expired counters are dead weight; the library's own sweep runs on a timer we cannot stop. */
  const sweep = async (limiter: RateLimiterAbstract) => {
    if (Date.now() - lastSweep < 10 * 60_000) return;
    lastSweep = Date.now();
    await (limiter as unknown as { clearExpired(before: number): Promise<unknown> }).clearExpired(Date.now());
  };

  const limit = (name: string, rule: RateLimitRule): RateLimit => {
    const id = `${name}/${rule.max}/${rule.windowMs}`;
    const existing = limits.get(id);
    if (existing) return existing;
    const limiter = store(name, rule);
    const made: RateLimit = {
      async consume(key) {
        await sweep(limiter);
        try {
          return (await limiter.consume(key)).remainingPoints;
        } catch (error) {
          if (error instanceof RateLimiterRes) throw tooMany(retryAfterSeconds(error));
          throw error;
        }
      },
      async check(key) {
        const res = await limiter.get(key);
        if (res && res.consumedPoints >= rule.max) throw tooMany(retryAfterSeconds(res));
      },
      async reset(key) {
        await limiter.delete(key);
      },
    };
    limits.set(id, made);
    return made;
  };

  return { limit };
}
