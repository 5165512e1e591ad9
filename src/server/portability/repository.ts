import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { nowIso } from '../db/values';

/** What an export reads and what an import writes besides tasks; every query is scoped to its owner. */
export function createDataRepository(db: Kysely<Database>) {
  return {
    /** Active tasks in list order, then archived ones, most recently archived first. */
    tasks: async (userId: number) => {
      const base = () => db.selectFrom('tasks').selectAll().where('user_id', '=', userId);
      const active = await base().where('archived', '=', false).orderBy('position').orderBy('id').execute();
      const archived = await base()
        .where('archived', '=', true)
        .orderBy('archived_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return [...active, ...archived];
    },

    checklistItems: (userId: number) =>
      db
        .selectFrom('checklist_items')
        .select(['task_id', 'title', 'done'])
        .where('user_id', '=', userId)
        .orderBy('task_id')
        .orderBy('position')
        .orderBy('id')
        .execute(),

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
