import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { SECURITY_HEADERS, setSecurityHeaders } from './security';

/**
 * An error whose message is safe to show: it leaves the server as `{message}` with its status, and
 * `body`'s fields after the message where the answer says more (a 412's current task, issue 31).
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Please sign in to continue.') => new HttpError(401, message);
export const forbidden = (message = 'You are not allowed to do that.') => new HttpError(403, message);
export const notFound = (what = 'Resource') => new HttpError(404, `${what} not found`);
export const conflict = (message: string) => new HttpError(409, message);
export const tooMany = (retryAfterSeconds: number) =>
  new HttpError(429, 'Too many attempts. Please wait a moment and try again.', {
    'Retry-After': String(retryAfterSeconds),
  });

export const DATABASE_UNAVAILABLE = 'The database is not answering. Please try again in a moment.';
/** Seconds a client waits before trying again while the database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);

/**
 * The database cannot be reached (PostgreSQL restarting, the network to it down): not a bug to
 * report as a 500, but a 503 the client may retry. SQLSTATE class 08 is "connection exception";
 * 57P01-57P03 are shutdowns and "cannot connect now"; node-postgres says the rest in words.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (
    typeof code === 'string' &&
    (UNREACHABLE_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code))
  ) {
    return true;
  }
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/i.test(
      message,
    )
  );
}

/** Messages for Fastify's own client errors, in plain words. */
const fastifyMessages: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty but says it is JSON.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported content type.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The request body length does not match its Content-Length.',
  FST_ERR_BAD_URL: 'This address is not valid.',
  FST_ERR_MAX_PARAM_LENGTH: 'This address is too long.',
};

/** Messages for what Node's HTTP parser refuses before Fastify sees a request. */
export const CLIENT_ERROR_MESSAGES = {
  headersTooLarge: 'The request headers are too large.',
  timeout: 'The request took too long to arrive.',
  invalid: 'This request is not valid.',
} as const;

/** Node's codes for a client error (its own default answer picks the status by them too). */
const clientErrorAnswers: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: CLIENT_ERROR_MESSAGES.headersTooLarge },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: CLIENT_ERROR_MESSAGES.timeout },
};

const SECURITY_HEADER_LINES = Object.entries(SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses (headers over its limit, a
 * request line or header that is not HTTP, a bad Content-Length, a request too slow to arrive)
 * never becomes a request, so no hook or handler runs. Written to the socket as Fastify's default
 * does, but as `{message}` with the usual security headers, and the connection closed.
 */
export function answerClientError(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Socket,
): void {
  // A reset connection is already gone: nothing to answer (https://nodejs.org/api/http.html#event-clienterror).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = clientErrorAnswers[error.code ?? ''] ?? {
    status: 400,
    message: CLIENT_ERROR_MESSAGES.invalid,
  };
  this.log.trace({ err: error }, 'client error');
  // As Node: not once an answer to an earlier request on this connection has begun, which this
  // one would corrupt.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify({ message });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `content-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        'connection: close\r\n' +
        SECURITY_HEADER_LINES +
        `\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * The one error handler: every error leaves as JSON `{message}` with the right status.
 * Anything unexpected is logged and answered with a generic 500 that reveals nothing.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler(answerError);
}

/**
 * Fastify's `frameworkErrors`: the router's own errors (a path that cannot be decoded, a parameter
 * over its length), raised before any hook runs, get the same answer and headers as the rest.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  setSecurityHeaders(reply);
  return answerError(error, request, reply);
}

function answerError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof HttpError) {
    return reply
      .code(error.statusCode)
      .headers(error.headers)
      .send({ message: error.message, ...error.body });
  }
  // An id in the path that cannot be one names nothing that exists: 404, as for an unknown id.
  if ((error as { validationContext?: string }).validationContext === 'params') {
    return reply.code(404).send({ message: 'Not found: there is nothing with that id.' });
  }
  if (error instanceof ZodError) {
    return reply.code(400).send({ message: error.issues[0]?.message ?? 'Invalid request.' });
  }
  const status = (error as FastifyError).statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = (error as FastifyError).code ?? '';
    const message = fastifyMessages[code] ?? error.message;
    if (status === 429) reply.header('Retry-After', reply.getHeader('retry-after') ?? '60');
    return reply.code(status).send({ message });
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ code: (error as { code?: string }).code }, 'database unavailable');
    return reply
      .code(503)
      .header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS))
      .send({ message: DATABASE_UNAVAILABLE });
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send({ message: 'Something went wrong on our side. Please try again.' });
}
