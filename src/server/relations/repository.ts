import { type Kysely, sql } from 'kysely';
import { INVERSE_RELATION, type Relation, type RelationKind } from '../../common/relations';
import type { Database, TaskRelationsTable } from '../db/schema';
import { nowIso, toBool, toIso } from '../db/values';
import { versionBump } from '../tasks/version';

/** How a relation is kept: one row, `taskId` `kind` `otherTaskId` with one of the three stored kinds. */
export interface StoredRelation {
  taskId: number;
  otherTaskId: number;
  kind: TaskRelationsTable['kind'];
}

/**
 * The row a relation asked for from task `taskId` is kept as: 'blocked_by' is `blocks` from the other
 * side, 'duplicated_by' is `duplicate_of` from the other side, and `relates_to` is kept with the
 * lower id first, so the pair's unique key holds it once whichever side wrote it.
 */
export function toStored(taskId: number, kind: RelationKind, otherTaskId: number): StoredRelation {
  switch (kind) {
    case 'blocked_by':
      return { taskId: otherTaskId, otherTaskId: taskId, kind: 'blocks' };
    case 'duplicated_by':
      return { taskId: otherTaskId, otherTaskId: taskId, kind: 'duplicate_of' };
    case 'relates_to':
      return {
        taskId: Math.min(taskId, otherTaskId),
        otherTaskId: Math.max(taskId, otherTaskId),
        kind: 'relates_to',
      };
    default:
      return { taskId, otherTaskId, kind };
  }
}

/** A relation row with the other task's project, for the caller's visibility. */
export interface RelationRow {
  relation: Relation;
  otherProjectId: number;
}

/** Relations between tasks (issue 29): queries only (the rules are in ./service). */
export function createRelationRepository(db: Kysely<Database>) {
  /** The relations touching `taskId`, each read from its side, with the other task's project. */
  const select = (taskId: number) =>
    db
      .selectFrom('task_relations')
      .innerJoin('tasks as other', (join) =>
        join.on((eb) =>
          eb.or([
            eb.and([
              eb('task_relations.task_id', '=', taskId),
              eb('other.id', '=', eb.ref('task_relations.other_task_id')),
            ]),
            eb.and([
              eb('task_relations.other_task_id', '=', taskId),
              eb('other.id', '=', eb.ref('task_relations.task_id')),
            ]),
          ]),
        ),
      )
      .select([
        'task_relations.id',
        'task_relations.task_id',
        'task_relations.kind',
        'task_relations.created_at',
        'other.id as other_id',
        'other.title as other_title',
        'other.completed as other_completed',
        'other.archived as other_archived',
        'other.project_id as other_project_id',
      ])
      .orderBy('task_relations.id');

  type Row = Awaited<ReturnType<ReturnType<typeof select>['executeTakeFirstOrThrow']>>;
  const toRow = (taskId: number, row: Row): RelationRow => ({
    relation: {
      id: row.id,
      kind: row.task_id === taskId ? row.kind : INVERSE_RELATION[row.kind],
      taskId,
      otherTaskId: row.other_id,
      otherProjectId: row.other_project_id,
      otherTitle: row.other_title,
      otherCompleted: toBool(row.other_completed) || toBool(row.other_archived),
      createdAt: toIso(row.created_at),
    },
    otherProjectId: row.other_project_id,
  });

  return {
    async list(taskId: number): Promise<RelationRow[]> {
      return (await select(taskId).execute()).map((row) => toRow(taskId, row));
    },

    async find(taskId: number, id: number): Promise<RelationRow | undefined> {
      const row = await select(taskId).where('task_relations.id', '=', id).executeTakeFirst();
      return row && toRow(taskId, row);
    },

    /** Whether this relation is kept already. */
    async exists(stored: StoredRelation): Promise<boolean> {
      const row = await db
        .selectFrom('task_relations')
        .select('id')
        .where('task_id', '=', stored.taskId)
        .where('other_task_id', '=', stored.otherTaskId)
        .where('kind', '=', stored.kind)
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Whether `to` already blocks `from`, directly or through a chain of blocked tasks: then `from`
     * blocking `to` would close a loop. One recursive query (`union` stops at a loop already there).
     */
    async blocksChainReaches(start: number, target: number): Promise<boolean> {
      const { rows } = await sql<{ found: number }>`with recursive reach(id) as (
          select other_task_id from task_relations where task_id = ${start} and kind = 'blocks'
          union
          select task_relations.other_task_id from task_relations
            join reach on task_relations.task_id = reach.id
            where task_relations.kind = 'blocks'
        )
        select 1 as found from reach where id = ${target} limit 1`.execute(db);
      return rows.length > 0;
    },

    async insert(stored: StoredRelation, createdBy: number): Promise<number> {
      const { id } = await db
        .insertInto('task_relations')
        .values({
          task_id: stored.taskId,
          other_task_id: stored.otherTaskId,
          kind: stored.kind,
          created_by: createdBy,
          created_at: nowIso(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return id;
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('task_relations').where('id', '=', id).execute();
    },

    /**
     * Stamps the tasks as changed: their `blockedBy` may have moved, and their projects' cached
     * lists (versioned by triggers on tasks) are read anew.
     */
    async touch(taskIds: number[]): Promise<void> {
      await db
        .updateTable('tasks')
        .set({ updated_at: nowIso(), ...versionBump })
        .where('id', 'in', taskIds)
        .execute();
    },
  };
}

export type RelationRepository = ReturnType<typeof createRelationRepository>;

/** Runs `work` in one transaction, with a repository bound to it (and the transaction, for activity). */
export function relationTransaction<T>(
  db: Kysely<Database>,
  work: (repository: RelationRepository, trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute((trx) => work(createRelationRepository(trx), trx));
}
