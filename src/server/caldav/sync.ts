import { type Kysely, sql } from 'kysely';
import { CALDAV_LIMITS } from '../../common/caldav';
import type { Database } from '../db/schema';
import { toBool, toIso, toNumber } from '../db/values';
import type { Clock } from '../time/clock';

/**
 * A person's view of a project as a collection (issue 30, decision 052): the sequence its sync
 * tokens count, and each resource's ETag with the sequence of its last change (or deletion).
 *
 * Reading it must be cheap: a sync-collection with nothing changed is one query here. The state is
 * refreshed only when the collection's fingerprint moved: the project's version (bumped by triggers
 * on every change of its tasks, store writes touch the task too), the caller's labels, the project's
 * reminders (which do not touch their task) and today's date (the window of completed tasks).
 *
 * The sequence is a clock in milliseconds that only grows (`max(seq + 1, now)`): two instances
 * refreshing at once each take a larger one, and a tombstone's age is read from its sequence, so
 * those older than CALDAV_LIMITS.tombstoneDays are pruned and tokens before them answer 403.
 */

export interface SyncState {
  seq: number;
  minSeq: number;
}

export interface SyncEntry {
  href: string;
  etag: string;
  seq: number;
  deleted: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows per upsert: 5 parameters each, well under either database's limit. */
const BATCH = 1000;

export const syncToken = (projectId: number, seq: number) => `urn:tasklane:sync:${projectId}:${seq}`;
export const ctagOf = (projectId: number, seq: number) => `"${projectId}-${seq}"`;

/** The sequence a token of this collection names, or undefined for anything else. */
export function tokenSeq(projectId: number, token: string): number | undefined {
  const match = /^urn:tasklane:sync:(\d+):(\d{1,16})$/.exec(token.trim());
  return match && Number(match[1]) === projectId ? Number(match[2]) : undefined;
}

export function createCaldavSync(db: Kysely<Database>, clock: Clock) {
  /** The stored state and the current fingerprint, in one query. */
  async function read(userId: number, projectId: number) {
    const { rows } = await sql<{
      seq: number | string | null;
      min_seq: number | string | null;
      fingerprint: string | null;
      version: number | string | null;
      label_count: number | string;
      label_at: Date | string | null;
      reminder_count: number | string;
      reminder_max: number | string | null;
    }>`select
        (select seq from caldav_collections where user_id = ${userId} and project_id = ${projectId}) as seq,
        (select min_seq from caldav_collections where user_id = ${userId} and project_id = ${projectId}) as min_seq,
        (select fingerprint from caldav_collections where user_id = ${userId} and project_id = ${projectId}) as fingerprint,
        (select version from project_versions where project_id = ${projectId}) as version,
        (select count(*) from labels where user_id = ${userId}) as label_count,
        (select max(updated_at) from labels where user_id = ${userId}) as label_at,
        (select count(*) from reminders join tasks on tasks.id = reminders.task_id
          where tasks.project_id = ${projectId}) as reminder_count,
        (select max(reminders.id) from reminders join tasks on tasks.id = reminders.task_id
          where tasks.project_id = ${projectId}) as reminder_max`.execute(db);
    const row = rows[0]!;
    const today = clock.now().toISOString().slice(0, 10);
    const fingerprint = [
      row.version ?? 0,
      row.label_count,
      row.label_at === null ? '' : toIso(row.label_at),
      row.reminder_count,
      row.reminder_max ?? '',
      today,
    ].join('|');
    const state =
      row.seq === null || row.min_seq === null
        ? undefined
        : { seq: toNumber(row.seq), minSeq: toNumber(row.min_seq) };
    return { state, stored: row.fingerprint, fingerprint };
  }

  /**
   * Writes the collection's current resources (href → ETag): changed, new and deleted ones get the
   * next sequence, once; nothing changed keeps it.
   */
  async function write(
    userId: number,
    projectId: number,
    fingerprint: string,
    current: Map<string, string>,
    first: boolean,
  ): Promise<SyncState> {
    const entries = await db
      .selectFrom('caldav_entries')
      .select(['href', 'etag', 'deleted'])
      .where('user_id', '=', userId)
      .where('project_id', '=', projectId)
      .execute();
    const known = new Map(entries.map((entry) => [entry.href, entry]));
    const changes: Array<{ href: string; etag: string; deleted: boolean }> = [];
    for (const [href, etag] of current) {
      const entry = known.get(href);
      if (!entry || entry.etag !== etag || toBool(entry.deleted))
        changes.push({ href, etag, deleted: false });
    }
    for (const entry of entries) {
      if (!toBool(entry.deleted) && !current.has(entry.href)) {
        changes.push({ href: entry.href, etag: entry.etag, deleted: true });
      }
    }
    const now = clock.now();
    const where = { user_id: userId, project_id: projectId };
    return db.transaction().execute(async (trx) => {
      await trx
        .insertInto('caldav_collections')
        .values({ ...where, seq: 0, min_seq: 0, fingerprint: '', refreshed_at: now.toISOString() })
        .onConflict((oc) => oc.columns(['user_id', 'project_id']).doNothing())
        .execute();
      // The first refresh takes a sequence even for an empty collection: tokens start there.
      const bump = changes.length > 0 || first;
      const nowMs = now.getTime();
      const next = sql<number>`case when seq + 1 > ${nowMs} then seq + 1 else ${nowMs} end`;
      const row = await trx
        .updateTable('caldav_collections')
        .set({
          fingerprint,
          refreshed_at: now.toISOString(),
          ...(bump ? { seq: next } : {}),
          // The first sequence is the oldest token there is: one before it was never handed out.
          ...(first ? { min_seq: sql<number>`case when min_seq = 0 then ${next} else min_seq end` } : {}),
        })
        .where('user_id', '=', userId)
        .where('project_id', '=', projectId)
        .returning(['seq', 'min_seq'])
        .executeTakeFirstOrThrow();
      const seq = toNumber(row.seq);
      let minSeq = toNumber(row.min_seq);
      for (let start = 0; start < changes.length; start += BATCH) {
        await trx
          .insertInto('caldav_entries')
          .values(changes.slice(start, start + BATCH).map((change) => ({ ...where, ...change, seq })))
          .onConflict((oc) =>
            oc.columns(['user_id', 'project_id', 'href']).doUpdateSet((eb) => ({
              etag: eb.ref('excluded.etag'),
              deleted: eb.ref('excluded.deleted'),
              seq: eb.ref('excluded.seq'),
            })),
          )
          .execute();
      }
      // Tombstones too old to keep: a token from before them can no longer say what was deleted.
      const cutoff = nowMs - CALDAV_LIMITS.tombstoneDays * DAY_MS;
      const pruned = await trx
        .deleteFrom('caldav_entries')
        .where('user_id', '=', userId)
        .where('project_id', '=', projectId)
        .where('deleted', '=', true)
        .where('seq', '<', cutoff)
        .returning('seq')
        .execute();
      const newest = Math.max(minSeq, ...pruned.map((entry) => toNumber(entry.seq)));
      if (newest > minSeq) {
        minSeq = newest;
        await trx
          .updateTable('caldav_collections')
          .set({ min_seq: minSeq })
          .where('user_id', '=', userId)
          .where('project_id', '=', projectId)
          .execute();
      }
      return { seq, minSeq };
    });
  }

  return {
    /**
     * The collection's state, refreshed first when its fingerprint moved: `render` answers every
     * current resource's href and ETag (it is only called then).
     */
    async state(
      userId: number,
      projectId: number,
      render: () => Promise<Map<string, string>>,
    ): Promise<SyncState> {
      const { state, stored, fingerprint } = await read(userId, projectId);
      if (state && stored === fingerprint) return state;
      // The fingerprint is read before the resources: a change while rendering refreshes again next time.
      return write(userId, projectId, fingerprint, await render(), state === undefined);
    },

    /** The entries of the collection changed after `seq` (all live ones with seq null). */
    async entries(userId: number, projectId: number, after: number | null): Promise<SyncEntry[]> {
      let query = db
        .selectFrom('caldav_entries')
        .select(['href', 'etag', 'seq', 'deleted'])
        .where('user_id', '=', userId)
        .where('project_id', '=', projectId);
      query = after === null ? query.where('deleted', '=', false) : query.where('seq', '>', after);
      const rows = await query.orderBy('href').execute();
      return rows.map((row) => ({
        href: row.href,
        etag: row.etag,
        seq: toNumber(row.seq),
        deleted: toBool(row.deleted),
      }));
    },
  };
}

export type CaldavSync = ReturnType<typeof createCaldavSync>;
