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
          description:
            "Never the secrets. Each with its limits: `scopes` (`['read']` or `['read', 'write']`) and `projectIds` (null: all your projects).",
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
        // Shown this once: never kept for a repeated Idempotency-Key.
        config: { showsSecret: true },
        schema: {
          summary: 'Create an API token',
          description:
            "The token is in this answer once: keep it. Without `expiresInDays` it never expires. `scopes` `['read']` makes a read-only token: any request but GET, HEAD and OPTIONS answers 403 `This token can only read`, and over MCP it has the read tools alone. `projectIds` limits it to those of your projects (your Inbox is one; you must be a member of each, else 400): elsewhere it gets 404 as for what does not exist, lists and the event stream leave the rest out, and it cannot create projects, export, or create a calendar feed or push subscription (403). Left out: `['read', 'write']` and all your projects.",
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
