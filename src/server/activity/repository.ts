import type { Kysely } from 'kysely';
import {
  ACTIVITY_KINDS,
  type ActivityEntry,
  type ActivityKind,
  DELETED_USER_NAME,
} from '../../common/activity';
import type { Database } from '../db/schema';
import { nowIso, toIso } from '../db/values';
import { changeSource } from './source';

/** One thing that happened to a task, as a feature records it. */
export interface ActivityRecord {
  taskId: number;
  /** Who did it; null for the system (none today). */
  actorId: number | null;
  kind: ActivityKind;
  data?: Record<string, unknown>;
}

/** Rows per INSERT (an import records thousands): well under either database's limit of bound parameters. */
const BATCH = 1000;

const isKind = (value: string): value is ActivityKind =>
  (ACTIVITY_KINDS as readonly string[]).includes(value);

/**
 * The activity log (issue 21). Features record through `recordActivity` with the transaction of
 * the change itself, so the log never tells of a change that did not happen, nor misses one. A
 * change made through another door (CalDAV, ./source.ts) says so in each entry's `data.via`.
 */
export async function recordActivity(db: Kysely<Database>, records: ActivityRecord[]): Promise<void> {
  const at = nowIso();
  const via = changeSource();
  for (let start = 0; start < records.length; start += BATCH) {
    await db
      .insertInto('activity')
      .values(
        records.slice(start, start + BATCH).map((record) => ({
          task_id: record.taskId,
          actor_id: record.actorId,
          kind: record.kind,
          data: JSON.stringify(via ? { ...record.data, via } : (record.data ?? {})),
          at,
        })),
      )
      .execute();
  }
}

/** A task's activity, newest first, with the actors' names. */
export async function listActivity(db: Kysely<Database>, taskId: number): Promise<ActivityEntry[]> {
  const rows = await db
    .selectFrom('activity')
    .leftJoin('users', 'users.id', 'activity.actor_id')
    .select([
      'activity.id',
      'activity.actor_id',
      'activity.kind',
      'activity.data',
      'activity.at',
      'users.first_name',
    ])
    .where('activity.task_id', '=', taskId)
    .orderBy('activity.id', 'desc')
    .execute();
  return rows.flatMap((row) =>
    isKind(row.kind)
      ? [
          {
            id: row.id,
            actorId: row.actor_id,
            actorName: row.first_name ?? DELETED_USER_NAME,
            kind: row.kind,
            data: JSON.parse(row.data) as Record<string, unknown>,
            at: toIso(row.at),
          },
        ]
      : [],
  );
}
