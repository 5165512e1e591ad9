import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

/**
 * A pending AI proposal on a task, with the succeeded run that made it, written as a run writes
 * them: for tests of what applying one does, without an AI provider.
 */
export async function insertProposal(
  db: Kysely<Database>,
  {
    userId,
    taskId,
    tool,
    args,
    at,
  }: { userId: number; taskId: number; tool: string; args: unknown; at: string },
): Promise<{ runId: number; proposalId: number }> {
  const run = await db
    .insertInto('ai_runs')
    .values({
      user_id: userId,
      task_id: taskId,
      agent_id: null,
      agent_title: null,
      model: 'test-model',
      started_at: at,
      duration_ms: 1,
      input_tokens: 1,
      output_tokens: 1,
      status: 'succeeded',
      error: null,
      notes: '',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const proposal = await db
    .insertInto('ai_proposals')
    .values({
      run_id: run.id,
      user_id: userId,
      task_id: taskId,
      tool,
      arguments: JSON.stringify(args),
      status: 'pending',
      error: null,
      created_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { runId: run.id, proposalId: proposal.id };
}
