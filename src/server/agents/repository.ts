import type { Kysely, Selectable } from 'kysely';
import type { Agent } from '../../common/agents';
import type { AgentRow, AiCredentialsTable, Database } from '../db/schema';
import { nowIso, toIso } from '../db/values';

export const toAgent = (row: AgentRow): Agent => ({
  id: row.id,
  title: row.title,
  prompt: row.prompt,
  model: row.model,
  createdAt: toIso(row.created_at),
  updatedAt: toIso(row.updated_at),
});

export type AiCredentialsRow = Selectable<AiCredentialsTable>;

/** Queries for agents, users' AI credentials and the AI fields of tasks; every one is scoped to its owner. */
export function createAgentRepository(db: Kysely<Database>) {
  return {
    list: (userId: number): Promise<AgentRow[]> =>
      db
        .selectFrom('agents')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),

    find: (userId: number, id: number): Promise<AgentRow | undefined> =>
      db
        .selectFrom('agents')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst(),

    insert: (
      userId: number,
      values: { title: string; prompt: string; model?: string | null },
    ): Promise<AgentRow> => {
      const now = nowIso();
      return db
        .insertInto('agents')
        .values({ user_id: userId, ...values, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    update: (
      userId: number,
      id: number,
      values: { title?: string; prompt?: string; model?: string | null },
    ): Promise<AgentRow | undefined> =>
      db
        .updateTable('agents')
        .set({ ...values, updated_at: nowIso() })
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst(),

    /** Tasks that used it keep going with no agent: the foreign key sets their context_id to null. */
    delete: async (userId: number, id: number): Promise<boolean> => {
      const result = await db
        .deleteFrom('agents')
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    findTask: (userId: number, taskId: number) =>
      db
        .selectFrom('tasks')
        .select(['id', 'title', 'description', 'context_id'])
        .where('user_id', '=', userId)
        .where('id', '=', taskId)
        .executeTakeFirst(),

    /** False when the task went away during the run. */
    storeDraft: async (userId: number, taskId: number, draft: string): Promise<boolean> => {
      const result = await db
        .updateTable('tasks')
        .set({ ai_draft: draft, ai_assisted: true, updated_at: nowIso() })
        .where('user_id', '=', userId)
        .where('id', '=', taskId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    findCredentials: (userId: number): Promise<AiCredentialsRow | undefined> =>
      db.selectFrom('ai_credentials').selectAll().where('user_id', '=', userId).executeTakeFirst(),

    saveCredentials: async (
      userId: number,
      values: { api_key_encrypted: string; base_url: string | null; model: string | null },
    ): Promise<void> => {
      const now = nowIso();
      await db
        .insertInto('ai_credentials')
        .values({ user_id: userId, ...values, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ ...values, updated_at: now }))
        .execute();
    },

    deleteCredentials: async (userId: number): Promise<void> => {
      await db.deleteFrom('ai_credentials').where('user_id', '=', userId).execute();
    },
  };
}

export type AgentRepository = ReturnType<typeof createAgentRepository>;
