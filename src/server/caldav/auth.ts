import type { FastifyRequest } from 'fastify';
import { CALDAV_MESSAGES, CALDAV_REALM } from '../../common/caldav';
import type { LoginGuard } from '../auth/login-guard';
import type { UserRow } from '../db/schema';
import { HttpError } from '../http/errors';
import type { BearerTokenResolver } from '../http/session';
import type { DavCaller } from './types';

/** Every 401 names the scheme and realm, so clients ask for the username and app password. */
export const davUnauthorized = () =>
  new HttpError(401, CALDAV_MESSAGES.signIn, { 'WWW-Authenticate': `Basic realm="${CALDAV_REALM}"` });

/** `Authorization: Basic base64(username:password)` (RFC 7617); null when absent or not Basic. */
export function basicCredentials(request: FastifyRequest): { username: string; password: string } | null {
  const header = request.headers.authorization;
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export interface DavAuthDeps {
  tokens: BearerTokenResolver;
  /** The sign-in limits: a wrong app password counts as a wrong password does at sign-in. */
  loginGuard: LoginGuard;
}

/**
 * HTTP Basic with the username and a personal API token as the password (issue 30). An account
 * password is never accepted: a second factor or single sign-on could not be asked for here. A
 * request without credentials is a client's usual first step and counts nothing; wrong ones count
 * against the same limits as sign-in (429 with Retry-After once over).
 */
export async function authenticateDav(
  request: FastifyRequest,
  { tokens, loginGuard }: DavAuthDeps,
): Promise<{ caller: DavCaller; user: UserRow; idHash: string }> {
  const credentials = basicCredentials(request);
  if (!credentials) throw davUnauthorized();
  const { username, password } = credentials;
  await loginGuard.check(username, request.ip);
  const resolved = await tokens.resolve(password);
  if (!resolved || resolved.user.username.toLowerCase() !== username.toLowerCase()) {
    await loginGuard.fail(username, request.ip);
    throw davUnauthorized();
  }
  await loginGuard.succeed(username, request.ip);
  const { user, limits, idHash } = resolved;
  return { caller: { userId: user.id, username: user.username, limits }, user, idHash };
}
