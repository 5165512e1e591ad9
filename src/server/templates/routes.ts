import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import { projectIdParamsSchema, projectSchema } from '../../common/projects';
import {
  applyTemplateBodySchema,
  saveTemplateBodySchema,
  TEMPLATE_LIMITS,
  TEMPLATES_PATH,
  templateParamsSchema,
  templateSchema,
} from '../../common/templates';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { TemplateService } from './service';

/** What the templates feature is given by the app. */
export interface TemplateFeatureDeps {
  templates: TemplateService;
}

/** Project templates (issue 29): the rules are in ./service, who may read a project in ../access. */
export async function templateRoutes(fastify: FastifyInstance, { templates }: TemplateFeatureDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Templates'];
  const byId = `${TEMPLATES_PATH}/:id`;

  app.post(
    '/api/projects/:id/template',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Save a project as a template',
        description: `Anyone who can see the project (viewer and up) may save it as a template of their own, named \`name\` or else as the project. It keeps the project's colour, its sections, and its open tasks with their sub-tasks, labels (by name and colour), priorities, descriptions, notes, checklists (undone), due times and recurrence; due dates as days from today in your time zone. Not assignees, comments, files or completed tasks. At most ${TEMPLATE_LIMITS.tasksMax} tasks (400 naming the project). A non-member gets 404, as for a project that does not exist.`,
        tags,
        operationId: 'saveProjectTemplate',
        params: projectIdParamsSchema,
        body: saveTemplateBodySchema,
        response: { 201: templateSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await templates.save(currentUser(request), request.params.id, request.body)),
  );

  app.get(
    TEMPLATES_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your templates',
        description: 'Newest first. Nobody else sees them.',
        tags,
        operationId: 'listTemplates',
        response: { 200: z.array(templateSchema) },
      },
    },
    async (request) => templates.list(currentUser(request)),
  );

  // Before the deletion: the document lists operations in this order, and a template applied is still there.
  app.post(
    `${byId}/apply`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Create a project from a template',
        description:
          'A new project of yours named `name`, with the template’s sections, tasks, sub-tasks, labels (yours of the same name, else made in the template’s colour) and checklists; due dates counted from `startDate` (YYYY-MM-DD). All or nothing. Another person’s template answers 404, as one that does not exist.',
        tags,
        operationId: 'applyTemplate',
        params: templateParamsSchema,
        body: applyTemplateBodySchema,
        response: { 201: projectSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await templates.apply(currentUser(request), request.params.id, request.body)),
  );

  app.delete(
    byId,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete a template',
        description: 'Your own only: another person’s answers 404, as one that does not exist.',
        tags,
        operationId: 'deleteTemplate',
        params: templateParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await templates.remove(currentUser(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
