import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import {
  apiTokenSchema,
  createdTokenSchema,
  createTokenBodySchema,
  TOKENS_PATH,
  tokenIdParamsSchema,
} from '../../common/tokens';
import { currentUser, requireSessionAuth } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { TokenService } from './service';

/** What the tokens feature is given by the app. */
export interface TokenFeatureDeps {
  tokens: TokenService;
}

/**
 * Personal API tokens (issue 12). Managed only from a signed-in session: a token cannot list,
 * mint or revoke tokens (403).
 */
export async function tokenRoutes(fastify: FastifyInstance, { tokens }: TokenFeatureDeps) {
  await fastify.register(async (scope) => {
    // onRequest, before body validation: a token or a stranger learns 403/401, nothing about bodies.
    scope.addHook('onRequest', requireSessionAuth);
    const app = scope.withTypeProvider<ZodTypeProvider>();

    app.get(
      TOKENS_PATH,
      {
        schema: {
          summary: 'Your API tokens',
          description: 'Never the secrets.',
          tags: ['Tokens'],
          operationId: 'listTokens',
          response: { 200: z.array(apiTokenSchema) },
        },
      },
      async (request) => tokens.list(currentUser(request).id),
    );

    app.post(
      TOKENS_PATH,
      {
        schema: {
          summary: 'Create an API token',
          description: 'The token is in this answer once: keep it. Without `expiresInDays` it never expires.',
          tags: ['Tokens'],
          operationId: 'createToken',
          body: createTokenBodySchema,
          response: { 201: createdTokenSchema },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await tokens.create(currentUser(request).id, request.body)),
    );

    app.delete(
      `${TOKENS_PATH}/:id`,
      {
        schema: {
          summary: 'Revoke an API token',
          tags: ['Tokens'],
          operationId: 'revokeToken',
          params: tokenIdParamsSchema,
          response: { 204: noContentSchema },
        },
      },
      async (request, reply) => {
        await tokens.revoke(currentUser(request).id, request.params.id);
        return reply.code(204).send();
      },
    );
  });
}
