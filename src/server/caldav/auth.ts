import type { FastifyRequest } from 'fastify';
import { CALDAV_MESSAGES, CALDAV_REALM } from '../../common/caldav';
import type { LoginGuard } from '../auth/login-guard';
import type { UserRow } from '../db/schema';
import { HttpError } from '../http/errors';
import type { BearerTokenResolver } from '../http/session';
import type { DavCaller } from './types';

/** Every 401 names the scheme and realm, so clients ask for the username and app password. */
const davUnauthorized = () =>
  new HttpError(401, CALDAV_MESSAGES.signIn, { 'WWW-Authenticate': `Basic realm="${CALDAV_REALM}"` });

/** `Authorization: Basic base64(username:password)` (RFC 7617); null when absent or not Basic. */
function basicCredentials(request: FastifyRequest): { username: string; password: string } | null {
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

export interface DavSignIn {
  caller: DavCaller;
  user: UserRow;
  /** The sign-in limits forgetting this account's failures from this address: awaited before answering. */
  forgotten: Promise<void>;
}

/**
 * HTTP Basic with the username and a personal API token as the password (issue 30). An account
 * password is never accepted: a second factor or single sign-on could not be asked for here. A
 * request without credentials is a client's usual first step and counts nothing; wrong ones count
 * against the same limits as sign-in (429 with Retry-After once over).
 *
 * A sync client signs in on every request, so the limits are asked while the token is looked up
 * (an answer over the limit is a 429 whatever the token), and their failures are forgotten while
 * the request is served: a sync with nothing new stays under 20 ms on PostgreSQL.
 */
export async function authenticateDav(
  request: FastifyRequest,
  { tokens, loginGuard }: DavAuthDeps,
): Promise<DavSignIn> {
  const credentials = basicCredentials(request);
  if (!credentials) throw davUnauthorized();
  const { username, password } = credentials;
  const [, resolved] = await Promise.all([loginGuard.check(username, request.ip), tokens.resolve(password)]);
  if (!resolved || resolved.user.username.toLowerCase() !== username.toLowerCase()) {
    await loginGuard.fail(username, request.ip);
    throw davUnauthorized();
  }
  const { user, limits } = resolved;
  const forgotten = loginGuard.succeed(username, request.ip);
  // Awaited before the answer is sent (routes.ts, onSend); handled now, as the request may fail
  // first.
  forgotten.catch(() => {});
  return { caller: { userId: user.id, username: user.username, limits }, user, forgotten };
}
