import type { FastifyInstance } from 'fastify';
import { noContentSchema } from '../../common/api';
import {
  PUSH_PATHS,
  pushPublicKeySchema,
  pushSubscriptionBodySchema,
  pushUnsubscribeBodySchema,
} from '../../common/push';
import type { Access } from '../access';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { PushService } from './service';

/** Web Push (issue 22, decision 036): the server's public key and this browser's subscription. */
export async function pushRoutes(
  fastify: FastifyInstance,
  { push, access }: { push: PushService; access: Pick<Access, 'requireAllProjects'> },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Push'];

  app.get(
    PUSH_PATHS.publicKey,
    {
      onRequest: requireUser,
      schema: {
        summary: 'The Web Push public key',
        description:
          "The server's VAPID public key (RFC 8292), base64url: the browser subscribes with it as `applicationServerKey`.",
        tags,
        operationId: 'getPushPublicKey',
        response: { 200: pushPublicKeySchema },
      },
    },
    async () => ({ publicKey: await push.publicKey() }),
  );

  app.post(
    PUSH_PATHS.subscriptions,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Subscribe this browser to push notifications',
        description:
          "The browser's `PushSubscription.toJSON()`. One subscription per endpoint: sending it again (or as another person) replaces it.",
        tags,
        operationId: 'createPushSubscription',
        body: pushSubscriptionBodySchema,
        response: { 201: noContentSchema },
      },
    },
    async (request, reply) => {
      // A device hears of every project: not for a token limited to some (issue 24).
      access.requireAllProjects(currentUser(request).id);
      await push.subscribe(currentUser(request).id, request.body);
      return reply.code(201).send();
    },
  );

  app.delete(
    PUSH_PATHS.subscriptions,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Stop push notifications to this browser',
        description: 'Removes your subscription with this endpoint; 204 whether or not there was one.',
        tags,
        operationId: 'deletePushSubscription',
        body: pushUnsubscribeBodySchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await push.unsubscribe(currentUser(request).id, request.body.endpoint);
      return reply.code(204).send();
    },
  );
}
