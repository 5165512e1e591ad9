import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { HttpError } from './errors';

export const ROUTING_MESSAGES = {
  notFound: 'Nothing is served at this address.',
  methodNotAllowed: 'This address does not take that method: its Allow header names those it does.',
} as const;

/**
 * Answers what no route serves (decision 028): a page of the app loads
 * the SPA; a path some route serves with other methods is a 405 naming them in `Allow`
 * (RFC 9110 §15.5.6); anything else is a 404. Neither echoes the path, which the caller chose.
 *
 * Which methods a path is served with is asked of a second find-my-way (Fastify's own router)
 * holding the same routes with the same options, as Fastify's router does not say. OPTIONS is no
 * exception: the app serves no cross-origin callers, so it is a method like any it does not serve.
 */
export function registerFallback(app: FastifyInstance, { hasClient }: { hasClient: boolean }): void {
  const { caseSensitive, ignoreTrailingSlash, ignoreDuplicateSlashes, maxParamLength } = app.initialConfig;
  const router = FindMyWay({ caseSensitive, ignoreTrailingSlash, ignoreDuplicateSlashes, maxParamLength });
  const methods = new Set<HTTPMethod>();
  const nothing = () => {};
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat() as HTTPMethod[]) {
      router.on(method, route.url, nothing);
      methods.add(method);
    }
  });
  const servedWith = (url: string) =>
    [...methods].filter((method) => router.find(method, url) !== null).sort();

  app.setNotFoundHandler((request, reply) => {
    if (hasClient && isPageRequest(request)) {
      return reply.header('Cache-Control', 'no-cache').sendFile('index.html');
    }
    const allow = servedWith(request.url);
    // A route that serves this method and found nothing (a missing static file) is a plain 404.
    if (allow.length > 0 && !allow.includes(request.method as HTTPMethod))
      throw new HttpError(405, ROUTING_MESSAGES.methodNotAllowed, { Allow: allow.join(', ') });
    throw new HttpError(404, ROUTING_MESSAGES.notFound);
  });
}

/** First path segments that are never pages: the API, the MCP endpoint (decision 021), the built assets. */
const NOT_PAGES = new Set(['api', 'mcp', 'assets']);

/**
 * A GET or HEAD of what could be a page of the SPA, which routes its own (/archive,
 * /reset-password/<token>, its own page for unknown ones). Not the API or the MCP endpoint, nor a
 * file: a path with a dot in it (favicon.ico, a missing asset, anything under /.well-known/, where
 * an MCP client asks after a 401 and must not be handed HTML) or under /assets/.
 */
function isPageRequest(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const pathname = request.url.split('?')[0] ?? '/';
  const [first = ''] = pathname.split('/').slice(1);
  return !NOT_PAGES.has(first) && !pathname.includes('.');
}
