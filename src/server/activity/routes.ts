import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { activityEntrySchema } from '../../common/activity';
import { TASKS_PATH, taskIdParamsSchema } from '../../common/tasks';
import type { Access } from '../access';
import type { Db } from '../db';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import { listActivity } from './repository';

/** GET /api/tasks/{id}/activity: anyone who can see the task (viewer or more). */
export async function activityRoutes(fastify: FastifyInstance, { db, access }: { db: Db; access: Access }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    `${TASKS_PATH}/:id/activity`,
    {
      onRequest: requireUser,
      schema: {
        summary: "A task's activity",
        description:
          'Newest first: who created, renamed, moved, assigned, completed or restored it, commented on it, changed its description, due date, files or checklist, or applied an AI proposal to it.',
        tags: ['Tasks'],
        operationId: 'listTaskActivity',
        params: taskIdParamsSchema,
        response: { 200: z.array(activityEntrySchema) },
      },
    },
    async (request) => {
      const { task } = await access.requireTask(currentUser(request), request.params.id, 'viewer');
      return listActivity(db.kysely, task.id);
    },
  );
}
