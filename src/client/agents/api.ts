import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  Agent,
  AgentBody,
  AiConnection,
  AiConnectionBody,
  AiContext,
  AiExecuteBody,
  AiStatus,
  AiStreamEvent,
} from '../../common/agents';
import { AI_PROPOSALS_PATH, type AiProposal, type AiRun, aiRunsPath } from '../../common/ai-runs';
import { checklistKey } from '../checklist/api';
import { apiRequest } from '../lib/api';
import { invalidateTask } from '../tasks/api';

/** Query keys are the URLs the default query function GETs (spec §7). */
export const agentsKey = ['/api/ai-agents'] as const;
export const aiContextsKey = ['/api/ai-contexts'] as const;
export const aiStatusKey = ['/api/ai/status'] as const;
export const aiConnectionKey = ['/api/ai/connection'] as const;

export const useAgents = () => useQuery<Agent[]>({ queryKey: agentsKey });
export const useAiContexts = () => useQuery<AiContext[]>({ queryKey: aiContextsKey });
export const useAiStatus = () => useQuery<AiStatus>({ queryKey: aiStatusKey });
export const useAiConnection = () => useQuery<AiConnection>({ queryKey: aiConnectionKey });
/** A task's runs, newest first, with their proposals; live updates refetch it. */
export const aiRunsKey = (taskId: number) => [aiRunsPath(taskId)] as const;
export const useAiRuns = (taskId: number) => useQuery<AiRun[]>({ queryKey: aiRunsKey(taskId) });

/**
 * Applies or dismisses a proposal. An applied one is an ordinary edit: the task, the lists and the
 * checklist are refetched (other tabs hear of it from the server).
 */
export function useDecideProposal(taskId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, decision }: { id: number; decision: 'apply' | 'dismiss' }) => {
      const res = await apiRequest('POST', `${AI_PROPOSALS_PATH}/${id}/${decision}`);
      return (await res.json()) as AiProposal;
    },
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: aiRunsKey(taskId) }),
        queryClient.invalidateQueries({ queryKey: checklistKey(taskId) }),
        invalidateTask(queryClient, taskId),
      ]),
  });
}

/** Creates an agent, or updates the one with this id. */
export function useSaveAgent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, ...body }: AgentBody & { id?: number }) => {
      const res = await apiRequest(id ? 'PUT' : 'POST', id ? `${agentsKey[0]}/${id}` : agentsKey[0], body);
      return (await res.json()) as Agent;
    },
    onSuccess: () => invalidateAgents(queryClient),
  });
}

export function useDeleteAgent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => apiRequest('DELETE', `${agentsKey[0]}/${id}`),
    // Its tasks now have no agent.
    onSuccess: () => Promise.all([invalidateAgents(queryClient), invalidateTask(queryClient)]),
  });
}

function invalidateAgents(queryClient: ReturnType<typeof useQueryClient>) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: agentsKey }),
    queryClient.invalidateQueries({ queryKey: aiContextsKey }),
  ]);
}

function invalidateAi(queryClient: ReturnType<typeof useQueryClient>) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: aiStatusKey }),
    queryClient.invalidateQueries({ queryKey: aiConnectionKey }),
  ]);
}

export function useSaveAiConnection() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: AiConnectionBody) => apiRequest('PUT', aiConnectionKey[0], body),
    onSuccess: () => invalidateAi(queryClient),
  });
}

export function useRemoveAiConnection() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest('DELETE', aiConnectionKey[0]),
    onSuccess: () => invalidateAi(queryClient),
  });
}

/** A run the server reported as failed in the stream (provider error, time-out): the message is its own. */
export class AiRunError extends Error {}

/**
 * Runs the task's agent (spec §7 POST /api/ai/execute), streaming: calls onDelta with each piece of
 * the draft as the provider writes it and resolves with the stored whole (empty when the run only
 * proposed changes). A refusal before the stream
 * starts (404, 400 not connected, 429) rejects like any apiRequest; aborting the signal cancels the run.
 */
export async function streamAiDraft(
  body: AiExecuteBody,
  { signal, onDelta }: { signal: AbortSignal; onDelta: (delta: string) => void },
): Promise<string> {
  const res = await apiRequest('POST', '/api/ai/execute?stream=1', body, { signal });
  if (!res.body) throw new AiRunError('The answer could not be read.');
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const event = parseEvent(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      if (!event) continue;
      if ('delta' in event) onDelta(event.delta);
      else if ('result' in event) return event.result;
      else throw new AiRunError(event.error);
    }
  }
  throw new AiRunError('The answer ended early.');
}

function parseEvent(block: string): AiStreamEvent | undefined {
  const data = block
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trimStart())
    .join('\n');
  return data ? (JSON.parse(data) as AiStreamEvent) : undefined;
}
