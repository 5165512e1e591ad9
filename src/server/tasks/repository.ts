import { type Kysely, sql } from 'kysely';
import { addDays, ZONE_DAY_REACH } from '../../common/due';
import { labelKey, type TaskLabel } from '../../common/labels';
import type { ProjectColor } from '../../common/projects';
import type { Task, TaskListQuery } from '../../common/tasks';
import type { DialectName } from '../db';
import type { Database, NewTask, TaskRow, TaskUpdate } from '../db/schema';
import { nowIso, toBool, toIso, toIsoOrNull } from '../db/values';
import { containsWord, searchWords } from './search';
import { nextVersion, versionBump } from './version';

/** What a task's structure (issue 29) adds to its row: its direct sub-tasks and its open blockers. */
export interface TaskStructure {
  subtasks: { done: number; total: number };
  blockedBy: number;
}
const NO_STRUCTURE: TaskStructure = { subtasks: { done: 0, total: 0 }, blockedBy: 0 };

/** The only shape of a task that leaves the server; `assigneeIds` come from task_assignees, `labels` from task_labels. */
export function toTask(
  row: TaskRow,
  assigneeIds: number[] = [],
  labels: TaskLabel[] = [],
  structure: TaskStructure = NO_STRUCTURE,
): Task {
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
    projectId: row.project_id,
    assigneeIds,
    commentCount: row.comment_count,
    dueTime: row.due_time ?? null,
    dueTimeZone: row.due_time_zone ?? null,
    recurrence: row.recurrence ?? null,
    recurrenceFrom: row.recurrence_from === 'completion' ? 'completion' : 'due',
    sectionId: row.section_id ?? null,
    priority: row.priority ?? 4,
    labels,
    parentId: row.parent_id ?? null,
    subtasks: structure.subtasks,
    blockedBy: structure.blockedBy,
    version: row.version,
  };
}

/** What a list's tasks carry besides their rows: assignees, labels and structure, by task id. */
export interface TaskExtras {
  assignees: Map<number, number[]>;
  labels: Map<number, TaskLabel[]>;
  /** Issue 29: sub-task counts and open blockers; a task left out has none. */
  structure?: Map<number, TaskStructure>;
}

type SubtaskCountRow = {
  parent_id: number | null;
  total: number | string | bigint;
  done: number | string | bigint | null;
};
type BlockerCountRow = { task_id: number; blockers: number | string | bigint };
/** Sub-task counts and open blockers by task, from their grouped queries' rows. */
const structureByTask = (
  subtasks: SubtaskCountRow[],
  blockers: BlockerCountRow[],
  byTask = new Map<number, TaskStructure>(),
) => {
  const of = (id: number) => {
    let structure = byTask.get(id);
    if (!structure) {
      structure = { subtasks: { done: 0, total: 0 }, blockedBy: 0 };
      byTask.set(id, structure);
    }
    return structure;
  };
  for (const row of subtasks) {
    if (row.parent_id === null) continue;
    of(row.parent_id).subtasks = { done: Number(row.done ?? 0), total: Number(row.total) };
  }
  for (const row of blockers) of(row.task_id).blockedBy = Number(row.blockers);
  return byTask;
};

/**
 * The subtree under `rootId` (the task itself at depth 0), as a recursive CTE both databases read
 * (decision 050). The depth bound stops a corrupted loop from running forever.
 */
const subtreeCte = (rootId: number) =>
  sql`with recursive subtree(id, depth) as (
    select id, 0 from tasks where id = ${rootId}
    union all
    select tasks.id, subtree.depth + 1 from tasks join subtree on tasks.parent_id = subtree.id
    where subtree.depth < 64
  )`;
/** `tasks.id in (the subtree under rootId, itself included or not)`, for set-based statements. */
const inSubtree = (rootId: number, withRoot: boolean) =>
  sql<boolean>`tasks.id in (${subtreeCte(rootId)} select id from subtree${withRoot ? sql`` : sql` where depth > 0`})`;

const pushTo = <T>(map: Map<number, T[]>, key: number, value: T) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

type LabelJoinRow = { task_id: number; id: number; name: string; color: string };
/** Labels by task, each task's in name order (the query's). */
const labelsByTask = (rows: LabelJoinRow[], byTask = new Map<number, TaskLabel[]>()) => {
  for (const row of rows) {
    pushTo(byTask, row.task_id, { id: row.id, name: row.name, color: row.color as ProjectColor });
  }
  return byTask;
};

/** Which tasks a list spans: one project's, or several (projectId=all, assignee=me). */
export interface ListSpan {
  projectIds: number[];
  /** Only the tasks assigned to this user... */
  assigneeId?: number;
  /** ...and every task of this project, the caller's Inbox (`projectId=all&assignee=me`, issue 23)... */
  inboxId?: number;
  /** ...and the tasks assigned to nobody in these projects (`assignee=me_or_unassigned`, issue 28). */
  unassignedIn?: number[];
}

/**
 * The days a list keeps (YYYY-MM-DD, both included; either may be open): the due filter's and the
 * due window's, read in the caller's zone. The query reads them widened by the days a due time can
 * move between zones; the service keeps the tasks whose day in the caller's zone is in them (dueDayIn).
 */
export interface DueDays {
  from?: string;
  to?: string;
}

/**
 * Above every task of the project: the top of its active list (position starts at 0, spec §9).
 * The smallest position among the active tasks and among the archived ones, each read from the
 * end of tasks_project_position_idx (project_id, archived, position): one min() over the whole
 * project walked all its index entries, a create costing more with every task in the list.
 */
const topPosition = (projectId: number) =>
  sql<number>`(select coalesce(min(top) - 1, 0) from (
    select min(position) as top from tasks where project_id = ${projectId} and archived = ${false}
    union all
    select min(position) as top from tasks where project_id = ${projectId} and archived = ${true}
  ) as tops)`;

/** A new task's columns but those insertAtTop sets (its position and times). */
export type NewTaskOnTop = Omit<NewTask, 'position' | 'created_at' | 'updated_at'>;

/** Ids per statement for `in (...)`: well under either database's limit of bound parameters. */
const ID_BATCH = 500;

export function createTaskRepository(db: Kysely<Database>, dialect: DialectName) {
  return {
    /** The project's tasks that are not archived, in list order (tasks_project_position_idx). */
    listActive: (projectId: number): Promise<TaskRow[]> =>
      db
        .selectFrom('tasks')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('archived', '=', false)
        .orderBy('position')
        .orderBy('id')
        .execute(),

    /** Most recently archived first (tasks_project_archived_idx). */
    listArchived: (projectId: number): Promise<TaskRow[]> =>
      db
        .selectFrom('tasks')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('archived', '=', true)
        .orderBy('archived_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),

    /**
     * A list narrowed by a query (issue 13) or spanning projects (issue 21), in the list's own
     * order (several projects: by project, then position). Every word must occur in the task's
     * folded text or in one of its checklist items.
     */
    listFiltered: (
      span: ListSpan,
      archived: boolean,
      query: TaskListQuery,
      days?: DueDays,
    ): Promise<TaskRow[]> => {
      if (span.projectIds.length === 0) return Promise.resolve([]);
      let select = db
        .selectFrom('tasks')
        .selectAll('tasks')
        .where('tasks.project_id', 'in', span.projectIds)
        .where('tasks.archived', '=', archived);
      const { assigneeId, inboxId, unassignedIn = [] } = span;
      if (assigneeId !== undefined) {
        // Each by the task's assignees' primary key (task_id, user_id).
        select = select.where((eb) => {
          const assignees = () =>
            eb
              .selectFrom('task_assignees')
              .select('task_assignees.task_id')
              .whereRef('task_assignees.task_id', '=', 'tasks.id');
          const kept = [eb.exists(assignees().where('task_assignees.user_id', '=', assigneeId))];
          if (inboxId !== undefined) kept.push(eb('tasks.project_id', '=', inboxId));
          if (unassignedIn.length > 0)
            kept.push(eb.and([eb('tasks.project_id', 'in', unassignedIn), eb.not(eb.exists(assignees()))]));
          return eb.or(kept);
        });
      }
      const sort = query.sort ?? 'manual';
      if (span.projectIds.length > 1 && sort === 'manual') select = select.orderBy('tasks.project_id');
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
      if (query.due === 'none') select = select.where('tasks.due_date', 'is', null);
      // The days widened by the days a due time can move between zones (DueDays).
      if (days?.from !== undefined)
        select = select.where('tasks.due_date', '>=', addDays(days.from, -ZONE_DAY_REACH));
      if (days?.to !== undefined)
        select = select.where('tasks.due_date', '<=', addDays(days.to, ZONE_DAY_REACH));
      if (query.hasFiles !== undefined) {
        select = select.where((eb) => {
          const files = eb.exists(
            eb.selectFrom('files').select('files.id').whereRef('files.task_id', '=', 'tasks.id'),
          );
          return query.hasFiles ? files : eb.not(files);
        });
      }
      if (query.agentId !== undefined) select = select.where('tasks.context_id', '=', query.agentId);
      // Issue 29: one task's direct sub-tasks, in their order (archived ones too).
      if (query.parentId !== undefined) {
        select = select.where('tasks.parent_id', '=', query.parentId);
        if (sort === 'manual') return select.orderBy('tasks.position').orderBy('tasks.id').execute();
      }
      const priorities = query.priority;
      if (priorities) select = select.where('tasks.priority', 'in', priorities);
      // Each name must be on the task: anyone's label of that name counts (labels are seen by all).
      for (const name of new Set((query.label ?? []).map(labelKey))) {
        select = select.where((eb) =>
          eb.exists(
            eb
              .selectFrom('task_labels')
              .innerJoin('labels', 'labels.id', 'task_labels.label_id')
              .select('task_labels.task_id')
              .whereRef('task_labels.task_id', '=', 'tasks.id')
              .where('labels.name_key', '=', name),
          ),
        );
      }
      switch (sort) {
        case 'due':
          // Undated last; a date without a time before the same date with one.
          select = select
            .orderBy(sql`tasks.due_date is null`)
            .orderBy('tasks.due_date')
            .orderBy(sql`tasks.due_time is not null`)
            .orderBy('tasks.due_time');
          break;
        case 'priority':
          select = select.orderBy('tasks.priority');
          break;
        case 'created':
          return select.orderBy('tasks.created_at', 'desc').orderBy('tasks.id', 'desc').execute();
        case 'title':
          select = select.orderBy(sql`lower(tasks.title)`).orderBy('tasks.title');
          break;
        case 'manual':
          break;
      }
      return (
        archived
          ? select.orderBy('tasks.archived_at', 'desc').orderBy('tasks.id', 'desc')
          : select.orderBy('tasks.position').orderBy('tasks.id')
      ).execute();
    },

    /** The task by id: the caller has asked the access module whether they may see it. */
    find: (id: number): Promise<TaskRow | undefined> =>
      db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst(),

    insertAtTop: (task: NewTaskOnTop): Promise<TaskRow> => {
      const now = nowIso();
      return db
        .insertInto('tasks')
        .values({ ...task, position: topPosition(task.project_id), created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /**
     * `toTopOf` puts the task above all others of that project, as restoring from the archive and
     * moving to another project do. With `expectedVersion` (an If-Match, issue 31), only while the
     * task is still at that version: undefined when it is not, so of two writers naming the same
     * version one wins (the row is locked, or SQLite writes one at a time).
     */
    update: (
      id: number,
      changes: Omit<TaskUpdate, 'position'>,
      toTopOf?: number,
      position?: number,
      expectedVersion?: number,
    ): Promise<TaskRow | undefined> => {
      let query = db
        .updateTable('tasks')
        .set({
          ...changes,
          updated_at: nowIso(),
          ...versionBump,
          ...(toTopOf !== undefined ? { position: topPosition(toTopOf) } : {}),
          ...(toTopOf === undefined && position !== undefined ? { position } : {}),
        })
        .where('id', '=', id);
      if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
      return query.returningAll().executeTakeFirst();
    },

    /** A new task at this position (a sub-task: after its parent's last, issue 29). */
    insertAt: (task: NewTaskOnTop, position: number): Promise<TaskRow> => {
      const now = nowIso();
      return db
        .insertInto('tasks')
        .values({ ...task, position, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    fileKeys: async (taskId: number): Promise<string[]> =>
      (await db.selectFrom('files').select('storage_key').where('task_id', '=', taskId).execute()).map(
        (f) => f.storage_key,
      ),

    /** Deletes the task; its file rows go with it, by foreign key. False when there was none. */
    delete: async (id: number): Promise<boolean> => {
      const result = await db.deleteFrom('tasks').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /** Each task's assignees, in the order they were assigned (tasks without any are left out). */
    assigneesOf: async (taskIds: number[]): Promise<Map<number, number[]>> => {
      const byTask = new Map<number, number[]>();
      for (let at = 0; at < taskIds.length; at += ID_BATCH) {
        const rows = await db
          .selectFrom('task_assignees')
          .select(['task_id', 'user_id'])
          .where('task_id', 'in', taskIds.slice(at, at + ID_BATCH))
          .orderBy('assigned_at')
          .orderBy('user_id')
          .execute();
        for (const row of rows) {
          const list = byTask.get(row.task_id);
          if (list) list.push(row.user_id);
          else byTask.set(row.task_id, [row.user_id]);
        }
      }
      return byTask;
    },

    /** Each task's labels (everyone's), by name. */
    labelsOf: async (taskIds: number[]): Promise<Map<number, TaskLabel[]>> => {
      const byTask = new Map<number, TaskLabel[]>();
      for (let at = 0; at < taskIds.length; at += ID_BATCH) {
        const rows = await db
          .selectFrom('task_labels')
          .innerJoin('labels', 'labels.id', 'task_labels.label_id')
          .select(['task_labels.task_id', 'labels.id', 'labels.name', 'labels.color'])
          .where('task_labels.task_id', 'in', taskIds.slice(at, at + ID_BATCH))
          .orderBy('labels.name_key')
          .orderBy('labels.id')
          .execute();
        labelsByTask(rows, byTask);
      }
      return byTask;
    },

    /** A project's list's labels in one query. */
    labelsInProject: async (projectId: number, archived: boolean): Promise<Map<number, TaskLabel[]>> =>
      labelsByTask(
        await db
          .selectFrom('task_labels')
          .innerJoin('labels', 'labels.id', 'task_labels.label_id')
          .innerJoin('tasks', 'tasks.id', 'task_labels.task_id')
          .select(['task_labels.task_id', 'labels.id', 'labels.name', 'labels.color'])
          .where('tasks.project_id', '=', projectId)
          .where('tasks.archived', '=', archived)
          .orderBy('labels.name_key')
          .orderBy('labels.id')
          .execute(),
      ),

    /** Which of these label ids are the user's own labels. */
    ownLabelIds: async (userId: number, labelIds: number[]): Promise<Set<number>> =>
      labelIds.length === 0
        ? new Set()
        : new Set(
            (
              await db
                .selectFrom('labels')
                .select('id')
                .where('user_id', '=', userId)
                .where('id', 'in', labelIds)
                .execute()
            ).map((row) => row.id),
          ),

    /** Replaces the user's own labels on the task; other people's labels on it stay. */
    /** Sets the caller's own labels on a task (others' stay); answers the names added and removed. */
    setOwnLabels: async (
      taskId: number,
      userId: number,
      labelIds: number[],
    ): Promise<{ added: string[]; removed: string[] }> => {
      const own = (ids?: number[]) => {
        let query = db.selectFrom('labels').select(['id', 'name']).where('user_id', '=', userId);
        if (ids) query = query.where('id', 'in', ids);
        else
          query = query.where('id', 'in', (eb) =>
            eb.selectFrom('task_labels').select('label_id').where('task_id', '=', taskId),
          );
        return query.orderBy('name').execute();
      };
      const before = await own();
      let query = db
        .deleteFrom('task_labels')
        .where('task_id', '=', taskId)
        .where('label_id', 'in', (eb) => eb.selectFrom('labels').select('id').where('user_id', '=', userId));
      if (labelIds.length > 0) query = query.where('label_id', 'not in', labelIds);
      await query.execute();
      const removed = before.filter((label) => !labelIds.includes(label.id)).map((label) => label.name);
      const addedIds = labelIds.filter((id) => !before.some((label) => label.id === id));
      if (labelIds.length > 0) {
        await db
          .insertInto('task_labels')
          .values(labelIds.map((labelId) => ({ task_id: taskId, label_id: labelId })))
          .onConflict((oc) => oc.columns(['task_id', 'label_id']).doNothing())
          .execute();
      }
      const added = addedIds.length > 0 ? (await own(addedIds)).map((label) => label.name) : [];
      return { added, removed };
    },

    /** A project's list's assignees in one query (the list is read whole). */
    assigneesInProject: async (projectId: number, archived: boolean): Promise<Map<number, number[]>> => {
      const rows = await db
        .selectFrom('task_assignees')
        .innerJoin('tasks', 'tasks.id', 'task_assignees.task_id')
        .select(['task_assignees.task_id', 'task_assignees.user_id'])
        .where('tasks.project_id', '=', projectId)
        .where('tasks.archived', '=', archived)
        .orderBy('task_assignees.assigned_at')
        .orderBy('task_assignees.user_id')
        .execute();
      const byTask = new Map<number, number[]>();
      for (const row of rows) {
        const list = byTask.get(row.task_id);
        if (list) list.push(row.user_id);
        else byTask.set(row.task_id, [row.user_id]);
      }
      return byTask;
    },

    /** Replaces the task's assignees: those kept keep their place, new ones follow in the given order. */
    setAssignees: async (taskId: number, userIds: number[]): Promise<void> => {
      let query = db.deleteFrom('task_assignees').where('task_id', '=', taskId);
      if (userIds.length > 0) query = query.where('user_id', 'not in', userIds);
      await query.execute();
      if (userIds.length === 0) return;
      const now = Date.now();
      await db
        .insertInto('task_assignees')
        .values(
          // A millisecond apart, so assigned_at keeps the order given.
          userIds.map((userId, i) => ({
            task_id: taskId,
            user_id: userId,
            assigned_at: new Date(now + i).toISOString(),
          })),
        )
        .onConflict((oc) => oc.columns(['task_id', 'user_id']).doNothing())
        .execute();
    },

    /** The tasks of the project assigned to the user, no longer: their ids (each task's row touched, so lists refresh). */
    unassignAll: async (projectId: number, userId: number): Promise<number[]> => {
      const ids = (
        await db
          .selectFrom('task_assignees')
          .innerJoin('tasks', 'tasks.id', 'task_assignees.task_id')
          .select('tasks.id')
          .where('tasks.project_id', '=', projectId)
          .where('task_assignees.user_id', '=', userId)
          .execute()
      ).map((row) => row.id);
      if (ids.length === 0) return ids;
      await db
        .deleteFrom('task_assignees')
        .where('task_id', 'in', ids)
        .where('user_id', '=', userId)
        .execute();
      await db
        .updateTable('tasks')
        .set({ updated_at: nowIso(), ...versionBump })
        .where('id', 'in', ids)
        .execute();
      return ids;
    },

    /** An account's username, when it is active and not the hidden bootstrap administrator. */
    activeUsername: async (userId: number): Promise<string | undefined> =>
      (
        await db
          .selectFrom('users')
          .select('username')
          .where('id', '=', userId)
          .where('is_suspended', '=', false)
          .where('is_bootstrap', '=', false)
          .executeTakeFirst()
      )?.username,

    agentExists: async (userId: number, agentId: number): Promise<boolean> =>
      (await db
        .selectFrom('agents')
        .select('id')
        .where('id', '=', agentId)
        .where('user_id', '=', userId)
        .executeTakeFirst()) !== undefined,

    /** The project's active task ids in list order. */
    activeIds: async (projectId: number): Promise<number[]> =>
      (
        await db
          .selectFrom('tasks')
          .select('id')
          .where('project_id', '=', projectId)
          .where('archived', '=', false)
          .orderBy('position')
          .orderBy('id')
          .execute()
      ).map((r) => r.id),

    /**
     * Positions become the ids' indexes, in one statement whatever the list's length. Only the
     * tasks whose place changes are written (and their versions grow).
     */
    setOrder: async (projectId: number, orderedIds: number[]): Promise<void> => {
      const statement =
        dialect === 'postgres'
          ? sql`update tasks set position = v.ord - 1, version = ${nextVersion}
              from unnest(${orderedIds}::int[]) with ordinality as v(id, ord)
              where tasks.id = v.id and tasks.project_id = ${projectId} and tasks.position <> v.ord - 1`
          : // Materialised, the id list drives the join (a rowid lookup per id); joined directly,
            // SQLite scans the list once per task: 1,000 tasks took 100 ms instead of 2.
            sql`with v as materialized (select key, value from json_each(${JSON.stringify(orderedIds)}))
              update tasks set position = v.key, version = ${nextVersion}
              from v where tasks.id = v.value and tasks.project_id = ${projectId} and tasks.position <> v.key`;
      await statement.execute(db);
    },

    /** An active task's place in the list, for a move; undefined when it is not in the project or is archived. */
    activePlace: (projectId: number, id: number) =>
      db
        .selectFrom('tasks')
        .select(['id', 'position', 'section_id', 'parent_id'])
        .where('id', '=', id)
        .where('project_id', '=', projectId)
        .where('archived', '=', false)
        .executeTakeFirst(),

    /**
     * The active task that follows `after` in list order (position, then id), leaving `skip` out;
     * with no `after`, the first one. Within one section (null: 'No section') when `sectionId` is given,
     * among one parent's sub-tasks (null: the top-level tasks) when `parentId` is (issue 29).
     */
    nextActive: (
      projectId: number,
      after: { id: number; position: number } | null,
      skip: number,
      sectionId?: number | null,
      parentId?: number | null,
    ) => {
      let query = db
        .selectFrom('tasks')
        .select(['id', 'position'])
        .where('project_id', '=', projectId)
        .where('archived', '=', false)
        .where('id', '!=', skip);
      if (sectionId !== undefined) {
        query = query.where('section_id', sectionId === null ? 'is' : '=', sectionId);
      }
      if (parentId !== undefined) {
        query = query.where('parent_id', parentId === null ? 'is' : '=', parentId);
      }
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

    /** A task's place: its position and, when given, its section (null: none). */
    setPosition: async (id: number, position: number, sectionId?: number | null): Promise<void> => {
      await db
        .updateTable('tasks')
        .set({ position, section_id: sectionId, ...versionBump })
        .where('id', '=', id)
        .execute();
    },

    /** Issue 29: these tasks' direct sub-task counts and open blockers, in two grouped queries. */
    structureOf: async (taskIds: number[]): Promise<Map<number, TaskStructure>> => {
      const byTask = new Map<number, TaskStructure>();
      for (let at = 0; at < taskIds.length; at += ID_BATCH) {
        const ids = taskIds.slice(at, at + ID_BATCH);
        const [subtasks, blockers] = await Promise.all([
          db
            .selectFrom('tasks')
            .select((eb) => [
              'parent_id',
              eb.fn.countAll().as('total'),
              eb.fn.sum(sql<number>`case when completed = ${true} then 1 else 0 end`).as('done'),
            ])
            .where('parent_id', 'in', ids)
            .groupBy('parent_id')
            .execute(),
          db
            .selectFrom('task_relations')
            .innerJoin('tasks as blocker', 'blocker.id', 'task_relations.task_id')
            .select((eb) => ['task_relations.other_task_id as task_id', eb.fn.countAll().as('blockers')])
            .where('task_relations.kind', '=', 'blocks')
            .where('task_relations.other_task_id', 'in', ids)
            .where('blocker.completed', '=', false)
            .where('blocker.archived', '=', false)
            .groupBy('task_relations.other_task_id')
            .execute(),
        ]);
        structureByTask(subtasks as SubtaskCountRow[], blockers as BlockerCountRow[], byTask);
      }
      return byTask;
    },

    /**
     * The same for the lists of whole projects (one project's cached list, or a filtered list's
     * projects), one grouped query each whatever the list's length: a sub-task is always in its
     * parent's project, and archived with it, so the children of the list's tasks are among the
     * projects' tasks of the same archived state.
     */
    structureInProjects: async (
      projectIds: number[],
      archived: boolean,
    ): Promise<Map<number, TaskStructure>> => {
      if (projectIds.length === 0) return new Map();
      const [subtasks, blockers] = await Promise.all([
        db
          .selectFrom('tasks')
          .select((eb) => [
            'parent_id',
            eb.fn.countAll().as('total'),
            eb.fn.sum(sql<number>`case when completed = ${true} then 1 else 0 end`).as('done'),
          ])
          .where('project_id', 'in', projectIds)
          .where('parent_id', 'is not', null)
          .where('archived', '=', archived)
          .groupBy('parent_id')
          .execute(),
        db
          .selectFrom('task_relations')
          .innerJoin('tasks as blocked', 'blocked.id', 'task_relations.other_task_id')
          .innerJoin('tasks as blocker', 'blocker.id', 'task_relations.task_id')
          .select((eb) => ['task_relations.other_task_id as task_id', eb.fn.countAll().as('blockers')])
          .where('task_relations.kind', '=', 'blocks')
          .where('blocked.project_id', 'in', projectIds)
          .where('blocked.archived', '=', archived)
          .where('blocker.completed', '=', false)
          .where('blocker.archived', '=', false)
          .groupBy('task_relations.other_task_id')
          .execute(),
      ]);
      return structureByTask(subtasks as SubtaskCountRow[], blockers as BlockerCountRow[]);
    },

    /** The task and its ancestors, nearest first: its level below a top-level task is the length less one. */
    ancestry: async (
      id: number,
    ): Promise<Array<{ id: number; parent_id: number | null; title: string; archived: boolean }>> => {
      const rows = await sql<{
        id: number;
        parent_id: number | null;
        title: string;
        archived: unknown;
        depth: number;
      }>`
        with recursive up(id, parent_id, title, archived, depth) as (
          select id, parent_id, title, archived, 0 from tasks where id = ${id}
          union all
          select tasks.id, tasks.parent_id, tasks.title, tasks.archived, up.depth + 1
          from tasks join up on tasks.id = up.parent_id
          where up.depth < 64
        )
        select id, parent_id, title, archived, depth from up order by depth`.execute(db);
      return rows.rows.map((row) => ({
        id: row.id,
        parent_id: row.parent_id,
        title: row.title,
        archived: toBool(row.archived as boolean),
      }));
    },

    /** How many levels the subtree under the task reaches below it (0: no sub-tasks). */
    subtreeHeight: async (id: number): Promise<number> => {
      const row = await sql<{
        height: number | null;
      }>`${subtreeCte(id)} select max(depth) as height from subtree`.execute(db);
      return Number(row.rows[0]?.height ?? 0);
    },

    /** The ids of the task's subtree, itself first. */
    subtreeIds: async (id: number): Promise<number[]> =>
      (
        await sql<{ id: number }>`${subtreeCte(id)} select id from subtree order by depth, id`.execute(db)
      ).rows.map((row) => row.id),

    /** Where a new last sub-task of `parentId` goes: after its last child (or just after the parent). */
    endOfChildren: async (parentId: number, parentPosition: number): Promise<number> => {
      const row = await db
        .selectFrom('tasks')
        .select((eb) => eb.fn.max('position').as('last'))
        .where('parent_id', '=', parentId)
        .executeTakeFirst();
      return (row?.last == null ? parentPosition : Number(row.last)) + 1;
    },

    /** The sibling that follows the task (same parent; top-level: same section), for a place just after it. */
    nextSibling: (row: Pick<TaskRow, 'id' | 'position' | 'project_id' | 'parent_id' | 'section_id'>) => {
      let query = db
        .selectFrom('tasks')
        .select(['id', 'position'])
        .where('project_id', '=', row.project_id)
        .where('archived', '=', false)
        .where('id', '!=', row.id)
        .where('parent_id', row.parent_id === null ? 'is' : '=', row.parent_id)
        .where((eb) =>
          eb.or([
            eb('position', '>', row.position),
            eb.and([eb('position', '=', row.position), eb('id', '>', row.id)]),
          ]),
        );
      if (row.parent_id === null)
        query = query.where('section_id', row.section_id === null ? 'is' : '=', row.section_id);
      return query.orderBy('position').orderBy('id').limit(1).executeTakeFirst();
    },

    /** Set-based: the same columns on every task below `rootId` (not the task itself). */
    updateDescendants: async (
      rootId: number,
      changes: Omit<TaskUpdate, 'position' | 'parent_id'>,
    ): Promise<number> => {
      const result = await db
        .updateTable('tasks')
        .set({ ...changes, updated_at: nowIso(), ...versionBump })
        .where(inSubtree(rootId, false))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Assignees of the tasks below `rootId` who are not among `memberIds` come off (a move to another project). */
    dropDescendantAssignees: async (rootId: number, memberIds: number[]): Promise<void> => {
      let query = db
        .deleteFrom('task_assignees')
        .where('task_id', 'in', sql<number>`(${subtreeCte(rootId)} select id from subtree where depth > 0)`);
      if (memberIds.length > 0) query = query.where('user_id', 'not in', memberIds);
      await query.execute();
    },

    /** The storage keys of every file of the subtree under `rootId`, itself included. */
    subtreeFileKeys: async (rootId: number): Promise<string[]> =>
      (
        await db
          .selectFrom('files')
          .select('storage_key')
          .where('task_id', 'in', sql<number>`(${subtreeCte(rootId)} select id from subtree)`)
          .execute()
      ).map((row) => row.storage_key),

    /**
     * The tasks outside the subtree that tasks of it block: their rows are touched (updated_at), so
     * their projects' cached lists (their `blockedBy`) are read anew. Their projects' ids.
     */
    touchBlocked: async (rootId: number): Promise<number[]> => {
      const blocked = sql<number>`(select task_relations.other_task_id from task_relations
        where task_relations.kind = 'blocks'
        and task_relations.task_id in (${subtreeCte(rootId)} select id from subtree))`;
      const rows = await db
        .updateTable('tasks')
        .set({ updated_at: nowIso(), ...versionBump })
        .where('id', 'in', blocked)
        .where(sql<boolean>`not (${inSubtree(rootId, true)})`)
        .returning('project_id')
        .execute();
      return [...new Set(rows.map((row) => row.project_id))];
    },

    /** Which of these ids are the project's archived tasks (to say why a reorder was refused). */
    archivedAmong: async (projectId: number, ids: number[]): Promise<number[]> =>
      ids.length === 0
        ? []
        : (
            await db
              .selectFrom('tasks')
              .select('id')
              .where('project_id', '=', projectId)
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
  work: (repository: TaskRepository, trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute((trx) => work(createTaskRepository(trx, dialect), trx));
}
