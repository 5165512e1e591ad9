import type { Kysely, Selectable } from 'kysely';
import { labelKey } from '../../common/labels';
import type { Database, TaskRow, TemplatesTable } from '../db/schema';
import { nowIso } from '../db/values';
import { versionBump } from '../tasks/version';

export type TemplateRow = Selectable<TemplatesTable>;

/** Ids per statement for `in (...)`: well under either database's limit of bound parameters. */
const ID_BATCH = 500;

/**
 * Templates' rows, and what saving and applying one reads and writes that no other feature's
 * module offers (decision 051): a project's open tasks with their labels and checklists in one read
 * each, the caller's labels by name, and sub-tasks' parents set in bulk. Who may read the project
 * is the access module's answer, asked before any of this; a template is its owner's alone, so
 * these queries name the owner. Works on the database or on a transaction.
 */
export function createTemplateRepository(db: Kysely<Database>) {
  return {
    /** The user's templates, newest first. */
    list: (userId: number): Promise<TemplateRow[]> =>
      db
        .selectFrom('templates')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),

    /** The user's template of that id; undefined for one that does not exist or is another's. */
    find: (userId: number, id: number): Promise<TemplateRow | undefined> =>
      db
        .selectFrom('templates')
        .selectAll()
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst(),

    count: async (userId: number): Promise<number> =>
      Number(
        (
          await db
            .selectFrom('templates')
            .select((eb) => eb.fn.countAll<number | string>().as('count'))
            .where('user_id', '=', userId)
            .executeTakeFirstOrThrow()
        ).count,
      ),

    insert: (row: { userId: number; name: string; data: string; taskCount: number }): Promise<TemplateRow> =>
      db
        .insertInto('templates')
        .values({
          user_id: row.userId,
          name: row.name,
          data: row.data,
          task_count: row.taskCount,
          created_at: nowIso(),
        })
        .returningAll()
        .executeTakeFirstOrThrow(),

    /** False when the user has no template of that id. */
    remove: async (userId: number, id: number): Promise<boolean> => {
      const result = await db
        .deleteFrom('templates')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /** The project's tasks that are not archived, in list order. */
    openTasks: (projectId: number): Promise<TaskRow[]> =>
      db
        .selectFrom('tasks')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('archived', '=', false)
        .orderBy('position')
        .orderBy('id')
        .execute(),

    /** The labels on the project's open tasks (everyone's: labels are seen by all who see the task). */
    labelsOnOpenTasks: (projectId: number) =>
      db
        .selectFrom('task_labels')
        .innerJoin('labels', 'labels.id', 'task_labels.label_id')
        .innerJoin('tasks', 'tasks.id', 'task_labels.task_id')
        .select(['task_labels.task_id', 'labels.name', 'labels.color'])
        .where('tasks.project_id', '=', projectId)
        .where('tasks.archived', '=', false)
        .orderBy('labels.name_key')
        .orderBy('labels.id')
        .execute(),

    /** The checklist items of the project's open tasks, by task, in their order. */
    checklistOfOpenTasks: (projectId: number) =>
      db
        .selectFrom('checklist_items')
        .innerJoin('tasks', 'tasks.id', 'checklist_items.task_id')
        .select(['checklist_items.task_id', 'checklist_items.title'])
        .where('tasks.project_id', '=', projectId)
        .where('tasks.archived', '=', false)
        .orderBy('checklist_items.task_id')
        .orderBy('checklist_items.position')
        .orderBy('checklist_items.id')
        .execute(),

    /**
     * The user's labels of these names (the same name in any case is the same label), made in the
     * colour given where they have none of that name: their ids by labelKey. Answers whether any
     * was made.
     */
    async labelsNamed(
      userId: number,
      wanted: Array<{ name: string; color: string }>,
    ): Promise<{ ids: Map<string, number>; created: boolean }> {
      const ids = new Map<string, number>();
      if (wanted.length === 0) return { ids, created: false };
      const existing = await db
        .selectFrom('labels')
        .select(['id', 'name_key'])
        .where('user_id', '=', userId)
        .execute();
      for (const row of existing) ids.set(row.name_key, row.id);
      const now = nowIso();
      let created = false;
      for (const { name, color } of wanted) {
        const key = labelKey(name);
        if (ids.has(key)) continue;
        const row = await db
          .insertInto('labels')
          .values({ user_id: userId, name, name_key: key, color, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        ids.set(key, row.id);
        created = true;
      }
      return { ids, created };
    },

    async addTaskLabels(rows: Array<{ task_id: number; label_id: number }>): Promise<void> {
      for (let at = 0; at < rows.length; at += 400) {
        await db
          .insertInto('task_labels')
          .values(rows.slice(at, at + 400))
          .execute();
      }
    },

    /** Puts each parent's new sub-tasks under it: one statement per parent (and per batch of children). */
    async setParents(children: Map<number, number[]>): Promise<void> {
      for (const [parentId, childIds] of children) {
        for (let at = 0; at < childIds.length; at += ID_BATCH) {
          await db
            .updateTable('tasks')
            .set({ parent_id: parentId, ...versionBump })
            .where('id', 'in', childIds.slice(at, at + ID_BATCH))
            .execute();
        }
      }
    },
  };
}

export type TemplateRepository = ReturnType<typeof createTemplateRepository>;
