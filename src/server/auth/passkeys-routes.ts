import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import { loginResponseSchema } from '../../common/auth';
import {
  PASSKEYS_PATH,
  passkeyIdParamsSchema,
  passkeyLoginBodySchema,
  passkeyOptionsResponseSchema,
  passkeySchema,
  registerPasskeyBodySchema,
  renamePasskeyBodySchema,
} from '../../common/passkeys';
import type { Config } from '../config';
import { HttpError } from '../http/errors';
import type { RateLimiter } from '../http/rate-limit';
import { currentUser, requireSessionAuth, setSessionCookie } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import { createSignInGuard } from './login-guard';
import type { PasskeyService } from './passkeys';

/** What the passkey routes are given by the app. */
export interface PasskeyFeatureDeps {
  passkeys: PasskeyService;
  rateLimiter: RateLimiter;
  config: Pick<Config, 'appUrl' | 'authRateLimit' | 'sessionTtlMs'>;
}

/**
 * Failures with a passkey nobody has are counted under this name with the address; a known
 * passkey's failures count against its owner's account, as a wrong password would. (Usernames
 * cannot hold parentheses, so it names no account.)
 */
const UNKNOWN_PASSKEY_ACCOUNT = '(passkey)';
/** Sign-in options are public and each stores a challenge: this many per address per window. */
const OPTIONS_PER_SIGN_IN_LIMIT = 10;

/**
 * Passkeys (issue 12). Managing them needs a signed-in session (an API token gets 403); signing in
 * with one is public and answers like POST /api/auth/login.
 */
export async function passkeyRoutes(
  fastify: FastifyInstance,
  { passkeys, rateLimiter, config }: PasskeyFeatureDeps,
) {
  const secureCookie = config.appUrl.startsWith('https:');
  const { perIp, windowMs } = config.authRateLimit;
  // The same counters as the password sign-in (the limiter is shared through its key names).
  const loginGuard = createSignInGuard(rateLimiter, config.authRateLimit);
  const optionsPerAddress = rateLimiter.limit('passkey-sign-in-options:ip', {
    max: perIp * OPTIONS_PER_SIGN_IN_LIMIT,
    windowMs,
  });

  await fastify.register(async (scope) => {
    // onRequest, before body validation: a token or a stranger learns 403/401, nothing about bodies.
    scope.addHook('onRequest', requireSessionAuth);
    const app = scope.withTypeProvider<ZodTypeProvider>();

    app.get(
      PASSKEYS_PATH,
      {
        schema: {
          summary: 'Your passkeys',
          description: 'Each passkey with its name and when it was made and last used.',
          tags: ['Passkeys'],
          operationId: 'listPasskeys',
          response: { 200: z.array(passkeySchema) },
        },
      },
      async (request) => passkeys.list(currentUser(request).id),
    );

    app.post(
      `${PASSKEYS_PATH}/register/options`,
      {
        schema: {
          summary: 'Begin adding a passkey',
          description:
            'WebAuthn creation options for the browser; the challenge is single-use and lasts 5 minutes.',
          tags: ['Passkeys'],
          operationId: 'passkeyRegistrationOptions',
          response: { 200: passkeyOptionsResponseSchema },
        },
      },
      async (request) => ({ options: { ...(await passkeys.registrationOptions(currentUser(request))) } }),
    );

    app.post(
      `${PASSKEYS_PATH}/register`,
      {
        schema: {
          summary: 'Add a passkey',
          description: "The browser's answer to the creation options, with a name for the passkey.",
          tags: ['Passkeys'],
          operationId: 'registerPasskey',
          body: registerPasskeyBodySchema,
          response: { 201: passkeySchema },
        },
      },
      async (request, reply) => {
        const { name, response } = request.body;
        return reply.code(201).send(await passkeys.register(currentUser(request), name, response));
      },
    );

    app.patch(
      `${PASSKEYS_PATH}/:id`,
      {
        schema: {
          summary: 'Rename a passkey',
          description: 'A new name for one of your passkeys.',
          tags: ['Passkeys'],
          operationId: 'renamePasskey',
          params: passkeyIdParamsSchema,
          body: renamePasskeyBodySchema,
          response: { 200: passkeySchema },
        },
      },
      async (request) => passkeys.rename(currentUser(request).id, request.params.id, request.body.name),
    );

    app.delete(
      `${PASSKEYS_PATH}/:id`,
      {
        schema: {
          summary: 'Remove a passkey',
          description: 'It can no longer sign you in.',
          tags: ['Passkeys'],
          operationId: 'deletePasskey',
          params: passkeyIdParamsSchema,
          response: { 204: noContentSchema },
        },
      },
      async (request, reply) => {
        await passkeys.remove(currentUser(request).id, request.params.id);
        return reply.code(204).send();
      },
    );
  });

  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    `${PASSKEYS_PATH}/login/options`,
    {
      schema: {
        summary: 'Begin a passkey sign-in',
        description:
          'WebAuthn request options for a discoverable credential (no username); single-use, 5 minutes.',
        tags: ['Passkeys'],
        operationId: 'passkeySignInOptions',
        security: [],
        response: { 200: passkeyOptionsResponseSchema },
      },
    },
    async (request) => {
      passkeys.assertAvailable();
      await optionsPerAddress.consume(request.ip);
      return { options: { ...(await passkeys.authenticationOptions()) } };
    },
  );

  app.post(
    `${PASSKEYS_PATH}/login`,
    {
      schema: {
        summary: 'Sign in with a passkey',
        description:
          'Answers as a password sign-in does: the session id and the user, with the session cookie. A passkey sign-in needs no second factor.',
        tags: ['Passkeys'],
        operationId: 'passkeySignIn',
        security: [],
        body: passkeyLoginBodySchema,
        response: { 200: loginResponseSchema },
      },
    },
    async (request, reply) => {
      const { response } = request.body;
      const found = passkeys.available ? await passkeys.find(response.id) : undefined;
      const account = found?.user.username ?? UNKNOWN_PASSKEY_ACCOUNT;
      await loginGuard.check(account, request.ip);
      let result: Awaited<ReturnType<typeof passkeys.signIn>>;
      try {
        result = await passkeys.signIn(found, response, {
          userAgent: request.headers['user-agent'] ?? null,
          ip: request.ip,
        });
      } catch (error) {
        if (error instanceof HttpError && error.statusCode === 401)
          await loginGuard.fail(account, request.ip);
        throw error;
      }
      await loginGuard.succeed(account, request.ip);
      setSessionCookie(reply, result.sessionId, secureCookie, config.sessionTtlMs);
      return result;
    },
  );
}
