import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import { PROJECTS_PATH, projectIdParamsSchema } from '../../common/projects';
import {
  createSectionBodySchema,
  moveSectionBodySchema,
  SECTIONS_PATH,
  sectionIdParamsSchema,
  sectionSchema,
  updateSectionBodySchema,
} from '../../common/sections';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { SectionService } from './service';

const ROLES_NOTE =
  'Anyone who can see the project reads its sections; editors and above change them (403 below, 409 while the project is archived). A non-member gets 404, as for a project or section that does not exist.';

/** Sections of a project (issue 23). The rules are in ./service, who may do what in ../access. */
export async function sectionRoutes(fastify: FastifyInstance, { sections }: { sections: SectionService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Sections'];
  const projectSections = `${PROJECTS_PATH}/:id/sections`;
  const byId = `${SECTIONS_PATH}/:id`;

  app.get(
    projectSections,
    {
      onRequest: requireUser,
      schema: {
        summary: "A project's sections",
        description: `In their order; the Inbox has sections too. Tasks in none are 'No section'. ${ROLES_NOTE}`,
        tags,
        operationId: 'listSections',
        params: projectIdParamsSchema,
        response: { 200: z.array(sectionSchema) },
      },
    },
    async (request) => sections.list(currentUser(request).id, request.params.id),
  );

  app.post(
    projectSections,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Add a section',
        description: `At the end of the project's sections. \`name\` is 1 to 100 characters once trimmed; a project has at most 200 sections. ${ROLES_NOTE}`,
        tags,
        operationId: 'createSection',
        params: projectIdParamsSchema,
        body: createSectionBodySchema,
        response: { 201: sectionSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await sections.create(currentUser(request).id, request.params.id, request.body)),
  );

  app.patch(
    byId,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Rename a section',
        description: ROLES_NOTE,
        tags,
        operationId: 'renameSection',
        params: sectionIdParamsSchema,
        body: updateSectionBodySchema,
        response: { 200: sectionSchema },
      },
    },
    async (request) => sections.rename(currentUser(request).id, request.params.id, request.body),
  );

  app.post(
    `${byId}/move`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Move a section',
        description: `To just after \`afterId\` (a section of the same project), or first with \`afterId: null\`. Answers the project's sections in their new order. ${ROLES_NOTE}`,
        tags,
        operationId: 'moveSection',
        params: sectionIdParamsSchema,
        body: moveSectionBodySchema,
        response: { 200: z.array(sectionSchema) },
      },
    },
    async (request) => sections.move(currentUser(request).id, request.params.id, request.body.afterId),
  );

  app.delete(
    byId,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete a section',
        description: `Its tasks go to 'No section'; nothing else is deleted. ${ROLES_NOTE}`,
        tags,
        operationId: 'deleteSection',
        params: sectionIdParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await sections.remove(currentUser(request).id, request.params.id);
      return reply.code(204).send();
    },
  );
}
