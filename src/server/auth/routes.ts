import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import {
  AUTH_PROVIDERS_PATH,
  accessRequestBodySchema,
  authProvidersSchema,
  changePasswordBodySchema,
  loginBodySchema,
  loginResponseSchema,
  messageResponseSchema,
  publicUserSchema,
  resetPasswordBodySchema,
  sendPasswordBodySchema,
  updateMeBodySchema,
} from '../../common/auth';
import { VALIDATION } from '../../common/spec';
import { DEVICE_SESSIONS_PATH, deviceSessionParamsSchema, deviceSessionSchema } from '../../common/tokens';
import { twoFactorChallengeSchema } from '../../common/two-factor';
import type { Config } from '../config';
import { HttpError, notFound, unauthorized } from '../http/errors';
import { consumeAll, type RateLimiter, type RateLimitRule } from '../http/rate-limit';
import {
  clearSessionCookie,
  currentUser,
  refuseApiTokens,
  requireSessionAuth,
  requireUser,
  setSessionCookie,
} from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import { createSignInGuard } from './login-guard';
import { relyingPartyFor } from './passkeys';
import { AUTH_MESSAGES, type AuthService } from './service';
import type { SessionStore } from './sessions';
import { toPublicUser } from './users';

/** What the auth feature is given by the app. */
export interface AuthFeatureDeps {
  auth: AuthService;
  sessions: SessionStore;
  rateLimiter: RateLimiter;
  config: Pick<Config, 'appUrl' | 'authRateLimit' | 'sessionTtlMs' | 'oidc' | 'defaultTimeZone'>;
}

export async function authRoutes(
  fastify: FastifyInstance,
  { auth, sessions, rateLimiter, config }: AuthFeatureDeps,
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const secureCookie = config.appUrl.startsWith('https:');
  const perIp: RateLimitRule = { max: config.authRateLimit.perIp, windowMs: config.authRateLimit.windowMs };
  const perAccount: RateLimitRule = {
    max: config.authRateLimit.perAccount,
    windowMs: config.authRateLimit.windowMs,
  };
  // Keyed on the socket's address (or the proxy's, only when TRUST_PROXY is set) and the account.
  const loginGuard = createSignInGuard(rateLimiter, config.authRateLimit);
  /** The public forms count every attempt, per address and per account. */
  const limit = (request: FastifyRequest, route: string, account?: string) =>
    consumeAll([
      [rateLimiter.limit(`${route}:ip`, perIp), request.ip],
      ...(account
        ? [[rateLimiter.limit(`${route}:account`, perAccount), account.toLowerCase()] as const]
        : []),
    ]);

  app.post(
    '/api/auth/login',
    {
      schema: {
        summary: 'Sign in',
        description:
          'Answers the session id and sets the session cookie. Limited per account and address. With ' +
          'two-factor sign-in on, answers `{twoFactorRequired: true, challenge}` instead, with no ' +
          'session: POST /api/auth/login/2fa completes it.',
        tags: ['Auth'],
        operationId: 'login',
        security: [],
        body: loginBodySchema,
        response: { 200: z.union([loginResponseSchema, twoFactorChallengeSchema]) },
      },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      await loginGuard.check(username, request.ip);
      let result: Awaited<ReturnType<typeof auth.login>>;
      try {
        result = await auth.login(username, password, {
          userAgent: request.headers['user-agent'] ?? null,
          ip: request.ip,
        });
      } catch (error) {
        if (error instanceof HttpError && error.statusCode === 401)
          await loginGuard.fail(username, request.ip);
        throw error;
      }
      // With two-factor sign-in on, failures are forgotten only once the second step succeeds: the
      // password alone must not buy an attacker fresh guesses at the code (two-factor-routes.ts).
      if ('twoFactorRequired' in result) return result;
      await loginGuard.succeed(username, request.ip);
      setSessionCookie(reply, result.sessionId, secureCookie, config.sessionTtlMs);
      return result;
    },
  );

  /** The ways to sign in besides a password, for the login screen; public. */
  app.get(
    AUTH_PROVIDERS_PATH,
    {
      schema: {
        summary: 'Ways to sign in',
        description: 'The sign-in methods besides a password that this server offers, for the login screen.',
        tags: ['Auth'],
        operationId: 'getAuthProviders',
        security: [],
        response: { 200: authProvidersSchema },
      },
    },
    async () => ({
      passkeys: relyingPartyFor(config.appUrl) !== null,
      oidc: config.oidc ? { name: config.oidc.name } : null,
    }),
  );

  app.post(
    '/api/auth/logout',
    {
      schema: {
        summary: 'Sign out',
        description: 'Ends the session the request came with, if any, and clears the cookie.',
        tags: ['Auth'],
        operationId: 'logout',
        security: [],
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      // An API token has no session to end (it is revoked under /api/tokens).
      if (request.session?.via === 'session') await sessions.end(request.session.sessionId);
      clearSessionCookie(reply, secureCookie);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/auth/me',
    {
      preHandler: requireUser,
      schema: {
        summary: 'The signed-in user',
        tags: ['Auth'],
        operationId: 'getCurrentUser',
        response: { 200: z.object({ user: publicUserSchema }) },
      },
    },
    async (request) => ({ user: toPublicUser(currentUser(request), config.defaultTimeZone) }),
  );

  app.patch(
    '/api/auth/me',
    {
      onRequest: requireUser,
      schema: {
        summary: 'Change your own settings',
        description:
          "Today your time zone (an IANA name, checked with Intl): the zone due times you set are read in, and your digest's 08:00.",
        tags: ['Auth'],
        operationId: 'updateCurrentUser',
        body: updateMeBodySchema,
        response: { 200: z.object({ user: publicUserSchema }) },
      },
    },
    async (request) => {
      const user = currentUser(request);
      const { timeZone, timeZoneChosen } = request.body;
      const updated = await auth.setTimeZone(user.id, timeZone, timeZoneChosen);
      await sessions.forgetUser(user.id);
      return { user: toPublicUser(updated, config.defaultTimeZone) };
    },
  );

  app.post(
    '/api/auth/change-password',
    {
      // Signed in before the body is looked at, as on every guarded route; an API token must not
      // be able to take the account over.
      onRequest: [requirePasswordChanger, refuseApiTokens],
      schema: {
        summary: 'Change your password',
        description: 'Ends your other sessions.',
        tags: ['Auth'],
        operationId: 'changePassword',
        body: changePasswordBodySchema,
        response: { 200: messageResponseSchema },
      },
    },
    async (request) => {
      const { user, idHash } = request.session!;
      await auth.changePassword(
        { userId: user.id, idHash },
        request.body.currentPassword,
        request.body.newPassword,
      );
      return { message: AUTH_MESSAGES.passwordChanged };
    },
  );

  // "Your devices": the caller's sessions. A session only, never an API token.
  app.get(
    DEVICE_SESSIONS_PATH,
    {
      onRequest: requireSessionAuth,
      schema: {
        summary: 'Your signed-in sessions (devices)',
        tags: ['Sessions'],
        operationId: 'listSessions',
        response: { 200: z.array(deviceSessionSchema) },
      },
    },
    async (request) => sessions.listForUser(currentUser(request).id, request.session?.idHash ?? null),
  );

  /** "Sign out everywhere else": every session of the caller but this one. */
  app.delete(
    DEVICE_SESSIONS_PATH,
    {
      onRequest: requireSessionAuth,
      schema: {
        summary: 'Sign out everywhere else',
        description: 'Ends every session of yours but this one.',
        tags: ['Sessions'],
        operationId: 'endOtherSessions',
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await sessions.endAllForUser(currentUser(request).id, request.session?.idHash);
      return reply.code(204).send();
    },
  );

  /** Ending the current session is a sign-out. Another person's session is one that does not exist. */
  app.delete(
    `${DEVICE_SESSIONS_PATH}/:id`,
    {
      onRequest: requireSessionAuth,
      schema: {
        summary: 'Sign out one session',
        description: 'Ending the current session is a sign-out.',
        tags: ['Sessions'],
        operationId: 'endSession',
        params: deviceSessionParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      const endedHash = await sessions.endByPublicId(currentUser(request).id, request.params.id);
      if (!endedHash) throw notFound('Session');
      if (endedHash === request.session?.idHash) clearSessionCookie(reply, secureCookie);
      return reply.code(204).send();
    },
  );

  app.post(
    '/api/auth/send-password',
    {
      schema: {
        summary: 'E-mail a password reset link',
        description: 'The answer is the same whether or not the address is known.',
        tags: ['Auth'],
        operationId: 'sendPasswordLink',
        security: [],
        body: sendPasswordBodySchema,
        response: { 200: messageResponseSchema },
      },
    },
    async (request) => {
      await limit(request, 'send-password', request.body.email);
      await auth.sendPasswordLink(request.body.email);
      return { message: AUTH_MESSAGES.resetLinkSent };
    },
  );

  app.post(
    '/api/auth/reset-password',
    {
      schema: {
        summary: 'Set a new password with a reset link',
        tags: ['Auth'],
        operationId: 'resetPassword',
        security: [],
        body: resetPasswordBodySchema,
        response: { 200: messageResponseSchema },
      },
    },
    async (request) => {
      await limit(request, 'reset-password');
      await auth.resetPassword(request.body.token, request.body.newPassword);
      return { message: AUTH_MESSAGES.passwordReset };
    },
  );

  app.post(
    '/api/access-requests',
    {
      schema: {
        summary: 'Ask for an account',
        tags: ['Auth'],
        operationId: 'requestAccess',
        security: [],
        body: accessRequestBodySchema,
        response: { 201: messageResponseSchema },
      },
    },
    async (request, reply) => {
      await limit(request, 'access-request', request.body.email);
      await auth.requestAccess(request.body);
      return reply.code(201).send({ message: AUTH_MESSAGES.accessRequested });
    },
  );
}

/** The spec's own words for changing a password signed out (the client shows them as they are). */
async function requirePasswordChanger(request: FastifyRequest): Promise<void> {
  if (!request.session) throw unauthorized(VALIDATION.loginRequiredForPasswordChange);
}
