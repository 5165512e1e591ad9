import type { FastifyBaseLogger } from 'fastify';
import type {
  Agent,
  AgentBody,
  AgentUpdate,
  AiConnection,
  AiConnectionValues,
  AiContext,
  AiStatus,
} from '../../common/agents';
import { ERRORS } from '../../common/spec';
import { TASK_LIMITS } from '../../common/tasks';
import { type Access, taskNotFound } from '../access';
import type { Config } from '../config';
import type { AgentRow } from '../db/schema';
import { badRequest, HttpError, notFound } from '../http/errors';
import type { RateLimiter, RateLimitRule } from '../http/rate-limit';
import { assertAllowedBaseUrl } from '../http/url-guard';
import {
  AiCancelledError,
  type AiProvider,
  type ChatMessage,
  OPENAI_DEFAULT_BASE_URL,
  runChat,
} from './ai-client';
import type { AttachmentReader } from './attachments';
import type { SecretBox } from './crypto';
import { checkToolCall, PROPOSAL_CHAT_TOOLS, PROPOSAL_INSTRUCTIONS } from './proposals';
import { type AgentRepository, toAgent } from './repository';
import type { RunOutcome, RunRepository } from './runs';

/** Used when a task has no agent: a plain, useful first draft. */
export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful assistant. Complete the task below as well as you can: produce a clear, ' +
  'well-structured first draft the person can review and edit. Be concise and practical.';

export const AI_RUN_RATE_LIMIT: RateLimitRule = { max: 20, windowMs: 60_000 };

export const AGENT_MESSAGES = {
  agentNotFound: 'AI agent',
  storedKeyUnreadable:
    'Your saved API key can no longer be read (the server secret changed). Please connect it again.',
  runFailed: 'Something went wrong on our side. Please try again.',
} as const;

/** The user message: the stored task's title and description. */
export function taskMessage(title: string, description: string | null): string {
  return description?.trim() ? `Task: ${title}\n\nDescription: ${description}` : `Task: ${title}`;
}

export interface AgentServiceDeps {
  /** Who may run agents on a task and see its runs: its project's role table (issue 21). */
  access: Access;
  agents: AgentRepository;
  runs: RunRepository;
  secrets: SecretBox;
  rateLimiter: RateLimiter;
  config: Config['ai'];
  logger: FastifyBaseLogger;
  /** The task's attachments as context (decision 022). */
  attachments: AttachmentReader;
}

export interface AiRun {
  /** Aborts the provider call; the run is kept as cancelled, with no draft and no proposal. */
  signal?: AbortSignal;
  /** The run is in the history (status running). */
  onStart?: () => void;
  onDelta?: (delta: string) => void;
}

/** A finished run: the draft it stored (empty when it only proposed changes) and its id in the history. */
export interface AiRunResult {
  result: string;
  runId: number;
}

/** A run that has been cleared to start, and the project whose members hear of it. */
export interface PreparedRun {
  projectId: number;
  run: (options?: AiRun) => Promise<AiRunResult>;
}

export function createAgentService({
  access,
  agents,
  runs,
  secrets,
  rateLimiter,
  config,
  logger,
  attachments,
}: AgentServiceDeps) {
  const keyHint = (apiKey: string) => apiKey.slice(-4);

  /** The user's own key wins over the server's; a user-chosen address is only ever used with that key. */
  async function resolveProvider(userId: number): Promise<AiProvider | undefined> {
    const credentials = await agents.findCredentials(userId);
    if (credentials) {
      const apiKey = secrets.decrypt(credentials.api_key_encrypted);
      if (!apiKey) throw badRequest(AGENT_MESSAGES.storedKeyUnreadable);
      return {
        source: 'user',
        apiKey,
        baseUrl: credentials.base_url ?? OPENAI_DEFAULT_BASE_URL,
        model: credentials.model ?? config.model,
        guarded: !config.allowPrivateBaseUrls,
      };
    }
    if (config.apiKey) {
      return {
        source: 'server',
        apiKey: config.apiKey,
        baseUrl: config.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
        model: config.model,
        guarded: false,
      };
    }
    return undefined;
  }

  return {
    list: async (userId: number): Promise<Agent[]> => (await agents.list(userId)).map(toAgent),

    contexts: async (userId: number): Promise<AiContext[]> =>
      (await agents.list(userId)).map(({ id, title }) => ({ id, title })),

    create: async (userId: number, body: AgentBody): Promise<Agent> =>
      toAgent(await agents.insert(userId, body)),

    async update(userId: number, id: number, body: AgentUpdate): Promise<Agent> {
      const row = await agents.update(userId, id, body);
      if (!row) throw notFound(AGENT_MESSAGES.agentNotFound);
      return toAgent(row);
    },

    /** Answers the projects whose tasks used the agent: they have none now. */
    async remove(userId: number, id: number): Promise<number[]> {
      const projects = await agents.delete(userId, id);
      if (!projects) throw notFound(AGENT_MESSAGES.agentNotFound);
      return projects;
    },

    async status(userId: number): Promise<AiStatus> {
      const credentials = await agents.findCredentials(userId);
      if (credentials) return { aiConnected: true, model: credentials.model ?? config.model, source: 'user' };
      if (config.apiKey) return { aiConnected: true, model: config.model, source: 'server' };
      return { aiConnected: false, model: null, source: null };
    },

    async connection(userId: number): Promise<AiConnection> {
      const credentials = await agents.findCredentials(userId);
      if (!credentials) return { connected: false, baseUrl: null, model: null, keyHint: null };
      const apiKey = secrets.decrypt(credentials.api_key_encrypted);
      return {
        connected: true,
        baseUrl: credentials.base_url,
        model: credentials.model,
        keyHint: apiKey ? keyHint(apiKey) : null,
      };
    },

    async connect(userId: number, body: AiConnectionValues): Promise<AiConnection> {
      const baseUrl = body.baseUrl
        ? await assertAllowedBaseUrl(body.baseUrl, config.allowPrivateBaseUrls)
        : null;
      await agents.saveCredentials(userId, {
        api_key_encrypted: secrets.encrypt(body.apiKey),
        base_url: baseUrl,
        model: body.model,
      });
      return { connected: true, baseUrl, model: body.model, keyHint: keyHint(body.apiKey) };
    },

    disconnect: (userId: number): Promise<void> => agents.deleteCredentials(userId),

    /** Every member of the task's project sees its runs, whoever started them. */
    async runs(userId: number, taskId: number) {
      await access.requireTask({ id: userId }, taskId, 'viewer');
      return runs.listForTask(taskId);
    },

    /**
     * Checks everything a run needs and answers with the run itself, so a caller that streams can
     * still answer a refusal (404, 400, 429) as plain JSON before it starts the stream. The run is
     * kept (ai_runs) from its start, with its usage, its outcome, notes on the attachments it read
     * ('a.md: first 900 characters used') and the changes the model proposed.
     *
     * Running an agent is an edit of the task (editor or more in its project, issue 21). Agents and
     * AI keys stay personal: the caller runs their own agent with their own key (or the server's).
     * The agent named must be theirs; the task's own agent is used when it is theirs, else (another
     * member's agent, whose prompt is not the caller's to read) the default prompt.
     */
    async prepareRun(
      userId: number,
      taskId: number,
      contextId: number | null | undefined,
    ): Promise<PreparedRun> {
      await rateLimiter.limit('ai-run', AI_RUN_RATE_LIMIT).consume(String(userId));
      const { task } = await access.requireTask({ id: userId }, taskId, 'editor');
      let agent: AgentRow | undefined;
      if (contextId != null) {
        agent = await agents.find(userId, contextId);
        if (!agent) throw notFound(AGENT_MESSAGES.agentNotFound);
      } else if (task.context_id !== null) {
        agent = await agents.find(userId, task.context_id);
      }
      const resolved = await resolveProvider(userId);
      if (!resolved) throw badRequest(ERRORS.aiNotConnected);
      // The agent's own model wins over the connection's and the server's.
      const provider = agent?.model ? { ...resolved, model: agent.model } : resolved;
      const system = `${agent?.prompt ?? DEFAULT_SYSTEM_PROMPT}\n\n${PROPOSAL_INSTRUCTIONS}`;

      const run = async ({ signal, onStart, onDelta }: AiRun = {}): Promise<AiRunResult> => {
        const started = Date.now();
        const runId = await runs.start({
          userId,
          taskId,
          agentId: agent?.id ?? null,
          agentTitle: agent?.title ?? null,
          model: provider.model,
        });
        onStart?.();
        let notes: string[] = [];
        const outcome = (
          status: RunOutcome['status'],
          usage = { input: 0, output: 0 },
          error: string | null = null,
        ) => ({
          status,
          durationMs: Date.now() - started,
          inputTokens: usage.input,
          outputTokens: usage.output,
          error,
          notes,
        });
        try {
          // The attachments are read in a worker thread, within AI_CONTEXT_CHARS; cancelling stops that too.
          const context = await attachments.read(taskId, signal);
          if (signal?.aborted) throw new AiCancelledError();
          notes = context.notes;
          const messages: ChatMessage[] = [
            { role: 'system', content: system },
            {
              role: 'user',
              content: [taskMessage(task.title, task.description), context.prompt]
                .filter(Boolean)
                .join('\n\n'),
            },
          ];
          const answer = await runChat({
            provider,
            messages,
            tools: PROPOSAL_CHAT_TOOLS,
            timeoutMs: config.timeoutMs,
            signal,
            onDelta,
            keysToMask: [config.apiKey],
          });
          // The draft must stay editable through PATCH /api/tasks, which caps its length. A run that
          // only proposed changes leaves the stored draft as it was.
          const result = answer.text.slice(0, TASK_LIMITS.aiDraftMax);
          if (result.trim()) {
            // Asked again: the caller may have lost the role (or the project its writes) while the model wrote.
            await access.requireTask({ id: userId }, taskId, 'editor');
            if (!(await agents.storeDraft(taskId, result))) throw taskNotFound();
          }
          await runs.finish(runId, outcome('done', answer.usage), answer.toolCalls.map(checkToolCall));
          return { result, runId };
        } catch (error) {
          const cancelled = error instanceof AiCancelledError || signal?.aborted === true;
          if (error instanceof HttpError && error.statusCode === 502) {
            logger.warn(
              { err: error.cause, source: provider.source, model: provider.model },
              'AI run failed',
            );
          }
          const message = error instanceof HttpError ? error.message : AGENT_MESSAGES.runFailed;
          await runs
            .finish(runId, outcome(cancelled ? 'cancelled' : 'failed', undefined, cancelled ? null : message))
            .catch((finishError) => logger.warn({ err: finishError, runId }, 'AI run outcome not stored'));
          throw cancelled ? new AiCancelledError() : error;
        }
      };
      return { projectId: task.project_id, run };
    },
  };
}

export type AgentService = ReturnType<typeof createAgentService>;
