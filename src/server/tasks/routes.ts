import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  CHECKLIST_ITEMS_PATH,
  checklistItemSchema,
  createChecklistItemBodySchema,
  reorderChecklistBodySchema,
  updateChecklistItemBodySchema,
} from '../../common/checklist';
import { idParam, MAX_ID } from '../../common/ids';
import {
  ARCHIVED_TASKS_PATH,
  createTaskBodySchema,
  reorderBodySchema,
  TASKS_PATH,
  taskListQuerySchema,
  taskSchema,
  updateTaskBodySchema,
} from '../../common/tasks';
import { notFound } from '../http/errors';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { ChecklistService } from './checklist';
import type { TaskService } from './service';

const idParamsSchema = z.object({ id: z.string() });
/** Checked before the body, so a path id that names nothing answers 404 whatever the body holds. */
const numericIdParamsSchema = z.object({ id: idParam() });

/** A path id that cannot name a task (not a number, out of range) is simply a task that is not there. */
function taskId(raw: string): number {
  const id = /^\d{1,10}$/.test(raw) ? Number(raw) : 0;
  if (id < 1 || id > MAX_ID) throw notFound('Task');
  return id;
}

/**
 * toTask already emits exactly the public fields, so answers skip the Zod parse of the shared
 * serializer. The response schemas still type-check what the handlers return.
 */
const plainJson = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };

const JSON_TYPE = 'application/json; charset=utf-8';

export async function tasksRoutes(
  fastify: FastifyInstance,
  { tasks, checklists }: { tasks: TaskService; checklists: ChecklistService },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  // The lists come serialised (and often cached) from the service: Task[] as JSON bytes.
  app.get(
    TASKS_PATH,
    { onRequest: requireUser, schema: { querystring: taskListQuerySchema } },
    async (request, reply) =>
      reply.type(JSON_TYPE).send(await tasks.activeListJson(currentUser(request).id, request.query)),
  );

  app.get(
    ARCHIVED_TASKS_PATH,
    { onRequest: requireUser, schema: { querystring: taskListQuerySchema } },
    async (request, reply) =>
      reply.type(JSON_TYPE).send(await tasks.archivedListJson(currentUser(request).id, request.query)),
  );

  app.get(
    `${TASKS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: { params: idParamsSchema, response: { 200: taskSchema } },
      ...plainJson,
    },
    async (request) => tasks.get(currentUser(request).id, taskId(request.params.id)),
  );

  app.post(
    TASKS_PATH,
    {
      onRequest: requireUser,
      schema: { body: createTaskBodySchema, response: { 201: taskSchema } },
      ...plainJson,
    },
    async (request, reply) => reply.code(201).send(await tasks.create(currentUser(request).id, request.body)),
  );

  app.patch(
    `${TASKS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: { params: idParamsSchema, body: updateTaskBodySchema, response: { 200: taskSchema } },
      ...plainJson,
    },
    async (request) => tasks.update(currentUser(request).id, taskId(request.params.id), request.body),
  );

  app.delete(
    `${TASKS_PATH}/:id`,
    { onRequest: requireUser, schema: { params: idParamsSchema } },
    async (request, reply) => {
      await tasks.remove(currentUser(request).id, taskId(request.params.id));
      return reply.code(204).send();
    },
  );

  app.post(
    `${TASKS_PATH}/reorder`,
    {
      onRequest: requireUser,
      schema: { body: reorderBodySchema, response: { 200: reorderBodySchema } },
      ...plainJson,
    },
    async (request) => ({ taskIds: await tasks.reorder(currentUser(request).id, request.body.taskIds) }),
  );

  // Checklists (issue 13): the items of one task, and each item by its own id.
  app.get(
    `${TASKS_PATH}/:id/checklist`,
    {
      onRequest: requireUser,
      schema: { params: numericIdParamsSchema, response: { 200: z.array(checklistItemSchema) } },
    },
    async (request) => checklists.list(currentUser(request).id, request.params.id),
  );

  app.post(
    `${TASKS_PATH}/:id/checklist`,
    {
      onRequest: requireUser,
      schema: {
        params: numericIdParamsSchema,
        body: createChecklistItemBodySchema,
        response: { 201: checklistItemSchema },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await checklists.add(currentUser(request).id, request.params.id, request.body.title)),
  );

  app.post(
    `${TASKS_PATH}/:id/checklist/reorder`,
    {
      onRequest: requireUser,
      schema: {
        params: numericIdParamsSchema,
        body: reorderChecklistBodySchema,
        response: { 200: z.array(checklistItemSchema) },
      },
    },
    async (request) => checklists.reorder(currentUser(request).id, request.params.id, request.body.itemIds),
  );

  app.patch(
    `${CHECKLIST_ITEMS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        params: numericIdParamsSchema,
        body: updateChecklistItemBodySchema,
        response: { 200: checklistItemSchema },
      },
    },
    async (request) => checklists.update(currentUser(request).id, request.params.id, request.body),
  );

  app.delete(
    `${CHECKLIST_ITEMS_PATH}/:id`,
    { onRequest: requireUser, schema: { params: numericIdParamsSchema } },
    async (request, reply) => {
      await checklists.remove(currentUser(request).id, request.params.id);
      return reply.code(204).send();
    },
  );
}
