import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db';
import type { FileStore } from './store';

/** Any fixed number: the advisory lock every instance takes for a sweep (PostgreSQL). */
const SWEEP_LOCK = 7_243_318;

export interface FileSweeper {
  /** One sweep, unless another instance is sweeping; resolves with how many objects it removed. */
  sweepOnce(): Promise<number>;
  /** Sweeps every `intervalMs` until stopped; the timer does not keep the process alive. */
  start(intervalMs: number): () => void;
}

/**
 * Removes what no row claims (issue 10, issue 11): stored objects older than `minAgeMs` without a
 * row in `files` (an upload in progress writes its row after its object, and is younger), and
 * leftovers of interrupted uploads. At most one instance sweeps at a time: a PostgreSQL advisory
 * lock (SQLite has one process).
 */
export function createFileSweeper({
  db,
  store,
  minAgeMs,
  logger,
}: {
  db: Db;
  store: FileStore;
  minAgeMs: number;
  logger: FastifyBaseLogger;
}): FileSweeper {
  const sweep = async (): Promise<number> => {
    const claimed = new Set(
      (await db.kysely.selectFrom('files').select('storage_key').execute()).map((row) => row.storage_key),
    );
    const cutoff = Date.now() - minAgeMs;
    let removed = 0;
    for await (const { key, modifiedAt } of store.list()) {
      if (claimed.has(key) || modifiedAt.getTime() > cutoff) continue;
      // Claimed since the list was read? Then it stays.
      const row = await db.kysely
        .selectFrom('files')
        .select('id')
        .where('storage_key', '=', key)
        .executeTakeFirst();
      if (row) continue;
      await store.remove(key);
      removed += 1;
    }
    await store.sweepIncomplete(minAgeMs);
    if (removed > 0) logger.info({ removed }, 'removed stored files no task claims');
    return removed;
  };

  const sweepOnce = async (): Promise<number> => {
    if (db.dialect !== 'postgres') return sweep();
    return db.kysely.connection().execute(async (connection) => {
      const { rows } = await sql<{
        locked: boolean;
      }>`select pg_try_advisory_lock(${SWEEP_LOCK}) as locked`.execute(connection);
      if (!rows[0]?.locked) return 0;
      try {
        return await sweep();
      } finally {
        await sql`select pg_advisory_unlock(${SWEEP_LOCK})`.execute(connection);
      }
    });
  };

  return {
    sweepOnce,
    start(intervalMs) {
      const timer = setInterval(() => {
        sweepOnce().catch((error) => logger.warn({ err: error }, 'file sweep failed'));
      }, intervalMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
