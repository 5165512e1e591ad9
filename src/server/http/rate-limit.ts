import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../db/schema';
import { toNumber } from '../db/values';
import { tooMany } from './errors';

export interface RateLimitRule {
  /** Attempts allowed per window. */
  max: number;
  windowMs: number;
}

export interface RateLimiter {
  /** Counts one attempt for each key; throws 429 with Retry-After when any key is over its limit. */
  hit(keys: Array<{ key: string; rule: RateLimitRule }>): Promise<void>;
}

/**
 * Fixed-window counters kept in the database, so several instances share them
 * (DESIGN.md §1: no state that matters lives in process memory).
 */
export function createRateLimiter(db: Kysely<Database>): RateLimiter {
  let lastSweep = 0;
  return {
    async hit(keys) {
      const now = Date.now();
      if (now - lastSweep > 60_000) {
        lastSweep = now;
        await db.deleteFrom('rate_limits').where('window_ends_at', '<=', now).execute();
      }
      let retryAfterMs = 0;
      for (const { key, rule } of keys) {
        const row = await db
          .insertInto('rate_limits')
          .values({ key, hits: 1, window_ends_at: now + rule.windowMs })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet({
              hits: sql`case when rate_limits.window_ends_at <= ${now} then 1 else rate_limits.hits + 1 end`,
              window_ends_at: sql`case when rate_limits.window_ends_at <= ${now} then ${now + rule.windowMs} else rate_limits.window_ends_at end`,
            }),
          )
          .returning(['hits', 'window_ends_at'])
          .executeTakeFirstOrThrow();
        if (row.hits > rule.max) retryAfterMs = Math.max(retryAfterMs, toNumber(row.window_ends_at) - now);
      }
      if (retryAfterMs > 0) throw tooMany(Math.max(1, Math.ceil(retryAfterMs / 1000)));
    },
  };
}
