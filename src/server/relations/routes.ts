import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import {
  createRelationBodySchema,
  RELATION_MESSAGES,
  relationParamsSchema,
  relationSchema,
} from '../../common/relations';
import { TASKS_PATH, taskIdParamsSchema } from '../../common/tasks';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { RelationService } from './service';

const ROLES_NOTE =
  'Someone who cannot see the task gets 404, as for a task that does not exist; a member whose role is too low gets 403 naming what is needed. A relation whose other task the caller cannot see is not there for them (left out, 404).';

/** Dependencies between tasks (issue 29). The rules are in ./service, who may see a task in ../access. */
export async function relationRoutes(
  fastify: FastifyInstance,
  { relations }: { relations: RelationService },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Dependencies'];

  app.get(
    `${TASKS_PATH}/:id/relations`,
    {
      onRequest: requireUser,
      schema: {
        summary: "A task's dependencies and relations",
        description: `Each relation as read from this task: \`kind\` is \`blocks\`, \`blocked_by\`, \`relates_to\`, \`duplicate_of\` or \`duplicated_by\`; \`otherCompleted\` is true when the other task is completed or archived. Oldest first. Anyone who can see the task (viewer or more). ${ROLES_NOTE}`,
        tags,
        operationId: 'listTaskRelations',
        params: taskIdParamsSchema,
        response: { 200: z.array(relationSchema) },
      },
    },
    async (request) => relations.list(currentUser(request).id, request.params.id),
  );

  app.post(
    `${TASKS_PATH}/:id/relations`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Relate a task to another',
        description: `This task \`kind\` task \`taskId\` (\`blocked_by\` is the other task's \`blocks\`, one record seen from both sides). Editors and above on this task, viewer or more on the other, which may be in another project. 400 naming \`kind\` or \`taskId\` for an unknown kind, a task related to itself or '${RELATION_MESSAGES.loop}'; 409 for the same relation twice. ${ROLES_NOTE}`,
        tags,
        operationId: 'createTaskRelation',
        params: taskIdParamsSchema,
        body: createRelationBodySchema,
        response: { 201: relationSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await relations.create(currentUser(request).id, request.params.id, request.body)),
  );

  app.delete(
    `${TASKS_PATH}/:id/relations/:relationId`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Remove a relation',
        description: `From either of its tasks: editors and above on the task in the path. ${ROLES_NOTE}`,
        tags,
        operationId: 'deleteTaskRelation',
        params: relationParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await relations.remove(currentUser(request).id, request.params.id, request.params.relationId);
      return reply.code(204).send();
    },
  );
}
