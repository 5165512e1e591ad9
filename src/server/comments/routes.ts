import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import {
  COMMENTS_PATH,
  commentBodySchema,
  commentIdParamsSchema,
  commentSchema,
} from '../../common/comments';
import { TASKS_PATH, taskIdParamsSchema } from '../../common/tasks';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { CommentService } from './service';

const ROLES_NOTE =
  'Someone who cannot see the task gets 404, as for a comment that does not exist; a member whose role is too low gets 403 naming what is needed.';

/** Comments on a task (issue 21). The rules are in ./service, who may see the task in ../access. */
export async function commentRoutes(fastify: FastifyInstance, { comments }: { comments: CommentService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Comments'];

  app.get(
    `${TASKS_PATH}/:id/comments`,
    {
      onRequest: requireUser,
      schema: {
        summary: "A task's comments",
        description: `Oldest first. \`authorName\` is the author's first name, or 'Deleted user' once their account is deleted. Anyone who can see the task (viewer or more). ${ROLES_NOTE}`,
        tags,
        operationId: 'listTaskComments',
        params: taskIdParamsSchema,
        response: { 200: z.array(commentSchema) },
      },
    },
    async (request) => comments.list(currentUser(request).id, request.params.id),
  );

  app.post(
    `${TASKS_PATH}/:id/comments`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Comment on a task',
        description: `Commenters and above. \`body\` is Markdown, 1 to 10,000 characters once trimmed; \`@username\` of a member of the task's project is a mention. ${ROLES_NOTE}`,
        tags,
        operationId: 'createTaskComment',
        params: taskIdParamsSchema,
        body: commentBodySchema,
        response: { 201: commentSchema },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await comments.create(currentUser(request).id, request.params.id, request.body.body)),
  );

  app.patch(
    `${COMMENTS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Edit a comment',
        description: `Its author only, while a commenter or more in the project. Stamps \`editedAt\`; mentions follow the new body. ${ROLES_NOTE}`,
        tags,
        operationId: 'updateComment',
        params: commentIdParamsSchema,
        body: commentBodySchema,
        response: { 200: commentSchema },
      },
    },
    async (request) => comments.update(currentUser(request).id, request.params.id, request.body.body),
  );

  app.delete(
    `${COMMENTS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete a comment',
        description: `Its author, or an admin or the owner of the project. ${ROLES_NOTE}`,
        tags,
        operationId: 'deleteComment',
        params: commentIdParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await comments.remove(currentUser(request).id, request.params.id);
      return reply.code(204).send();
    },
  );
}
