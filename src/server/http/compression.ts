import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Answers smaller than this go as they are: compressing them saves less than it costs. */
export const COMPRESS_THRESHOLD = 1024;

/**
 * Types worth compressing: text (but never an event stream, which must reach the browser event by
 * event), JSON and XML. Not octet-stream, unlike @fastify/compress's default: an uploaded file is
 * usually compressed already, and a download keeps its length and byte ranges.
 */
const COMPRESSIBLE = /^text\/(?!event-stream)|(?:\+|\/)json(?:;|$)|(?:\+|\/)text(?:;|$)|(?:\+|\/)xml(?:;|$)/u;

/**
 * Brotli or gzip for answers of a kilobyte or more when the client accepts it (decision 023).
 * The built client's files come precompressed (scripts/compress-client.mjs): @fastify/static sends
 * the .br or .gz beside them with its Content-Encoding, which this leaves alone, as it does
 * hijacked answers (the event streams) and partial content.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    // Request bodies come as they are: no client of ours compresses them, and the hook that would
    // look for it runs on every request.
    globalDecompression: false,
    encodings: ['br', 'gzip'],
    threshold: COMPRESS_THRESHOLD,
    customTypes: COMPRESSIBLE,
  });
}

/** The encoding to answer in for an Accept-Encoding header: br, then gzip, else none. */
export function preferredEncoding(header: string | string[] | undefined): 'br' | 'gzip' | null {
  if (!header) return null;
  const value = Array.isArray(header) ? header.join(',') : header;
  let gzip = false;
  for (const part of value.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const refused = params.some((p) => /^\s*q\s*=\s*0(?:\.0*)?\s*$/.test(p));
    if (refused) continue;
    if (name === 'br') return 'br';
    if (name === 'gzip' || name === '*') gzip = true;
  }
  return gzip ? 'gzip' : null;
}
