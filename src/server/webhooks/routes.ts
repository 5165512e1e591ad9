import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import {
  createdWebhookSchema,
  createWebhookBodySchema,
  deliveryParamsSchema,
  queuedDeliverySchema,
  updateWebhookBodySchema,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_LIMITS,
  WEBHOOKS_PATH,
  webhookDeliverySchema,
  webhookIdParamsSchema,
  webhookSchema,
} from '../../common/webhooks';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { WebhookService } from './service';

const OWNER_NOTE = "A webhook is its creator's alone: anyone else's answers 404, as one that does not exist.";
const EVENTS_NOTE = `Events: ${WEBHOOK_EVENT_TYPES.join(', ')} (and \`ping\`, which 'Send test' sends). Each delivery is a POST of \`{id, type, createdAt, data}\` signed per Standard Webhooks (headers \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`).`;

/** Webhooks (issue 24). The rules are in ./service, who may use a project in ../access. */
export async function webhookRoutes(fastify: FastifyInstance, { webhooks }: { webhooks: WebhookService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Webhooks'];

  app.get(
    WEBHOOKS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your webhooks',
        description: 'Oldest first; never the signing secrets.',
        tags,
        operationId: 'listWebhooks',
        response: { 200: z.array(webhookSchema) },
      },
    },
    async (request) => webhooks.list(currentUser(request).id),
  );

  app.post(
    WEBHOOKS_PATH,
    {
      onRequest: requireUser,
      // Shown this once: never kept for a repeated Idempotency-Key.
      config: { showsSecret: true },
      schema: {
        summary: 'Create a webhook',
        description: `With \`projectId\` it gets that project's events (admin or more there); without it, your Inbox's and tasks assigned to you. The signing secret (\`whsec_\` + base64) is in this answer once: keep it. At most ${WEBHOOK_LIMITS.perPerson} per person. A \`url\` on a loopback, private or link-local address answers 400 unless the server allows it (WEBHOOKS_ALLOW_PRIVATE). ${EVENTS_NOTE}`,
        tags,
        operationId: 'createWebhook',
        body: createWebhookBodySchema,
        response: { 201: createdWebhookSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await webhooks.create(currentUser(request).id, request.body)),
  );

  app.patch(
    `${WEBHOOKS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Change a webhook',
        description: `\`active: true\` turns it on again (after ${WEBHOOK_LIMITS.failuresBeforeOff} failures in a row it is turned off). ${OWNER_NOTE}`,
        tags,
        operationId: 'updateWebhook',
        params: webhookIdParamsSchema,
        body: updateWebhookBodySchema,
        response: { 200: webhookSchema },
      },
    },
    async (request) => webhooks.update(currentUser(request).id, request.params.id, request.body),
  );

  app.delete(
    `${WEBHOOKS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete a webhook',
        description: `Its delivery log and queued deliveries go with it. ${OWNER_NOTE}`,
        tags,
        operationId: 'deleteWebhook',
        params: webhookIdParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await webhooks.remove(currentUser(request).id, request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    `${WEBHOOKS_PATH}/:id/test`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Send a test event',
        description: `Queues a \`ping\` (\`data: {webhookId}\`), sent within seconds, even while the webhook is off; its delivery log shows how it went. ${OWNER_NOTE}`,
        tags,
        operationId: 'testWebhook',
        params: webhookIdParamsSchema,
        response: { 202: queuedDeliverySchema },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await webhooks.test(currentUser(request).id, request.params.id)),
  );

  app.get(
    `${WEBHOOKS_PATH}/:id/deliveries`,
    {
      onRequest: requireUser,
      schema: {
        summary: "A webhook's delivery log",
        description: `Newest first, one entry per attempt, at most ${WEBHOOK_LIMITS.deliveriesListed}, kept 14 days. \`pending\`: an attempt to come (\`at\` is when it is due). Retries wait about 1 min, 5 min, 30 min, 2 h and 6 h. ${OWNER_NOTE}`,
        tags,
        operationId: 'listWebhookDeliveries',
        params: webhookIdParamsSchema,
        response: { 200: z.array(webhookDeliverySchema) },
      },
    },
    async (request) => webhooks.deliveries(currentUser(request).id, request.params.id),
  );

  app.post(
    `${WEBHOOKS_PATH}/:id/deliveries/:deliveryId/redeliver`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Redeliver an event',
        description: `Sends the delivery's event again, the same \`id\` and body (receivers dedupe by \`webhook-id\`), with a fresh signature, even while the webhook is off. ${OWNER_NOTE}`,
        tags,
        operationId: 'redeliverWebhookEvent',
        params: deliveryParamsSchema,
        response: { 202: queuedDeliverySchema },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          await webhooks.redeliver(currentUser(request).id, request.params.id, request.params.deliveryId),
        ),
  );
}
