import { SESSION_HEADER, type SESSION_HEADER_ALT } from '../../common/spec';
import { reportUnreachable } from './connection';
import { clearSession, getSession } from './session';

export type RequestOptions = {
  /** The header that carries the session id: most calls use user-session, a few x-session-id (spec §7). */
  sessionHeader?: typeof SESSION_HEADER | typeof SESSION_HEADER_ALT;
  /** False where the server answers 401 for a wrong password rather than for an ended session. */
  signOutOn401?: boolean;
  signal?: AbortSignal;
  /** Extra request headers (issue 31: Idempotency-Key, If-Match). */
  headers?: Record<string, string>;
};

/**
 * Calls the API with the session and cookies. Resolves with the response when it is OK; otherwise
 * rejects with `Error("<status>: <body or status text>")` (spec §8). A network failure rejects with
 * fetch's own TypeError. A FormData body is sent as multipart, any other body as JSON.
 */
export async function apiRequest(
  method: string,
  url: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<Response> {
  const sessionId = getSession()?.sessionId;
  const headers: Record<string, string> = { ...options.headers };
  if (sessionId) headers[options.sessionHeader ?? SESSION_HEADER] = sessionId;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) {
    payload = body;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: payload,
      credentials: 'include',
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof TypeError) reportUnreachable();
    throw error;
  }
  if (res.ok) return res;
  if (res.status === 503) reportUnreachable();
  // The session expired or was ended elsewhere, so the login screen must show. Only the session that
  // made the request is cleared: a late answer must not sign out a session started since.
  if (
    res.status === 401 &&
    sessionId &&
    options.signOutOn401 !== false &&
    getSession()?.sessionId === sessionId
  ) {
    clearSession();
  }
  throw new Error(`${res.status}: ${(await res.text()) || res.statusText}`);
}

const FAILED_RESPONSE = /^(\d{3}): ([\s\S]*)$/;

/** The HTTP status of an error thrown by apiRequest, if it is one. */
export function errorStatus(error: unknown): number | undefined {
  const match = error instanceof Error ? FAILED_RESPONSE.exec(error.message) : null;
  return match ? Number(match[1]) : undefined;
}

/** The server's own `{message}` from an error thrown by apiRequest, if it sent one. */
export function serverMessage(error: unknown): string | undefined {
  const match = error instanceof Error ? FAILED_RESPONSE.exec(error.message) : null;
  if (!match) return undefined;
  try {
    const body: unknown = JSON.parse(match[2]!);
    if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string') {
      return body.message || undefined;
    }
  } catch {
    // Not JSON (a proxy's error page, say): the caller's own copy is better than raw markup.
  }
  return undefined;
}

/** What to tell the person after a failed call: the server's message when it sent one, else the given copy. */
export function errorMessage(error: unknown, fallback: string, networkFallback = fallback): string {
  if (error instanceof TypeError) return networkFallback;
  return serverMessage(error) ?? fallback;
}
