import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  accessRequestBodySchema,
  changePasswordBodySchema,
  loginBodySchema,
  loginResponseSchema,
  messageResponseSchema,
  publicUserSchema,
  resetPasswordBodySchema,
  sendPasswordBodySchema,
} from '../../common/auth';
import type { Config } from '../config';
import { HttpError } from '../http/errors';
import { consumeAll, type RateLimiter, type RateLimitRule } from '../http/rate-limit';
import { clearSessionCookie, currentUser, requireUser, setSessionCookie } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import { createLoginGuard } from './login-guard';
import { AUTH_MESSAGES, type AuthService } from './service';
import type { SessionStore } from './sessions';
import { toPublicUser } from './users';

/** What the auth feature is given by the app. */
export interface AuthFeatureDeps {
  auth: AuthService;
  sessions: SessionStore;
  rateLimiter: RateLimiter;
  config: Pick<Config, 'appUrl' | 'authRateLimit' | 'sessionTtlMs'>;
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
  const loginGuard = createLoginGuard(rateLimiter, { perAccountAndAddress: perAccount, perAddress: perIp });
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
    { schema: { body: loginBodySchema, response: { 200: loginResponseSchema } } },
    async (request, reply) => {
      const { username, password } = request.body;
      await loginGuard.check(username, request.ip);
      let result: Awaited<ReturnType<typeof auth.login>>;
      try {
        result = await auth.login(username, password);
      } catch (error) {
        if (error instanceof HttpError && error.statusCode === 401)
          await loginGuard.fail(username, request.ip);
        throw error;
      }
      await loginGuard.succeed(username, request.ip);
      setSessionCookie(reply, result.sessionId, secureCookie, config.sessionTtlMs);
      return result;
    },
  );

  app.post('/api/auth/logout', async (request, reply) => {
    if (request.session) await sessions.end(request.session.sessionId);
    clearSessionCookie(reply, secureCookie);
    return reply.code(204).send();
  });

  app.get(
    '/api/auth/me',
    { preHandler: requireUser, schema: { response: { 200: z.object({ user: publicUserSchema }) } } },
    async (request) => ({ user: toPublicUser(currentUser(request)) }),
  );

  app.post(
    '/api/auth/change-password',
    { schema: { body: changePasswordBodySchema, response: { 200: messageResponseSchema } } },
    async (request) => {
      const session = request.session
        ? { userId: request.session.user.id, idHash: request.session.idHash }
        : null;
      await auth.changePassword(session, request.body.currentPassword, request.body.newPassword);
      return { message: AUTH_MESSAGES.passwordChanged };
    },
  );

  app.post(
    '/api/auth/send-password',
    { schema: { body: sendPasswordBodySchema, response: { 200: messageResponseSchema } } },
    async (request) => {
      await limit(request, 'send-password', request.body.email);
      await auth.sendPasswordLink(request.body.email);
      return { message: AUTH_MESSAGES.resetLinkSent };
    },
  );

  app.post(
    '/api/auth/reset-password',
    { schema: { body: resetPasswordBodySchema, response: { 200: messageResponseSchema } } },
    async (request) => {
      await limit(request, 'reset-password');
      await auth.resetPassword(request.body.token, request.body.newPassword);
      return { message: AUTH_MESSAGES.passwordReset };
    },
  );

  app.post(
    '/api/access-requests',
    { schema: { body: accessRequestBodySchema, response: { 201: messageResponseSchema } } },
    async (request, reply) => {
      await limit(request, 'access-request', request.body.email);
      await auth.requestAccess(request.body);
      return reply.code(201).send({ message: AUTH_MESSAGES.accessRequested });
    },
  );
}
