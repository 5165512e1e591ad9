import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { SESSION_HEADER, SESSION_HEADER_ALT } from '../../common/spec';
import type { SessionStore } from '../auth/sessions';
import type { UserRow } from '../db/schema';
import { toBool } from '../db/values';
import { forbidden, unauthorized } from './errors';

export const SESSION_COOKIE = 'tasklane_session';

export interface RequestSession {
  user: UserRow;
  idHash: string;
  sessionId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    session: RequestSession | null;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Resolves the caller's session from the `user-session` header, the `x-session-id`
 * header or the httpOnly cookie (DESIGN.md §4). A state-changing request carried by
 * the cookie alone must come from our own origin: that is the CSRF defence.
 */
export const sessionPlugin = fp<{ sessions: SessionStore; appUrl: string }>(
  async (app, { sessions, appUrl }) => {
    app.decorateRequest('session', null);
    const appOrigin = new URL(appUrl).origin;

    app.addHook('onRequest', async (request) => {
      const fromHeader = headerValue(request, SESSION_HEADER) || headerValue(request, SESSION_HEADER_ALT);
      const fromCookie = request.cookies[SESSION_COOKIE];
      const sessionId = fromHeader || fromCookie;
      if (!sessionId) return;
      const resolved = await sessions.resolve(sessionId);
      if (!resolved) return;
      if (!fromHeader && !SAFE_METHODS.has(request.method) && !isSameOrigin(request, appOrigin)) {
        throw forbidden('Cross-site request refused.');
      }
      request.session = { ...resolved, sessionId };
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

/** preHandler: the caller must be an administrator. */
export async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (!request.session) throw unauthorized();
  if (!toBool(request.session.user.is_admin)) throw forbidden('Administrator access is required.');
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
