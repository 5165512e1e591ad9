import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { toBool, toIso, toIsoOrNull } from '../db/values';
import { versionBump } from '../tasks/version';

/**
 * The CalDAV store's reads (issue 30): a collection's tasks with what a client sent for them, the
 * caller's labels on them and their reminders. Each reads a whole collection (or the named tasks of
 * it) in one query per kind, never one per task: a first sync of 5,000 tasks stays a few queries.
 */

/** A task as the store renders it: its row's fields and its caldav_objects row's, if any. */
export interface DavTaskRow {
  id: number;
  projectId: number;
  parentId: number | null;
  title: string;
  description: string | null;
  dueDate: string | null;
  dueTime: string | null;
  dueTimeZone: string | null;
  recurrence: string | null;
  completed: boolean;
  archived: boolean;
  archivedAt: string | null;
  priority: number;
  position: number;
  sectionId: number | null;
  createdAt: string;
  updatedAt: string;
  /** caldav_objects: null for a task made in the app (named `tasklane-<id>`). */
  uid: string | null;
  href: string | null;
  ical: string | null;
  parentUid: string | null;
  sortPosition: number | null;
}

export interface DavReminderRow {
  id: number;
  taskId: number;
  at: string | null;
  relativeMinutes: number | null;
}

/**
 * Which tasks: a project's resources (not archived, or archived since `archivedSince`), optionally
 * only the ids named; `archivedSince` null reads every task of the project (a write finds its task
 * whatever its age).
 */
export interface TaskScope {
  projectId: number;
  archivedSince: string | null;
  ids?: number[];
}

/** Ids per IN list: well under either database's limit of bound parameters. */
const CHUNK = 500;

const chunks = <T>(values: T[]): T[][] => {
  const out: T[][] = [];
  for (let start = 0; start < values.length; start += CHUNK) out.push(values.slice(start, start + CHUNK));
  return out;
};

/** Runs `read` for the whole scope, or once per chunk of its ids. */
const inChunks = async <T>(ids: number[] | undefined, read: (ids?: number[]) => Promise<T[]>) =>
  ids === undefined ? read() : (await Promise.all(chunks(ids).map((part) => read(part)))).flat();

export function createCaldavRepository(db: Kysely<Database>) {
  const taskQuery = () =>
    db
      .selectFrom('tasks')
      .leftJoin('caldav_objects', 'caldav_objects.task_id', 'tasks.id')
      .select([
        'tasks.id',
        'tasks.project_id',
        'tasks.parent_id',
        'tasks.title',
        'tasks.description',
        'tasks.due_date',
        'tasks.due_time',
        'tasks.due_time_zone',
        'tasks.recurrence',
        'tasks.completed',
        'tasks.archived',
        'tasks.archived_at',
        'tasks.priority',
        'tasks.position',
        'tasks.section_id',
        'tasks.created_at',
        'tasks.updated_at',
        'caldav_objects.uid',
        'caldav_objects.href',
        'caldav_objects.ical',
        'caldav_objects.parent_uid',
        'caldav_objects.sort_position',
      ]);
  type Row = Awaited<ReturnType<ReturnType<typeof taskQuery>['execute']>>[number];
  const toRow = (row: Row): DavTaskRow => ({
    id: row.id,
    projectId: row.project_id,
    parentId: row.parent_id ?? null,
    title: row.title,
    description: row.description,
    dueDate: row.due_date,
    dueTime: row.due_time ?? null,
    dueTimeZone: row.due_time_zone ?? null,
    recurrence: row.recurrence ?? null,
    completed: toBool(row.completed),
    archived: toBool(row.archived),
    archivedAt: toIsoOrNull(row.archived_at),
    priority: row.priority,
    position: Number(row.position),
    sectionId: row.section_id ?? null,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    uid: row.uid,
    href: row.href,
    ical: row.ical,
    parentUid: row.parent_uid,
    sortPosition: row.sort_position === null ? null : Number(row.sort_position),
  });

  return {
    async tasks(scope: TaskScope): Promise<DavTaskRow[]> {
      if (scope.ids?.length === 0) return [];
      const rows = await inChunks(scope.ids, (ids) => {
        let query = taskQuery().where('tasks.project_id', '=', scope.projectId);
        if (ids) query = query.where('tasks.id', 'in', ids);
        const since = scope.archivedSince;
        if (since !== null) {
          query = query.where((eb) =>
            eb.or([eb('tasks.archived', '=', false), eb('tasks.archived_at', '>=', since)]),
          );
        }
        return query.orderBy('tasks.id').execute();
      });
      return rows.map(toRow);
    },

    /** The active tasks beside this one: the same parent and section (X-APPLE-SORT-ORDER's siblings). */
    async siblings(task: DavTaskRow): Promise<DavTaskRow[]> {
      let query = taskQuery()
        .where('tasks.project_id', '=', task.projectId)
        .where('tasks.archived', '=', false)
        .where('tasks.id', '!=', task.id);
      query =
        task.parentId === null
          ? query.where('tasks.parent_id', 'is', null)
          : query.where('tasks.parent_id', '=', task.parentId);
      query =
        task.sectionId === null
          ? query.where('tasks.section_id', 'is', null)
          : query.where('tasks.section_id', '=', task.sectionId);
      return (await query.orderBy('tasks.position').execute()).map(toRow);
    },

    /** The names of `userId`'s labels on the scope's tasks (labels are each person's own). */
    async labelNames(userId: number, projectId: number, ids?: number[]): Promise<Map<number, string[]>> {
      const rows = await inChunks(ids, (part) => {
        let query = db
          .selectFrom('task_labels')
          .innerJoin('labels', 'labels.id', 'task_labels.label_id')
          .innerJoin('tasks', 'tasks.id', 'task_labels.task_id')
          .select(['task_labels.task_id', 'labels.name'])
          .where('labels.user_id', '=', userId)
          .where('tasks.project_id', '=', projectId);
        if (part) query = query.where('task_labels.task_id', 'in', part);
        return query.orderBy('labels.name_key').execute();
      });
      const names = new Map<number, string[]>();
      for (const row of rows) names.set(row.task_id, [...(names.get(row.task_id) ?? []), row.name]);
      return names;
    },

    /** The reminders on the scope's tasks, oldest first. */
    async reminders(projectId: number, ids?: number[]): Promise<Map<number, DavReminderRow[]>> {
      const rows = await inChunks(ids, (part) => {
        let query = db
          .selectFrom('reminders')
          .innerJoin('tasks', 'tasks.id', 'reminders.task_id')
          .select(['reminders.id', 'reminders.task_id', 'reminders.at', 'reminders.relative_minutes'])
          .where('tasks.project_id', '=', projectId);
        if (part) query = query.where('reminders.task_id', 'in', part);
        return query.orderBy('reminders.id').execute();
      });
      const reminders = new Map<number, DavReminderRow[]>();
      for (const row of rows) {
        const reminder = {
          id: row.id,
          taskId: row.task_id,
          at: toIsoOrNull(row.at),
          relativeMinutes: row.relative_minutes,
        };
        reminders.set(row.task_id, [...(reminders.get(row.task_id) ?? []), reminder]);
      }
      return reminders;
    },

    /** The UIDs clients gave these tasks (a task without one is `tasklane-<id>`). */
    async uidsOf(ids: number[]): Promise<Map<number, string>> {
      if (ids.length === 0) return new Map();
      const rows = await inChunks(ids, (part) =>
        db
          .selectFrom('caldav_objects')
          .select(['task_id', 'uid'])
          .where('task_id', 'in', part ?? [])
          .execute(),
      );
      return new Map(rows.map((row) => [row.task_id, row.uid]));
    },

    /** The project's tasks a client named by these resource names (their caldav_objects rows). */
    async idsByHref(projectId: number, hrefs: string[]): Promise<Map<string, number>> {
      if (hrefs.length === 0) return new Map();
      const rows = (
        await Promise.all(
          chunks(hrefs).map((part) =>
            db
              .selectFrom('caldav_objects')
              .innerJoin('tasks', 'tasks.id', 'caldav_objects.task_id')
              .select(['caldav_objects.task_id', 'caldav_objects.href'])
              .where('tasks.project_id', '=', projectId)
              .where('caldav_objects.href', 'in', part)
              .execute(),
          ),
        )
      ).flat();
      return new Map(rows.map((row) => [row.href, row.task_id]));
    },

    /** The project's task with this UID (a client's, or `tasklane-<id>` for one made in the app). */
    async idByUid(projectId: number, uid: string): Promise<number | undefined> {
      const row = await db
        .selectFrom('caldav_objects')
        .innerJoin('tasks', 'tasks.id', 'caldav_objects.task_id')
        .select('caldav_objects.task_id')
        .where('tasks.project_id', '=', projectId)
        .where('caldav_objects.uid', '=', uid)
        .executeTakeFirst();
      if (row) return row.task_id;
      const id = appTaskId(uid);
      if (id === undefined) return undefined;
      // Named by id only while no client gave it another UID.
      const task = await db
        .selectFrom('tasks')
        .leftJoin('caldav_objects', 'caldav_objects.task_id', 'tasks.id')
        .select(['tasks.id', 'caldav_objects.uid'])
        .where('tasks.id', '=', id)
        .where('tasks.project_id', '=', projectId)
        .executeTakeFirst();
      return task && (task.uid === null || task.uid === uid) ? task.id : undefined;
    },

    /** The project's tasks held waiting for a parent with this UID (it has just arrived). */
    async waitingFor(projectId: number, parentUid: string): Promise<number[]> {
      const rows = await db
        .selectFrom('caldav_objects')
        .innerJoin('tasks', 'tasks.id', 'caldav_objects.task_id')
        .select('caldav_objects.task_id')
        .where('tasks.project_id', '=', projectId)
        .where('caldav_objects.parent_uid', '=', parentUid)
        .orderBy('tasks.position')
        .execute();
      return rows.map((row) => row.task_id);
    },

    /**
     * Writes what the client sent for the task, and touches the task: its ETag and the collection's
     * state move on even when only content Tasklane does not show changed.
     */
    async keepObject(
      object: {
        taskId: number;
        uid: string;
        href: string;
        ical: string;
        parentUid: string | null;
        sortPosition: number | null;
      },
      now: string,
    ): Promise<void> {
      const values = {
        uid: object.uid,
        href: object.href,
        ical: object.ical,
        parent_uid: object.parentUid,
        sort_position: object.sortPosition,
      };
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('caldav_objects')
          .values({ task_id: object.taskId, ...values })
          .onConflict((oc) => oc.column('task_id').doUpdateSet(values))
          .execute();
        await trx
          .updateTable('tasks')
          .set({ updated_at: now, ...versionBump })
          .where('id', '=', object.taskId)
          .execute();
      });
    },

    /** The parent a held task waited for has arrived: it waits no more. */
    async stopWaiting(taskId: number): Promise<void> {
      await db
        .updateTable('caldav_objects')
        .set({ parent_uid: null })
        .where('task_id', '=', taskId)
        .execute();
    },
  };
}

export type CaldavRepository = ReturnType<typeof createCaldavRepository>;

/** The UID and resource name of a task made in the app: `tasklane-<id>`. */
export const appTaskUid = (id: number) => `tasklane-${id}`;

/** The task id in an app task's UID (`tasklane-<id>`), or undefined. */
export function appTaskId(uid: string): number | undefined {
  const match = /^tasklane-([1-9]\d{0,15})$/.exec(uid);
  return match ? Number(match[1]) : undefined;
}
