import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import {
  createFilterBodySchema,
  createLabelBodySchema,
  FILTERS_PATH,
  LABELS_PATH,
  labelIdParamsSchema,
  labelSchema,
  savedFilterSchema,
  updateFilterBodySchema,
  updateLabelBodySchema,
} from '../../common/labels';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { LabelService } from './service';

const OWN_NOTE = "Your own: anyone else's answers 404, as one that does not exist.";

/** Labels and saved filters (issue 23). The rules are in ./service. */
export async function labelRoutes(fastify: FastifyInstance, { labels }: { labels: LabelService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    LABELS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your labels',
        description: 'By name. The labels on a task are in its `labels`, whoever put them there.',
        tags: ['Labels'],
        operationId: 'listLabels',
        response: { 200: z.array(labelSchema) },
      },
    },
    async (request) => labels.listLabels(currentUser(request).id),
  );

  app.post(
    LABELS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Create a label',
        description:
          'A name of 1 to 50 characters, unique among your labels whatever its case (409 otherwise), and a colour of the project palette.',
        tags: ['Labels'],
        operationId: 'createLabel',
        body: createLabelBodySchema,
        response: { 201: labelSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await labels.createLabel(currentUser(request).id, request.body)),
  );

  app.patch(
    `${LABELS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Rename or recolour a label',
        description: `Every task carrying it shows the change. ${OWN_NOTE}`,
        tags: ['Labels'],
        operationId: 'updateLabel',
        params: labelIdParamsSchema,
        body: updateLabelBodySchema,
        response: { 200: labelSchema },
      },
    },
    async (request) => labels.updateLabel(currentUser(request).id, request.params.id, request.body),
  );

  app.delete(
    `${LABELS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete a label',
        description: `It is removed from every task. ${OWN_NOTE}`,
        tags: ['Labels'],
        operationId: 'deleteLabel',
        params: labelIdParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await labels.removeLabel(currentUser(request).id, request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    FILTERS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your saved filters',
        description: 'Oldest first. Each `query` opens a task list: `GET /api/tasks?{query}`.',
        tags: ['Labels'],
        operationId: 'listFilters',
        response: { 200: z.array(savedFilterSchema) },
      },
    },
    async (request) => labels.listFilters(currentUser(request).id),
  );

  app.post(
    FILTERS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Save a filter',
        description:
          '`query` is the filter part of a list address (`priority=1,2&label=work&sort=due`), each parameter checked as `GET /api/tasks` checks it (400 naming it).',
        tags: ['Labels'],
        operationId: 'createFilter',
        body: createFilterBodySchema,
        response: { 201: savedFilterSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await labels.createFilter(currentUser(request).id, request.body)),
  );

  app.patch(
    `${FILTERS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Rename or change a saved filter',
        description: OWN_NOTE,
        tags: ['Labels'],
        operationId: 'updateFilter',
        params: labelIdParamsSchema,
        body: updateFilterBodySchema,
        response: { 200: savedFilterSchema },
      },
    },
    async (request) => labels.updateFilter(currentUser(request).id, request.params.id, request.body),
  );

  app.delete(
    `${FILTERS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete a saved filter',
        description: OWN_NOTE,
        tags: ['Labels'],
        operationId: 'deleteFilter',
        params: labelIdParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await labels.removeFilter(currentUser(request).id, request.params.id);
      return reply.code(204).send();
    },
  );
}
