import type { FastifyInstance } from 'fastify';
import { noContentSchema } from '../../common/api';
import { loginResponseSchema } from '../../common/auth';
import {
  disableTwoFactorBodySchema,
  enableTwoFactorBodySchema,
  loginTwoFactorBodySchema,
  recoveryCodesSchema,
  TWO_FACTOR_PATHS,
  twoFactorSetupSchema,
  twoFactorStatusSchema,
} from '../../common/two-factor';
import type { Config } from '../config';
import { toBool } from '../db/values';
import { currentUser, requireSessionAuth, setSessionCookie } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { TwoFactorService } from './two-factor';

/** What the two-factor feature is given by the app. */
export interface TwoFactorFeatureDeps {
  twoFactor: TwoFactorService;
  config: Pick<Config, 'appUrl' | 'sessionTtlMs'>;
}

/** Only behind requireSessionAuth, which guarantees a session (never an API token). */
const sessionHash = (request: { session: { idHash: string } | null }): string => request.session!.idHash;

/**
 * Two-factor sign-in (issue 12, decision 014). Managing it needs a signed-in session: an API token
 * gets 403, like every account-security route. The second step of a sign-in is public.
 */
export async function twoFactorRoutes(fastify: FastifyInstance, { twoFactor, config }: TwoFactorFeatureDeps) {
  const secureCookie = config.appUrl.startsWith('https:');

  await fastify.register(async (scope) => {
    // onRequest, before body validation: a token or a stranger learns 403/401, nothing about bodies.
    scope.addHook('onRequest', requireSessionAuth);
    const app = scope.withTypeProvider<ZodTypeProvider>();

    app.get(
      TWO_FACTOR_PATHS.status,
      {
        schema: {
          summary: 'Your two-factor sign-in',
          description: 'Whether it is on, and how many unused recovery codes are left.',
          tags: ['Auth'],
          operationId: 'getTwoFactor',
          response: { 200: twoFactorStatusSchema },
        },
      },
      (request) => {
        const user = currentUser(request);
        return twoFactor.status(user.id, toBool(user.two_factor_enabled));
      },
    );

    app.post(
      TWO_FACTOR_PATHS.setup,
      {
        // Shown this once: never kept for a repeated Idempotency-Key.
        config: { showsSecret: true },
        schema: {
          summary: 'Set up two-factor sign-in',
          description:
            'A new TOTP secret and its otpauth:// URL (for a QR code). Not in force until enabled with a ' +
            'code from it. 409 while two-factor sign-in is on.',
          tags: ['Auth'],
          operationId: 'setUpTwoFactor',
          response: { 200: twoFactorSetupSchema },
        },
      },
      (request) => twoFactor.setup(currentUser(request)),
    );

    app.post(
      TWO_FACTOR_PATHS.enable,
      {
        // Shown this once: never kept for a repeated Idempotency-Key.
        config: { showsSecret: true },
        schema: {
          summary: 'Turn on two-factor sign-in',
          description:
            'With a code from the secret being set up. Answers 10 recovery codes, shown this once; ' +
            'ends your other sessions.',
          tags: ['Auth'],
          operationId: 'enableTwoFactor',
          body: enableTwoFactorBodySchema,
          response: { 200: recoveryCodesSchema },
        },
      },
      (request) => twoFactor.enable(currentUser(request), sessionHash(request), request.body.code),
    );

    app.post(
      TWO_FACTOR_PATHS.disable,
      {
        schema: {
          summary: 'Turn off two-factor sign-in',
          description:
            'With your password and a code (TOTP or recovery code); ends your other sessions. A wrong ' +
            'password or code counts as a failed sign-in.',
          tags: ['Auth'],
          operationId: 'disableTwoFactor',
          body: disableTwoFactorBodySchema,
          response: { 204: noContentSchema },
        },
      },
      async (request, reply) => {
        await twoFactor.disable(currentUser(request), sessionHash(request), request.body, request.ip);
        return reply.code(204).send();
      },
    );
  });

  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post(
    TWO_FACTOR_PATHS.login,
    {
      schema: {
        summary: 'Sign in: the second step',
        description:
          'The challenge from POST /api/auth/login and a TOTP code or a recovery code. Answers like a ' +
          'sign-in and sets the session cookie. The challenge expires after 5 minutes and is used up ' +
          'by its first success; each wrong code counts as a failed sign-in. After 10 wrong codes for one ' +
          'account in 15 minutes, from any addresses, this step answers 429 for that account (the owner ' +
          'is e-mailed once); the password step is not affected.',
        tags: ['Auth'],
        operationId: 'loginTwoFactor',
        security: [],
        body: loginTwoFactorBodySchema,
        response: { 200: loginResponseSchema },
      },
    },
    async (request, reply) => {
      const result = await twoFactor.completeLogin(request.body.challenge, request.body.code, {
        userAgent: request.headers['user-agent'] ?? null,
        ip: request.ip,
      });
      setSessionCookie(reply, result.sessionId, secureCookie, config.sessionTtlMs);
      return result;
    },
  );
}
