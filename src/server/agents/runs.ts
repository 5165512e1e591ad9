import { type Kysely, sql } from 'kysely';
import type { AiProposal, AiRun, AiTokenUsage } from '../../common/ai-runs';
import type { AiProposalRow, AiRunRow, Database } from '../db/schema';
import { nowIso, toIso } from '../db/values';

/** A proposal as the run stores it: checked arguments (or the model's own when invalid) and its status. */
export interface NewProposal {
  tool: string;
  arguments: unknown;
  status: 'pending' | 'invalid';
  error: string | null;
}

export interface RunOutcome {
  status: 'done' | 'cancelled' | 'failed';
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
  error: string | null;
  /** On the attachments: which were cut or skipped. */
  notes: string[];
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

export const toProposal = (row: AiProposalRow): AiProposal => ({
  id: row.id,
  runId: row.run_id,
  taskId: row.task_id,
  tool: row.tool,
  arguments: parseJson(row.arguments),
  status: row.status as AiProposal['status'],
  error: row.error,
});

const toRun = (row: AiRunRow, proposals: AiProposal[]): AiRun => ({
  id: row.id,
  agentId: row.agent_id,
  agentTitle: row.agent_title,
  model: row.model,
  startedAt: toIso(row.started_at),
  durationMs: row.duration_ms,
  inputTokens: Number(row.input_tokens),
  outputTokens: Number(row.output_tokens),
  status: row.status as AiRun['status'],
  error: row.error,
  notes: parseJson(row.notes) as string[],
  proposals,
});

/** Runs a task's history lists, newest first. */
export const RUNS_LISTED = 50;

/**
 * Agent runs and their proposals. A run and its proposals keep who started it (`user_id`: whose
 * tokens it used); who may see or apply them is the task's project's business (issue 21).
 */
export function createRunRepository(db: Kysely<Database>) {
  return {
    start: async (values: {
      userId: number;
      taskId: number;
      agentId: number | null;
      agentTitle: string | null;
      model: string;
    }): Promise<number> => {
      const row = await db
        .insertInto('ai_runs')
        .values({
          user_id: values.userId,
          task_id: values.taskId,
          agent_id: values.agentId,
          agent_title: values.agentTitle,
          model: values.model,
          started_at: nowIso(),
          status: 'running',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    /** Ends the run; its proposals are stored with it in one transaction, or not at all. */
    finish: (runId: number, outcome: RunOutcome, proposals: NewProposal[] = []) =>
      db.transaction().execute(async (trx) => {
        await trx
          .updateTable('ai_runs')
          .set({
            status: outcome.status,
            duration_ms: outcome.durationMs,
            input_tokens: outcome.inputTokens,
            output_tokens: outcome.outputTokens,
            error: outcome.error,
            notes: JSON.stringify(outcome.notes),
          })
          .where('id', '=', runId)
          .execute();
        if (proposals.length === 0) return;
        const run = await trx
          .selectFrom('ai_runs')
          .select(['user_id', 'task_id'])
          .where('id', '=', runId)
          .executeTakeFirst();
        // The task (and so the run) went away while the model wrote.
        if (!run) return;
        const createdAt = nowIso();
        await trx
          .insertInto('ai_proposals')
          .values(
            proposals.map((proposal) => ({
              run_id: runId,
              user_id: run.user_id,
              task_id: run.task_id,
              tool: proposal.tool,
              arguments: JSON.stringify(proposal.arguments),
              status: proposal.status,
              error: proposal.error,
              created_at: createdAt,
            })),
          )
          .execute();
      }),

    /**
     * The task's runs, whoever started them, newest first, with their proposals in the order the
     * model made them. The caller was checked by the access module.
     */
    listForTask: async (taskId: number): Promise<AiRun[]> => {
      const runs = await db
        .selectFrom('ai_runs')
        .selectAll()
        .where('task_id', '=', taskId)
        .orderBy('started_at', 'desc')
        .orderBy('id', 'desc')
        .limit(RUNS_LISTED)
        .execute();
      if (runs.length === 0) return [];
      const proposals = await db
        .selectFrom('ai_proposals')
        .selectAll()
        .where(
          'run_id',
          'in',
          runs.map((run) => run.id),
        )
        .orderBy('id')
        .execute();
      return runs.map((run) => toRun(run, proposals.filter((p) => p.run_id === run.id).map(toProposal)));
    },

    /** A proposal by its id alone: who may see or apply it is asked of its task (the access module). */
    findProposal: (id: number): Promise<AiProposalRow | undefined> =>
      db.selectFrom('ai_proposals').selectAll().where('id', '=', id).executeTakeFirst(),

    /**
     * Moves a proposal from one status to another only if it is still in the first: the claim that
     * makes a second apply (from another tab or instance) a no-op. False when it was not.
     */
    transition: async (
      id: number,
      from: AiProposal['status'],
      to: AiProposal['status'],
      error: string | null = null,
    ): Promise<boolean> => {
      const result = await db
        .updateTable('ai_proposals')
        .set({ status: to, error })
        .where('id', '=', id)
        .where('status', '=', from)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Every user's tokens in the month that starts at `monthStart` (UTC). */
    tokensSince: async (monthStart: Date): Promise<Map<number, Omit<AiTokenUsage, 'month'>>> => {
      const rows = await db
        .selectFrom('ai_runs')
        .select((eb) => [
          'user_id',
          eb.fn.coalesce(eb.fn.sum<number | string>('input_tokens'), sql<number>`0`).as('input'),
          eb.fn.coalesce(eb.fn.sum<number | string>('output_tokens'), sql<number>`0`).as('output'),
        ])
        .where('started_at', '>=', monthStart.toISOString())
        .groupBy('user_id')
        .execute();
      return new Map(
        rows.map((row) => [row.user_id, { input: Number(row.input), output: Number(row.output) }]),
      );
    },
  };
}

export type RunRepository = ReturnType<typeof createRunRepository>;
