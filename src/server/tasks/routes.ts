import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MAX_ID } from '../../common/ids';
import {
  ARCHIVED_TASKS_PATH,
  createTaskBodySchema,
  reorderBodySchema,
  TASKS_PATH,
  taskSchema,
  updateTaskBodySchema,
} from '../../common/tasks';
import { notFound } from '../http/errors';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { TaskService } from './service';

const idParamsSchema = z.object({ id: z.string() });

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

export async function tasksRoutes(fastify: FastifyInstance, { tasks }: { tasks: TaskService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  // The lists come serialised (and often cached) from the service: Task[] as JSON bytes.
  app.get(TASKS_PATH, { onRequest: requireUser }, async (request, reply) =>
    reply.type(JSON_TYPE).send(await tasks.activeListJson(currentUser(request).id)),
  );

  app.get(ARCHIVED_TASKS_PATH, { onRequest: requireUser }, async (request, reply) =>
    reply.type(JSON_TYPE).send(await tasks.archivedListJson(currentUser(request).id)),
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
}
