import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { SESSION_HEADER, SESSION_HEADER_ALT } from '../../common/spec';
import { TOKEN_MESSAGES } from '../../common/tokens';
import { assertTokenMayUse, READ_METHODS, type TokenLimits, withTokenLimits } from '../access/token-limits';
import type { SessionStore } from '../auth/sessions';
import type { UserRow } from '../db/schema';
import { toBool } from '../db/values';
import { forbidden, unauthorized } from './errors';

export const SESSION_COOKIE = 'tasklane_session';

export interface RequestSession {
  user: UserRow;
  /**
   * How the caller is authenticated: a sign-in `session` (header or cookie), or a personal API
   * `token` (`Authorization: Bearer`), which account-security routes refuse (requireSessionAuth).
   */
  via: 'session' | 'token';
  /** SHA-256 of the session id or of the token. */
  idHash: string;
  /** The session id; empty for a token. */
  sessionId: string;
  /** A token's limits (read only, some projects: issue 24); undefined for a session. */
  limits?: TokenLimits;
  /** Whether the credential still holds (a long-lived stream asks now and then). */
  stillValid(): Promise<boolean>;
}

/** Resolves a personal API token (src/server/tokens): its owner, or null when it does not hold. */
export interface BearerTokenResolver {
  resolve(token: string): Promise<{ user: UserRow; idHash: string; limits: TokenLimits } | null>;
}

export const BEARER_MESSAGES = {
  invalid: 'This API token is invalid, revoked or expired.',
  sessionRequired:
    'An API token cannot do this: sign in to Tasklane in the browser to manage passwords, tokens and sessions.',
} as const;

declare module 'fastify' {
  interface FastifyRequest {
    session: RequestSession | null;
  }
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The token of an `Authorization: Bearer <token>` header; undefined when there is no such header. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const authorization = headerValue(request, 'authorization');
  if (!authorization) return undefined;
  const match = /^Bearer(?:\s+(.*))?$/i.exec(authorization.trim());
  return match ? (match[1] ?? '').trim() : undefined;
}

/**
 * Resolves the caller's session from the `user-session` header, the `x-session-id`
 * header or the httpOnly cookie (DESIGN.md §4). A state-changing request carried by
 * the cookie alone must come from our own origin: that is the CSRF defence.
 *
 * An /api request with `Authorization: Bearer <token>` is authenticated by that personal API token
 * alone (session headers and cookie are ignored); a token that does not hold is a 401 at once.
 * No cookie is involved, so no same-origin check applies. A read-only token's writes are refused
 * here, before anything else (body validation, the route) runs; the rest of a token's request runs
 * with its limits in reach of the access module (withTokenLimits, decision 042).
 */
export const sessionPlugin = fp<{ sessions: SessionStore; tokens: BearerTokenResolver; appUrl: string }>(
  async (app, { sessions, tokens, appUrl }) => {
    app.decorateRequest('session', null);
    const appOrigin = new URL(appUrl).origin;

    app.addHook('onRequest', async (request) => {
      // Tokens are for the API: a health check or a page of the app is never refused over one.
      const bearer = request.url.startsWith('/api/') ? bearerToken(request) : undefined;
      if (bearer !== undefined) {
        const resolved = bearer ? await tokens.resolve(bearer) : null;
        if (!resolved) throw unauthorized(BEARER_MESSAGES.invalid);
        assertTokenMayUse(resolved.limits, request.method);
        request.session = {
          ...resolved,
          via: 'token',
          sessionId: '',
          stillValid: async () => (await tokens.resolve(bearer)) !== null,
        };
        return;
      }
      const fromHeader = headerValue(request, SESSION_HEADER) || headerValue(request, SESSION_HEADER_ALT);
      const fromCookie = request.cookies[SESSION_COOKIE];
      const sessionId = fromHeader || fromCookie;
      if (!sessionId) return;
      // A read may take the session from the cache; a change asks the database (decision 023).
      const resolved = await sessions.resolve(sessionId, { fresh: !READ_METHODS.has(request.method) });
      if (!resolved) return;
      // No route (a 404 or a 405, which change nothing): those answers come first.
      const write = !READ_METHODS.has(request.method) && !request.is404;
      if (!fromHeader && write && !isSameOrigin(request, appOrigin)) {
        throw forbidden('Cross-site request refused.');
      }
      request.session = {
        ...resolved,
        via: 'session',
        sessionId,
        stillValid: async () => (await sessions.resolve(sessionId, { fresh: true })) !== null,
      };
    });

    // A token's request (here or MCP's, which authenticates itself) runs on, the handler and all it
    // awaits, inside its limits, where the access module reads them. A callback, not an async hook,
    // so what follows runs within it; a preHandler, after the body is read, whose stream events
    // would lose it.
    app.addHook('preHandler', (request, _reply, done) => {
      const limits = request.session?.limits;
      if (limits) withTokenLimits(limits, done);
      else done();
    });
  },
  { name: 'session', dependencies: ['@fastify/cookie'] },
);

function isSameOrigin(request: FastifyRequest, appOrigin: string): boolean {
  const origin = headerValue(request, 'origin') ?? headerValue(request, 'referer');
  if (!origin) return headerValue(request, 'sec-fetch-site') === 'same-origin';
  try {
    const { origin: requestOrigin, host } = new URL(origin);
    return requestOrigin === appOrigin || host === request.headers.host;
  } catch {
    return false;
  }
}

/** preHandler: the caller must be signed in. */
export async function requireUser(request: FastifyRequest): Promise<void> {
  if (!request.session) throw unauthorized();
}

/**
 * onRequest/preHandler for account-security routes (password, API tokens, sessions, and later
 * two-factor and passkeys): the caller must be signed in with a session; an API token gets 403.
 */
export async function requireSessionAuth(request: FastifyRequest): Promise<void> {
  if (!request.session) throw unauthorized();
  refuseApiToken(request);
}

/** Refuses an API token (403) and lets anything else through, for routes that answer 401 themselves. */
export async function refuseApiTokens(request: FastifyRequest): Promise<void> {
  refuseApiToken(request);
}

function refuseApiToken(request: FastifyRequest): void {
  if (request.session?.via === 'token') throw forbidden(BEARER_MESSAGES.sessionRequired);
}

/**
 * preHandler: the caller must be an administrator, with the whole of their powers: a token limited
 * to some projects (issue 24) does not administer the server's accounts.
 */
export async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (!request.session) throw unauthorized();
  if (!toBool(request.session.user.is_admin)) throw forbidden('Administrator access is required.');
  if (request.session.limits?.projectIds) throw forbidden(TOKEN_MESSAGES.projectLimited);
}

/** The signed-in user; only call behind requireUser. */
export function currentUser(request: FastifyRequest): UserRow {
  if (!request.session) throw unauthorized();
  return request.session.user;
}

export function setSessionCookie(reply: FastifyReply, sessionId: string, secure: boolean, maxAgeMs: number) {
  reply.setCookie(SESSION_COOKIE, sessionId, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    maxAge: Math.floor(maxAgeMs / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean) {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure });
}
