import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import { MAX_ID } from '../../common/ids';
import {
  ARCHIVED_TASKS_PATH,
  createTaskBodySchema,
  reorderBodySchema,
  TASKS_PATH,
  type Task,
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

  // The lists come serialised (and often cached) from the service: Task[] as JSON bytes, which
  // Fastify sends as they are (a Buffer is never serialised); the schema describes them.
  const taskList = { 200: z.array(taskSchema) };
  const taskListBytes = (json: Buffer) => json as unknown as Task[];
  app.get(
    TASKS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your tasks',
        description: 'Ordered by position; the active list is the ones neither completed nor archived.',
        tags: ['Tasks'],
        operationId: 'listTasks',
        response: taskList,
      },
    },
    async (request, reply) =>
      reply.type(JSON_TYPE).send(taskListBytes(await tasks.activeListJson(currentUser(request).id))),
  );

  app.get(
    ARCHIVED_TASKS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your archived tasks',
        description: 'Most recently archived first.',
        tags: ['Tasks'],
        operationId: 'listArchivedTasks',
        response: taskList,
      },
    },
    async (request, reply) =>
      reply.type(JSON_TYPE).send(taskListBytes(await tasks.archivedListJson(currentUser(request).id))),
  );

  app.get(
    `${TASKS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'One task',
        tags: ['Tasks'],
        operationId: 'getTask',
        params: idParamsSchema,
        response: { 200: taskSchema },
      },
      ...plainJson,
    },
    async (request) => tasks.get(currentUser(request).id, taskId(request.params.id)),
  );

  app.post(
    TASKS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Create a task',
        description:
          'It goes to the top of the active list. `userId` and `position` are accepted and ignored.',
        tags: ['Tasks'],
        operationId: 'createTask',
        body: createTaskBodySchema,
        response: { 201: taskSchema },
      },
      ...plainJson,
    },
    async (request, reply) => reply.code(201).send(await tasks.create(currentUser(request).id, request.body)),
  );

  app.patch(
    `${TASKS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Change a task',
        description: 'Any of the fields; completing a task archives it, reopening restores it.',
        tags: ['Tasks'],
        operationId: 'updateTask',
        params: idParamsSchema,
        body: updateTaskBodySchema,
        response: { 200: taskSchema },
      },
      ...plainJson,
    },
    async (request) => tasks.update(currentUser(request).id, taskId(request.params.id), request.body),
  );

  app.delete(
    `${TASKS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete a task',
        description: 'Its files are deleted with it.',
        tags: ['Tasks'],
        operationId: 'deleteTask',
        params: idParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await tasks.remove(currentUser(request).id, taskId(request.params.id));
      return reply.code(204).send();
    },
  );

  app.post(
    `${TASKS_PATH}/reorder`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Reorder the active list',
        description: 'All or part of your active task ids in their new order, applied at once or not at all.',
        tags: ['Tasks'],
        operationId: 'reorderTasks',
        body: reorderBodySchema,
        response: { 200: reorderBodySchema },
      },
      ...plainJson,
    },
    async (request) => ({ taskIds: await tasks.reorder(currentUser(request).id, request.body.taskIds) }),
  );
}
