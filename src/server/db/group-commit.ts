import type { Kysely } from 'kysely';
import type { Database } from './schema';

/** At most this many items share one transaction. */
export const GROUP_COMMIT_SIZE = 64;

/**
 * Group commit (decision 047): items of the same kind of write that arrive while one transaction
 * is running, or in the same turn of the event loop, wait and are written together in the next one, so many requests pay for one commit
 * (on SQLite, writing each touched page to the write-ahead log once; on PostgreSQL, one flush of
 * its log and one round trip). Each item's promise settles only after the transaction holding it
 * has committed, and `afterCommit` has run for the whole group (publishing what changed): an answer
 * never names a row that may not be there. One transaction runs at a time. When a group's
 * transaction fails, each of its items is written again in a transaction of its own, so one bad
 * item (a row whose project was deleted in between) fails alone.
 */
export function createGroupCommit<Item, Result>(
  db: Kysely<Database>,
  write: (trx: Kysely<Database>, item: Item) => Promise<Result>,
  afterCommit: (results: Result[]) => Promise<void> = async () => {},
  size = GROUP_COMMIT_SIZE,
): (item: Item) => Promise<Result> {
  type Waiting = { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void };
  const queue: Waiting[] = [];
  let running = false;

  /** The group's results once committed; throws only when the transaction failed. */
  const transaction = (group: Waiting[]) =>
    db.transaction().execute(async (trx) => {
      const written: Result[] = [];
      for (const waiting of group) written.push(await write(trx, waiting.item));
      return written;
    });

  /** Settles each item of a committed group, after `afterCommit` (never written again). */
  const settle = async (group: Waiting[], results: Result[]) => {
    try {
      await afterCommit(results);
      for (const [i, waiting] of group.entries()) waiting.resolve(results[i] as Result);
    } catch (error) {
      for (const waiting of group) waiting.reject(error);
    }
  };

  const drain = async () => {
    while (queue.length > 0) {
      const group = queue.splice(0, size);
      let results: Result[] | undefined;
      try {
        results = await transaction(group);
      } catch (error) {
        if (group.length === 1) group[0]?.reject(error);
        else {
          for (const waiting of group) {
            const alone = await transaction([waiting]).catch((failure: unknown) => {
              waiting.reject(failure);
              return undefined;
            });
            if (alone) await settle([waiting], alone);
          }
        }
      }
      if (results) await settle(group, results);
    }
    running = false;
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (running) return;
      running = true;
      // A turn of the event loop first: the requests being handled in this one (whose reads are
      // answered in microtasks on SQLite) come to wait here too, and go in the same group.
      setImmediate(drain);
    });
}
