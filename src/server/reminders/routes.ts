import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import {
  createReminderBodySchema,
  REMINDER_LIMITS,
  REMINDERS_PATH,
  reminderIdParamsSchema,
  reminderSchema,
} from '../../common/notifications';
import { TASKS_PATH, taskIdParamsSchema } from '../../common/tasks';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { ReminderService } from './service';

const ROLES_NOTE =
  'Someone who cannot see the task gets 404, as for one that does not exist; a member whose role is too low gets 403 naming what is needed.';

/** A task's reminders (issue 22). The rules are in ./service, who may see the task in ../access. */
export async function reminderRoutes(
  fastify: FastifyInstance,
  { reminders }: { reminders: ReminderService },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Reminders'];

  app.get(
    `${TASKS_PATH}/:id/reminders`,
    {
      onRequest: requireUser,
      schema: {
        summary: "A task's reminders",
        description: `Oldest first. Editor or more on the task's project, as for adding one. ${ROLES_NOTE}`,
        tags,
        operationId: 'listTaskReminders',
        params: taskIdParamsSchema,
        response: { 200: z.array(reminderSchema) },
      },
    },
    async (request) => reminders.list(currentUser(request).id, request.params.id),
  );

  app.post(
    `${TASKS_PATH}/:id/reminders`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Add a reminder',
        description: `Editors and above. \`{at}\` (an ISO date-time) fires once then; \`{relativeMinutes}\` fires that many minutes before the due date-time, of each occurrence of a recurring task, and needs the task to have a \`dueTime\`. At most ${REMINDER_LIMITS.perTask} per task; at the limit, the oldest fixed reminders that have fired give way to the new one. It goes to the task's assignees, or its creator when it has none, who can still see the task. ${ROLES_NOTE}`,
        tags,
        operationId: 'createTaskReminder',
        params: taskIdParamsSchema,
        body: createReminderBodySchema,
        response: { 201: reminderSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await reminders.create(currentUser(request).id, request.params.id, request.body)),
  );

  app.delete(
    `${REMINDERS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete a reminder',
        description: `Editors and above in the task's project. ${ROLES_NOTE}`,
        tags,
        operationId: 'deleteReminder',
        params: reminderIdParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await reminders.remove(currentUser(request).id, request.params.id);
      return reply.code(204).send();
    },
  );
}
