import zlib from 'node:zlib';

export type ListEncoding = 'br' | 'gzip';

/** A serialised list, and its compressed forms once asked for (computed once, kept with it). */
export interface ListBody {
  json: Buffer;
  encoded(encoding: ListEncoding): Buffer;
}

/** Brotli at quality 4 (what @fastify/compress uses): a 200-task list in about a millisecond. */
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

export function listBody(json: Buffer, onEncoded?: (bytes: number) => void): ListBody {
  const encodings: Partial<Record<ListEncoding, Buffer>> = {};
  return {
    json,
    encoded(encoding) {
      let bytes = encodings[encoding];
      if (!bytes) {
        bytes = encoding === 'br' ? zlib.brotliCompressSync(json, BROTLI) : zlib.gzipSync(json);
        encodings[encoding] = bytes;
        onEncoded?.(bytes.length);
      }
      return bytes;
    },
  };
}

/**
 * Serialised task lists, reused while the user's task version (bumped by database triggers on any
 * change to their tasks, see migration 0002) holds still. Listing 1,000 tasks costs milliseconds of
 * query, mapping and JSON; a version check costs one indexed read. Least recently used lists go
 * first once the cache holds more than `maxBytes` (compressed forms included). A list over
 * `maxEntryBytes` is not kept: the few people with ten thousand tasks pay a query per GET rather than
 * every instance holding megabytes that idle memory would show (decision 023).
 */
export function createListCache(maxBytes: number, maxEntryBytes = maxBytes) {
  const entries = new Map<string, { version: number; body: ListBody; bytes: number }>();
  let bytes = 0;

  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    bytes -= entry.bytes;
    entries.delete(key);
  };
  const trim = () => {
    for (const oldest of entries.keys()) {
      if (bytes <= maxBytes) break;
      drop(oldest);
    }
  };

  return {
    get(key: string, version: number): ListBody | undefined {
      const entry = entries.get(key);
      if (!entry || entry.version !== version) return undefined;
      // Re-inserted to mark it most recently used: a Map iterates in insertion order.
      entries.delete(key);
      entries.set(key, entry);
      return entry.body;
    },

    /** The list as a ListBody, kept when it fits. */
    set(key: string, version: number, json: Buffer): ListBody {
      drop(key);
      if (json.length > maxEntryBytes || json.length > maxBytes) return listBody(json);
      const entry = {
        version,
        bytes: json.length,
        body: listBody(json, (encoded) => {
          if (entries.get(key) !== entry) return;
          entry.bytes += encoded;
          bytes += encoded;
          trim();
        }),
      };
      entries.set(key, entry);
      bytes += json.length;
      trim();
      return entry.body;
    },

    bytes: () => bytes,
  };
}
