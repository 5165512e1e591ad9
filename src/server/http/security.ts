import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The Content-Security-Policy (DESIGN.md §4, decision 006). Scripts only from our origin; styles
 * also inline, because Radix and the drag-and-drop library set style elements at run time;
 * confetti draws in a worker started from a blob URL; the offline service worker (/sw.js) and the
 * web app manifest come from our origin (decision 020).
 */
const CONTENT_SECURITY_POLICY: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'worker-src': ["'self'", 'blob:'],
  'manifest-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * Every answer's security headers, the same set and values helmet sent (decision 023): computed
 * once, as nothing in them depends on the request. No Strict-Transport-Security: plain HTTP on
 * localhost is the default deployment, and HSTS belongs to the TLS proxy. No
 * Cross-Origin-Embedder-Policy, which would keep out images the app does not own.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': Object.entries(CONTENT_SECURITY_POLICY)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join(';'),
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

const HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

/**
 * Set first thing on every request, so a route may still replace one (a download's own CSP) and a
 * hijacked reply (the live stream) finds them on the reply to copy.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (_request, reply, done) => {
    setSecurityHeaders(reply);
    done();
  });
}

/** For answers given before any hook runs (http/errors.ts, the router's own errors). */
export function setSecurityHeaders(reply: FastifyReply): void {
  for (const [name, value] of HEADER_ENTRIES) reply.header(name, value);
}

/**
 * Takes the raw response over from Fastify (a stream, the MCP transport) keeping the headers the
 * hooks set on the reply (the security headers among them), which a hijacked reply does not send.
 * Headers given later to `writeHead` are added to them or replace them.
 */
export function hijackKeepingHeaders(reply: FastifyReply): ServerResponse {
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) res.setHeader(name, value);
  }
  return res;
}
