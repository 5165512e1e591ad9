import type { FastifyInstance, FastifyReply } from 'fastify';
import { redirectSchema } from '../../common/api';
import { loginResponseSchema } from '../../common/auth';
import {
  OIDC_HANDOFF_COOKIE,
  OIDC_PATHS,
  type OidcErrorCode,
  SIGN_IN_ERROR_PARAM,
} from '../../common/sign-in';
import type { Config } from '../config';
import { HttpError } from '../http/errors';
import { currentUser, requireSessionAuth, setSessionCookie } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import { type OidcClient, OidcUnavailableError } from './oidc-client';
import { createFlowSeal, OIDC_FLOW_TTL_MS } from './oidc-flow';
import { type OidcSignIn, OidcSignInError } from './oidc-service';
import type { SessionStore } from './sessions';
import { toPublicUser } from './users';

/** The sealed state, nonce and PKCE verifier of the sign-in this browser started (oidc-flow.ts). */
export const OIDC_FLOW_COOKIE = 'tasklane_oidc_flow';
/** How long the app has to take up the session after the callback (OIDC_HANDOFF_COOKIE). */
const HANDOFF_TTL_SECONDS = 120;

export interface OidcFeatureDeps {
  /** Absent when OIDC_ISSUER is not set: every route answers 404. */
  oidc?: { client: OidcClient; signIn: OidcSignIn };
  sessions: SessionStore;
  config: Pick<Config, 'appUrl' | 'sessionTtlMs' | 'oidc' | 'defaultTimeZone'>;
}

/**
 * Single sign-on (decision 016): `start` sends the browser to the provider with a fresh state, nonce
 * and PKCE challenge, sealed in a cookie of that browser; `callback` checks the answer against it,
 * finds the person's account, signs them in as a password sign-in does and lands them on `/`.
 * Whatever goes wrong lands on the login screen with `?signInError=<code>`.
 */
export async function oidcRoutes(fastify: FastifyInstance, { oidc, sessions, config }: OidcFeatureDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const secure = config.appUrl.startsWith('https:');
  const seal = config.oidc ? createFlowSeal(config.oidc.clientSecret) : undefined;
  const flowCookie = { path: OIDC_PATHS.callback, httpOnly: true, sameSite: 'lax', secure } as const;

  const requireOidc = () => {
    if (!oidc || !seal) throw new HttpError(404, 'Single sign-on is not configured on this server.');
    return { ...oidc, seal };
  };
  const toLoginScreen = (reply: FastifyReply, code: OidcErrorCode) =>
    reply.redirect(`/?${SIGN_IN_ERROR_PARAM}=${code}`, 302);

  const redirects = (summary: string, operationId: string, description: string) => ({
    schema: {
      summary,
      description,
      tags: ['Auth'],
      operationId,
      security: [],
      response: { 302: redirectSchema },
    },
  });

  app.get(
    OIDC_PATHS.start,
    redirects(
      'Start single sign-on',
      'startOidcSignIn',
      'Sends the browser to the OpenID Connect provider (authorization code with PKCE, state and nonce); 404 when single sign-on is not configured.',
    ),
    async (request, reply) => {
      const { client, seal } = requireOidc();
      reply.header('Cache-Control', 'no-store');
      let begun: Awaited<ReturnType<OidcClient['begin']>>;
      try {
        begun = await client.begin();
      } catch (error) {
        if (!(error instanceof OidcUnavailableError))
          request.log.error({ err: error }, 'single sign-on: start failed');
        return toLoginScreen(reply, 'unavailable');
      }
      reply.setCookie(OIDC_FLOW_COOKIE, seal.seal(begun.flow), {
        ...flowCookie,
        maxAge: Math.floor(OIDC_FLOW_TTL_MS / 1000),
      });
      return reply.redirect(begun.url, 302);
    },
  );

  app.get(
    OIDC_PATHS.callback,
    redirects(
      'Finish single sign-on',
      'finishOidcSignIn',
      'Where the provider returns the browser: signs the person in and sends them to `/`, or back to the login screen with the reason.',
    ),
    async (request, reply) => {
      const { client, signIn, seal } = requireOidc();
      reply.header('Cache-Control', 'no-store');
      // One use: whatever happens next, this browser's flow is over.
      const flow = seal.open(request.cookies[OIDC_FLOW_COOKIE]);
      reply.clearCookie(OIDC_FLOW_COOKIE, flowCookie);
      if (!flow) {
        request.log.info(
          'single sign-on: callback without a live flow cookie (another browser, expired, or replayed)',
        );
        return toLoginScreen(reply, 'failed');
      }
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      let user: Awaited<ReturnType<OidcSignIn['resolve']>>;
      try {
        const person = await client.finish(new URL(`${config.appUrl}${OIDC_PATHS.callback}${query}`), flow);
        user = await signIn.resolve(person);
      } catch (error) {
        if (error instanceof OidcSignInError) return toLoginScreen(reply, error.code);
        if (error instanceof OidcUnavailableError) return toLoginScreen(reply, 'unavailable');
        request.log.warn({ err: error }, 'single sign-on: the provider answer was refused');
        return toLoginScreen(reply, 'failed');
      }
      const sessionId = await sessions.create(user.id, {
        userAgent: request.headers['user-agent'] ?? null,
        ip: request.ip,
      });
      setSessionCookie(reply, sessionId, secure, config.sessionTtlMs);
      reply.setCookie(OIDC_HANDOFF_COOKIE, '1', {
        path: '/',
        sameSite: 'lax',
        secure,
        maxAge: HANDOFF_TTL_SECONDS,
      });
      return reply.redirect('/', 302);
    },
  );

  /**
   * The app keeps its session id like a password sign-in's (spec §3: the login response has it), so
   * after the callback it asks for the one its cookie carries. Same origin only: a cookie-carried POST
   * from elsewhere is refused by the session plugin, and no other origin can read the answer.
   */
  app.post(
    OIDC_PATHS.session,
    {
      onRequest: requireSessionAuth,
      schema: {
        summary: 'Hand a single sign-on session to the app',
        description:
          'After the callback, the app (same origin, with the session cookie) learns its session id and user, as a password sign-in answers.',
        tags: ['Auth'],
        operationId: 'takeOidcSession',
        response: { 200: loginResponseSchema },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      reply.clearCookie(OIDC_HANDOFF_COOKIE, { path: '/', sameSite: 'lax', secure });
      return {
        sessionId: request.session!.sessionId,
        user: toPublicUser(currentUser(request), config.defaultTimeZone),
      };
    },
  );
}
