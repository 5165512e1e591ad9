import { type Kysely, sql } from 'kysely';
import type { Task, TaskListQuery } from '../../common/tasks';
import type { DialectName } from '../db';
import type { Database, NewTask, TaskRow, TaskUpdate } from '../db/schema';
import { nowIso, toBool, toIso, toIsoOrNull, toNumber } from '../db/values';
import { containsWord, searchWords } from './search';

/** The only shape of a task that leaves the server. */
export function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    userId: row.user_id,
    title: row.title,
    description: row.description,
    dueDate: row.due_date,
    completed: toBool(row.completed),
    archived: toBool(row.archived),
    position: row.position,
    contextId: row.context_id,
    notes: row.notes,
    aiDraft: row.ai_draft,
    aiAssisted: toBool(row.ai_assisted),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    archivedAt: toIsoOrNull(row.archived_at),
    checklist: { done: row.checklist_done, total: row.checklist_total },
  };
}

/** The server's local calendar date, `days` from today, as YYYY-MM-DD ('today' of the due filters). */
export function localDate(days = 0, now = new Date()): string {
  const date = new Date(now.getFullYear(), now.getMonth(), now.getDate() + days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Above every task the user has: the top of the active list (position starts at 0, spec §9). */
const topPosition = (userId: number) =>
  sql<number>`(select coalesce(min(position) - 1, 0) from tasks where user_id = ${userId})`;

export function createTaskRepository(db: Kysely<Database>, dialect: DialectName) {
  /**
   * Every list read asks for the version first (the list cache's key): built once, run with the
   * user's id as its one parameter, it skips Kysely's query building on the hottest path.
   */
  const versionQuery = db.selectFrom('task_versions').select('version').where('user_id', '=', 0).compile();
  return {
    /** The user's tasks that are not archived, in list order (tasks_user_position_idx). */
    listActive: (userId: number): Promise<TaskRow[]> =>
      db
        .selectFrom('tasks')
        .selectAll()
        .where('user_id', '=', userId)
        .where('archived', '=', false)
        .orderBy('position')
        .orderBy('id')
        .execute(),

    /** Most recently archived first (tasks_user_archived_idx). */
    listArchived: (userId: number): Promise<TaskRow[]> =>
      db
        .selectFrom('tasks')
        .selectAll()
        .where('user_id', '=', userId)
        .where('archived', '=', true)
        .orderBy('archived_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),

    /**
     * One of the user's lists narrowed by a query (issue 13), in the list's own order. Every word
     * must occur in the task's folded text or in one of its checklist items.
     */
    listFiltered: (userId: number, archived: boolean, query: TaskListQuery): Promise<TaskRow[]> => {
      let select = db
        .selectFrom('tasks')
        .selectAll('tasks')
        .where('tasks.user_id', '=', userId)
        .where('tasks.archived', '=', archived);
      for (const word of searchWords(query.q)) {
        select = select.where((eb) =>
          eb.or([
            containsWord('tasks.search_text', word),
            eb.exists(
              eb
                .selectFrom('checklist_items')
                .select('checklist_items.id')
                .whereRef('checklist_items.task_id', '=', 'tasks.id')
                .where(containsWord('checklist_items.search_text', word)),
            ),
          ]),
        );
      }
      const today = localDate();
      if (query.due === 'overdue') select = select.where('tasks.due_date', '<', today);
      if (query.due === 'today') select = select.where('tasks.due_date', '=', today);
      if (query.due === 'week')
        select = select.where('tasks.due_date', '>=', today).where('tasks.due_date', '<=', localDate(6));
      if (query.due === 'none') select = select.where('tasks.due_date', 'is', null);
      if (query.hasFiles !== undefined) {
        select = select.where((eb) => {
          const files = eb.exists(
            eb.selectFrom('files').select('files.id').whereRef('files.task_id', '=', 'tasks.id'),
          );
          return query.hasFiles ? files : eb.not(files);
        });
      }
      if (query.agentId !== undefined) select = select.where('tasks.context_id', '=', query.agentId);
      return (
        archived
          ? select.orderBy('tasks.archived_at', 'desc').orderBy('tasks.id', 'desc')
          : select.orderBy('tasks.position').orderBy('tasks.id')
      ).execute();
    },

    /** The user's task version: any change to their tasks bumps it (migration 0002). */
    version: async (userId: number): Promise<number> => {
      const query: typeof versionQuery = { ...versionQuery, parameters: [userId] };
      const { rows } = await db.executeQuery(query);
      return rows[0] ? toNumber(rows[0].version) : 0;
    },

    find: (userId: number, id: number): Promise<TaskRow | undefined> =>
      db
        .selectFrom('tasks')
        .selectAll()
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst(),

    insertAtTop: (task: Omit<NewTask, 'position' | 'created_at' | 'updated_at'>): Promise<TaskRow> => {
      const now = nowIso();
      return db
        .insertInto('tasks')
        .values({ ...task, position: topPosition(task.user_id), created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** `moveToTop` puts the task above all others, as restoring from the archive does. */
    update: (
      userId: number,
      id: number,
      changes: Omit<TaskUpdate, 'position'>,
      moveToTop = false,
    ): Promise<TaskRow | undefined> =>
      db
        .updateTable('tasks')
        .set({ ...changes, updated_at: nowIso(), ...(moveToTop ? { position: topPosition(userId) } : {}) })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .returningAll()
        .executeTakeFirst(),

    fileKeys: async (userId: number, taskId: number): Promise<string[]> =>
      (
        await db
          .selectFrom('files')
          .select('storage_key')
          .where('task_id', '=', taskId)
          .where('user_id', '=', userId)
          .execute()
      ).map((f) => f.storage_key),

    /** Deletes the task; its file rows go with it, by foreign key. False when there was none. */
    delete: async (userId: number, id: number): Promise<boolean> => {
      const result = await db
        .deleteFrom('tasks')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    agentExists: async (userId: number, agentId: number): Promise<boolean> =>
      (await db
        .selectFrom('agents')
        .select('id')
        .where('id', '=', agentId)
        .where('user_id', '=', userId)
        .executeTakeFirst()) !== undefined,

    /** The user's active task ids in list order. */
    activeIds: async (userId: number): Promise<number[]> =>
      (
        await db
          .selectFrom('tasks')
          .select('id')
          .where('user_id', '=', userId)
          .where('archived', '=', false)
          .orderBy('position')
          .orderBy('id')
          .execute()
      ).map((r) => r.id),

    /** Positions become the ids' indexes, in one statement whatever the list's length. */
    setOrder: async (userId: number, orderedIds: number[]): Promise<void> => {
      const statement =
        dialect === 'postgres'
          ? sql`update tasks set position = v.ord - 1
              from unnest(${orderedIds}::int[]) with ordinality as v(id, ord)
              where tasks.id = v.id and tasks.user_id = ${userId}`
          : // Materialised, the id list drives the join (a rowid lookup per id); joined directly,
            // SQLite scans the list once per task: 1,000 tasks took 100 ms instead of 2.
            sql`with v as materialized (select key, value from json_each(${JSON.stringify(orderedIds)}))
              update tasks set position = v.key
              from v where tasks.id = v.value and tasks.user_id = ${userId}`;
      await statement.execute(db);
    },

    /** An active task's place in the list, for a move; undefined when it is not the user's or is archived. */
    activePlace: (userId: number, id: number) =>
      db
        .selectFrom('tasks')
        .select(['id', 'position'])
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('archived', '=', false)
        .executeTakeFirst(),

    /**
     * The active task that follows `after` in list order (position, then id), leaving `skip` out;
     * with no `after`, the first one.
     */
    nextActive: (userId: number, after: { id: number; position: number } | null, skip: number) => {
      let query = db
        .selectFrom('tasks')
        .select(['id', 'position'])
        .where('user_id', '=', userId)
        .where('archived', '=', false)
        .where('id', '!=', skip);
      if (after) {
        query = query.where((eb) =>
          eb.or([
            eb('position', '>', after.position),
            eb.and([eb('position', '=', after.position), eb('id', '>', after.id)]),
          ]),
        );
      }
      return query.orderBy('position').orderBy('id').limit(1).executeTakeFirst();
    },

    setPosition: async (userId: number, id: number, position: number): Promise<void> => {
      await db
        .updateTable('tasks')
        .set({ position })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .execute();
    },

    /** Which of these ids are the user's archived tasks (to say why a reorder was refused). */
    archivedAmong: async (userId: number, ids: number[]): Promise<number[]> =>
      ids.length === 0
        ? []
        : (
            await db
              .selectFrom('tasks')
              .select('id')
              .where('user_id', '=', userId)
              .where('archived', '=', true)
              .where('id', 'in', ids)
              .execute()
          ).map((r) => r.id),
  };
}

export type TaskRepository = ReturnType<typeof createTaskRepository>;

/** Runs `work` with a repository bound to one transaction: all of it happens, or none. */
export function inTransaction<T>(
  db: Kysely<Database>,
  dialect: DialectName,
  work: (repository: TaskRepository) => Promise<T>,
): Promise<T> {
  return db.transaction().execute((trx) => work(createTaskRepository(trx, dialect)));
}
