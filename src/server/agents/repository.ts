import type { Kysely, Selectable } from 'kysely';
import type { Agent } from '../../common/agents';
import type { AgentRow, AiCredentialsTable, Database } from '../db/schema';
import { nowIso, toIso } from '../db/values';
import { versionBump } from '../tasks/version';

export const toAgent = (row: AgentRow): Agent => ({
  id: row.id,
  title: row.title,
  prompt: row.prompt,
  model: row.model,
  createdAt: toIso(row.created_at),
  updatedAt: toIso(row.updated_at),
});

export type AiCredentialsRow = Selectable<AiCredentialsTable>;

/**
 * Queries for agents and users' AI credentials, each scoped to its owner (agents stay personal), and
 * the AI fields of tasks, which the access module has cleared the caller for.
 */
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
    /**
     * Deletes the agent; tasks that used it lose it through the foreign key. Answers the projects
     * those tasks are in (their lists changed), or undefined when there was no such agent.
     */
    delete: async (userId: number, id: number): Promise<number[] | undefined> => {
      const projects = await db
        .selectFrom('tasks')
        .select('project_id')
        .distinct()
        .where('context_id', '=', id)
        .execute();
      const result = await db
        .deleteFrom('agents')
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n ? projects.map((row) => row.project_id) : undefined;
    },

    /**
     * The task's AI draft, whoever created the task: the caller was checked by the access module.
     * False when the task went away during the run.
     */
    storeDraft: async (taskId: number, draft: string): Promise<boolean> => {
      const result = await db
        .updateTable('tasks')
        .set({ ai_draft: draft, ai_assisted: true, updated_at: nowIso(), ...versionBump })
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
