import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import {
  type AiStreamEvent,
  agentBodySchema,
  agentIdParamsSchema,
  agentSchema,
  agentUpdateSchema,
  aiConnectionBodySchema,
  aiConnectionSchema,
  aiContextSchema,
  aiExecuteBodySchema,
  aiExecuteQuerySchema,
  aiExecuteResponseSchema,
  aiStatusSchema,
  aiStreamEventSchema,
} from '../../common/agents';
import { aiProposalSchema, aiRunSchema, aiRunsPath, proposalIdParamsSchema } from '../../common/ai-runs';
import { MEDIA, noContentSchema } from '../../common/api';
import { ARCHIVED_TASKS_PATH, TASKS_PATH, taskIdParamsSchema, taskPath } from '../../common/tasks';
import type { Database } from '../db';
import { HttpError } from '../http/errors';
import { hijackKeepingHeaders } from '../http/security';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { ProjectEvents } from '../live/projects';
import type { ChecklistService } from '../tasks/checklist';
import type { TaskService } from '../tasks/service';
import { createProposalService } from './proposals';
import { createAgentRepository } from './repository';
import { createRunRepository } from './runs';
import { type AgentServiceDeps, type AiRun, type AiRunResult, createAgentService } from './service';

/** What the agents feature is given by the app: applied proposals are edits through these features. */
export interface AgentFeatureDeps extends Omit<AgentServiceDeps, 'agents' | 'runs'> {
  db: Kysely<Database>;
  /** Runs and proposals are news for every member of the task's project (../live/projects). */
  projectEvents: ProjectEvents;
  tasks: TaskService;
  checklists: ChecklistService;
}

export async function agentRoutes(
  fastify: FastifyInstance,
  { db, projectEvents, tasks, checklists, ...deps }: AgentFeatureDeps,
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const runs = createRunRepository(db);
  const service = createAgentService({ ...deps, agents: createAgentRepository(db), runs });
  const proposals = createProposalService({
    db,
    access: deps.access,
    runs,
    tasks,
    checklists,
    projectEvents,
  });
  const taskChanged = (projectId: number, taskId: number) =>
    projectEvents([projectId], [TASKS_PATH, taskPath(taskId), aiRunsPath(taskId)]);

  app.get(
    '/api/ai-agents',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your AI agents',
        tags: ['Agents'],
        operationId: 'listAgents',
        response: { 200: z.array(agentSchema) },
      },
    },
    async (request) => service.list(currentUser(request).id),
  );

  app.get(
    '/api/ai-contexts',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your AI agents, for pickers',
        tags: ['Agents'],
        operationId: 'listAgentContexts',
        response: { 200: z.array(aiContextSchema) },
      },
    },
    async (request) => service.contexts(currentUser(request).id),
  );

  app.post(
    '/api/ai-agents',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Create an AI agent',
        tags: ['Agents'],
        operationId: 'createAgent',
        body: agentBodySchema,
        response: { 201: agentSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.create(currentUser(request).id, request.body)),
  );

  app.put(
    '/api/ai-agents/:id',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Change an AI agent',
        tags: ['Agents'],
        operationId: 'updateAgent',
        params: agentIdParamsSchema,
        body: agentUpdateSchema,
        response: { 200: agentSchema },
      },
    },
    async (request) => service.update(currentUser(request).id, request.params.id, request.body),
  );

  app.delete(
    '/api/ai-agents/:id',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete an AI agent',
        description: 'Tasks that used it are left with no agent.',
        tags: ['Agents'],
        operationId: 'deleteAgent',
        params: agentIdParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      const projects = await service.remove(currentUser(request).id, request.params.id);
      // Those projects' lists showed the agent: their members refetch them.
      await projectEvents(projects, [TASKS_PATH, ARCHIVED_TASKS_PATH]);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/ai/status',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Whether AI drafts can run',
        tags: ['AI'],
        operationId: 'getAiStatus',
        response: { 200: aiStatusSchema },
      },
    },
    async (request) => service.status(currentUser(request).id),
  );

  app.get(
    '/api/ai/connection',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your own AI provider connection',
        description: 'The key never leaves the server; only its last characters.',
        tags: ['AI'],
        operationId: 'getAiConnection',
        response: { 200: aiConnectionSchema },
      },
    },
    async (request) => service.connection(currentUser(request).id),
  );

  app.put(
    '/api/ai/connection',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Connect your own AI provider key',
        description: 'Stored encrypted. Optional base URL (any OpenAI-compatible provider) and model.',
        tags: ['AI'],
        operationId: 'putAiConnection',
        body: aiConnectionBodySchema,
        response: { 200: aiConnectionSchema },
      },
    },
    async (request) => service.connect(currentUser(request).id, request.body),
  );

  app.delete(
    '/api/ai/connection',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Forget your own AI provider key',
        tags: ['AI'],
        operationId: 'deleteAiConnection',
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await service.disconnect(currentUser(request).id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/api/ai/execute',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Run an AI draft of a task',
        description:
          'Runs one of your agents (or the default prompt) with your AI connection on a task where you are an editor or more. Stores the draft on the task (`aiDraft`, `aiAssisted`). With `?stream=1` or `Accept: text/event-stream` the answer is server-sent events: `{delta}` as the draft is written, then `{result}` or `{error}`. A provider failure is a 502.',
        tags: ['AI'],
        operationId: 'executeAi',
        body: aiExecuteBodySchema,
        querystring: aiExecuteQuerySchema,
        response: {
          200: {
            content: {
              [MEDIA.json]: { schema: aiExecuteResponseSchema },
              [MEDIA.eventStream]: { schema: aiStreamEventSchema },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const userId = currentUser(request).id;
      const { taskId, contextId } = request.body;
      // Refusals (404, 403, 409, 400, 429) are answered as plain JSON, before any stream starts.
      const { projectId, run } = await service.prepareRun(userId, taskId, contextId);
      // The person closing the request (Cancel, or leaving the page) aborts the provider call.
      const cancel = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) cancel.abort();
      });
      const stream =
        request.query.stream === '1' ||
        request.query.stream === 'true' ||
        (request.query.stream === undefined && String(request.headers.accept).includes('text/event-stream'));
      // Other tabs, and the project's other members, see the run start in the task's AI activity.
      const started = () => projectEvents([projectId], [aiRunsPath(taskId)]);
      if (stream) return streamRun(reply, run, cancel.signal, started, () => taskChanged(projectId, taskId));
      try {
        return await run({ signal: cancel.signal, onStart: started });
      } finally {
        taskChanged(projectId, taskId);
      }
    },
  );

  app.get(
    '/api/tasks/:id/ai-runs',
    {
      onRequest: requireUser,
      schema: {
        summary: "A task's AI runs",
        description:
          "Every member of the task's project sees them, whoever started each run. Newest first: agent, model, duration, tokens (summed over the provider calls), status, notes on the attachments read, and the changes each run proposed.",
        tags: ['AI'],
        operationId: 'listAiRuns',
        params: taskIdParamsSchema,
        response: { 200: z.array(aiRunSchema) },
      },
    },
    async (request) => service.runs(currentUser(request).id, request.params.id),
  );

  app.post(
    '/api/ai/proposals/:id/apply',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Apply a change an AI run proposed',
        description:
          "An ordinary edit with your permissions (editor or more in the task's project, whoever started the run; live sync included), recorded in the task's activity. A proposal that is applied, dismissed or invalid answers 409 and changes nothing.",
        tags: ['AI'],
        operationId: 'applyAiProposal',
        params: proposalIdParamsSchema,
        response: { 200: aiProposalSchema },
      },
    },
    async (request) => proposals.apply(currentUser(request).id, request.params.id),
  );

  app.post(
    '/api/ai/proposals/:id/dismiss',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Dismiss a change an AI run proposed',
        description:
          "The task stays as it is. Editors (or more) of the task's project only. Only a pending proposal can be dismissed; else 409.",
        tags: ['AI'],
        operationId: 'dismissAiProposal',
        params: proposalIdParamsSchema,
        response: { 200: aiProposalSchema },
      },
    },
    async (request) => proposals.dismiss(currentUser(request).id, request.params.id),
  );
}

/** Answers a run as server-sent events: `{delta}` as the draft is written, then `{result, runId}` or `{error}`. */
async function streamRun(
  reply: FastifyReply,
  run: (options: AiRun) => Promise<AiRunResult>,
  signal: AbortSignal,
  onStart: () => void,
  onEnded: () => void,
) {
  const res = hijackKeepingHeaders(reply);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // nginx would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  const send = (event: AiStreamEvent) => {
    if (!res.writableEnded) res.write(`data: ${JSON.stringify(event)}\n\n`);
  };
  try {
    send(await run({ signal, onStart, onDelta: (delta) => send({ delta }) }));
  } catch (error) {
    if (error instanceof HttpError) {
      send({ error: error.message });
    } else {
      reply.log.error({ err: error }, 'AI stream failed');
      send({ error: 'Something went wrong on our side. Please try again.' });
    }
  } finally {
    onEnded();
    res.end();
  }
}
