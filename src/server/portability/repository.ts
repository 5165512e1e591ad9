import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { nowIso } from '../db/values';

/**
 * What an export reads and what an import writes besides tasks. Tasks are read by project (which
 * ones is the access module's answer); agents are a person's own.
 */
export function createDataRepository(db: Kysely<Database>) {
  return {
    /**
     * The projects' tasks, `firstId`'s first (the Inbox), then by project: active ones in list order,
     * then archived ones, most recently archived first.
     */
    tasks: async (projectIds: number[], firstId: number) => {
      const base = () => db.selectFrom('tasks').selectAll().where('project_id', 'in', projectIds);
      const [active, archived] = await Promise.all([
        base()
          .where('archived', '=', false)
          .orderBy('project_id')
          .orderBy('position')
          .orderBy('id')
          .execute(),
        base()
          .where('archived', '=', true)
          .orderBy('project_id')
          .orderBy('archived_at', 'desc')
          .orderBy('id', 'desc')
          .execute(),
      ]);
      const rank = (row: { project_id: number }) => (row.project_id === firstId ? 0 : 1);
      // A stable sort: within each part, the order the database gave.
      return [...active.sort((a, b) => rank(a) - rank(b)), ...archived.sort((a, b) => rank(a) - rank(b))];
    },

    /** The checklist items of the projects' tasks, by task, in their order. */
    checklistItems: (projectIds: number[]) =>
      db
        .selectFrom('checklist_items')
        .innerJoin('tasks', 'tasks.id', 'checklist_items.task_id')
        .select(['checklist_items.task_id', 'checklist_items.title', 'checklist_items.done'])
        .where('tasks.project_id', 'in', projectIds)
        .orderBy('checklist_items.task_id')
        .orderBy('checklist_items.position')
        .orderBy('checklist_items.id')
        .execute(),

    /** Issue 29: the relations between tasks of the projects, both sides in them, oldest first. */
    relations: (projectIds: number[]) =>
      db
        .selectFrom('task_relations')
        .innerJoin('tasks as one', 'one.id', 'task_relations.task_id')
        .innerJoin('tasks as other', 'other.id', 'task_relations.other_task_id')
        .select(['task_relations.task_id', 'task_relations.other_task_id', 'task_relations.kind'])
        .where('one.project_id', 'in', projectIds)
        .where('other.project_id', 'in', projectIds)
        .orderBy('task_relations.id')
        .execute(),

    /** Issue 29: relations between new tasks, by their ids (the same pair and kind once). */
    insertRelations: async (
      userId: number,
      relations: Array<{
        taskId: number;
        otherTaskId: number;
        kind: 'blocks' | 'relates_to' | 'duplicate_of';
      }>,
    ) => {
      const now = nowIso();
      for (let at = 0; at < relations.length; at += 400) {
        await db
          .insertInto('task_relations')
          .values(
            relations.slice(at, at + 400).map((relation) => ({
              task_id: relation.taskId,
              other_task_id: relation.otherTaskId,
              kind: relation.kind,
              created_by: userId,
              created_at: now,
            })),
          )
          .execute();
      }
    },

    agents: (userId: number) =>
      db.selectFrom('agents').selectAll().where('user_id', '=', userId).orderBy('id').execute(),

    insertAgent: async (
      userId: number,
      agent: { title: string; prompt: string; model?: string | null },
    ): Promise<number> => {
      const now = nowIso();
      const row = await db
        .insertInto('agents')
        .values({
          user_id: userId,
          title: agent.title,
          prompt: agent.prompt,
          model: agent.model ?? null,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
  };
}
