import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import {
  addProjectMemberBodySchema,
  createProjectBodySchema,
  PROJECTS_PATH,
  projectIdParamsSchema,
  projectMemberParamsSchema,
  projectMemberSchema,
  projectSchema,
  transferProjectBodySchema,
  updateProjectBodySchema,
  updateProjectMemberBodySchema,
} from '../../common/projects';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { ProjectService } from './service';

/** What the projects feature is given by the app. */
export interface ProjectFeatureDeps {
  projects: ProjectService;
}

const ROLES_NOTE =
  'A non-member gets 404, as for a project that does not exist; a member whose role is too low gets 403 naming the role needed.';

/** Projects, members and roles (issue 21). The rules are in ./service, who may do what in ../access. */
export async function projectRoutes(fastify: FastifyInstance, { projects }: ProjectFeatureDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Projects'];
  const byId = `${PROJECTS_PATH}/:id`;
  const member = `${byId}/members/:userId`;

  app.get(
    PROJECTS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your projects',
        description: 'Your Inbox first, then every project you belong to, by name, with your role.',
        tags,
        operationId: 'listProjects',
        response: { 200: z.array(projectSchema) },
      },
    },
    async (request) => projects.list(currentUser(request)),
  );

  app.post(
    PROJECTS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Create a project',
        description: 'You are its owner. `color` is one of the palette of twelve; grey when left out.',
        tags,
        operationId: 'createProject',
        body: createProjectBodySchema,
        response: { 201: projectSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await projects.create(currentUser(request), request.body)),
  );

  app.patch(
    byId,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Rename, recolour, archive or restore a project',
        description: `Admins and the owner. An archived project is read-only until restored with \`{"archived": false}\` (409 otherwise). The Inbox cannot be renamed or archived (400). ${ROLES_NOTE}`,
        tags,
        operationId: 'updateProject',
        params: projectIdParamsSchema,
        body: updateProjectBodySchema,
        response: { 200: projectSchema },
      },
    },
    async (request) => projects.update(currentUser(request), request.params.id, request.body),
  );

  app.delete(
    byId,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete a project',
        description: `The owner only. The Inbox cannot be deleted (400). ${ROLES_NOTE}`,
        tags,
        operationId: 'deleteProject',
        params: projectIdParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await projects.remove(currentUser(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    `${byId}/members`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'The members of a project',
        description: `Every member, the longest-standing first. ${ROLES_NOTE}`,
        tags,
        operationId: 'listProjectMembers',
        params: projectIdParamsSchema,
        response: { 200: z.array(projectMemberSchema) },
      },
    },
    async (request) => projects.members(currentUser(request), request.params.id),
  );

  app.post(
    `${byId}/members`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Share a project with someone',
        description: `\`user\` is the username or e-mail of an active account. Admins add editors, commenters and viewers; only the owner adds admins. The new member gets an e-mail. ${ROLES_NOTE}`,
        tags,
        operationId: 'addProjectMember',
        params: projectIdParamsSchema,
        body: addProjectMemberBodySchema,
        response: { 201: projectMemberSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await projects.addMember(currentUser(request), request.params.id, request.body)),
  );

  app.patch(
    member,
    {
      onRequest: requireUser,
      schema: {
        summary: "Change a member's role",
        description: `Admins change editors, commenters and viewers; only the owner manages admins. The owner's role changes only by transfer. ${ROLES_NOTE}`,
        tags,
        operationId: 'updateProjectMember',
        params: projectMemberParamsSchema,
        body: updateProjectMemberBodySchema,
        response: { 200: projectMemberSchema },
      },
    },
    async (request) =>
      projects.updateMember(currentUser(request), request.params.id, request.params.userId, request.body),
  );

  app.delete(
    member,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Remove a member, or leave a project',
        description: `Admins remove editors, commenters and viewers; only the owner removes admins. Anyone may leave (their own user id) except the owner, who transfers first. Whoever leaves comes off the project's tasks' assignees (each task's activity says so). ${ROLES_NOTE}`,
        tags,
        operationId: 'removeProjectMember',
        params: projectMemberParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await projects.removeMember(currentUser(request), request.params.id, request.params.userId);
      return reply.code(204).send();
    },
  );

  app.post(
    `${byId}/transfer`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Give a project to another member',
        description: `The owner only: the member named becomes the owner, and you an admin. ${ROLES_NOTE}`,
        tags,
        operationId: 'transferProject',
        params: projectIdParamsSchema,
        body: transferProjectBodySchema,
        response: { 200: projectSchema },
      },
    },
    async (request) => projects.transfer(currentUser(request), request.params.id, request.body),
  );
}
