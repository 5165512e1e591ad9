import zlib from 'node:zlib';

export type ListEncoding = 'br' | 'gzip';

/** A serialised list, and its compressed forms once asked for (computed once, kept with it). */
export interface ListBody {
  /** The JSON's length in bytes. */
  size: number;
  json(): Buffer;
  encoded(encoding: ListEncoding): Buffer;
}

/** A list as one GET answers it: its body, and whether it came from the cache or was read anew. */
export type ListAnswer = ListBody & { cached: boolean };

/** Brotli at quality 4 (what @fastify/compress uses): a 200-task list in about a millisecond. */
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

/**
 * `keepJson: false`: once compressed, the JSON is let go and read back from the compressed form
 * when a client takes no compression (rare: browsers all do).
 */
export function listBody(
  json: Buffer,
  { keepJson = true, onEncoded }: { keepJson?: boolean; onEncoded?: (bytes: number) => void } = {},
): ListBody {
  let raw: Buffer | undefined = json;
  const encodings: Partial<Record<ListEncoding, Buffer>> = {};
  const body: ListBody = {
    size: json.length,
    json() {
      if (raw) return raw;
      if (encodings.br) return zlib.brotliDecompressSync(encodings.br);
      return zlib.gunzipSync(encodings.gzip!);
    },
    encoded(encoding) {
      let bytes = encodings[encoding];
      if (!bytes) {
        const source = body.json();
        bytes = encoding === 'br' ? zlib.brotliCompressSync(source, BROTLI) : zlib.gzipSync(source);
        encodings[encoding] = bytes;
        if (!keepJson) raw = undefined;
        onEncoded?.(bytes.length);
      }
      return bytes;
    },
  };
  return body;
}

/**
 * Serialised task lists, reused while the user's task version (bumped by database triggers on any
 * change to their tasks, see migration 0002) holds still. Listing 1,000 tasks costs milliseconds of
 * query, mapping and JSON; a version check costs one indexed read. Least recently used lists go
 * first once the cache holds more than `maxBytes` (compressed forms included). A list whose JSON is
 * over `maxEntryBytes` is kept in its compressed forms only, once it has been sent compressed: a
 * 10,000-task summary list is 3.3 MB of JSON but 64 KB in brotli, and reading and serialising it
 * again took 100 ms a GET (decision 030; decision 023 kept no such list at all).
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
      const large = json.length > maxEntryBytes || json.length > maxBytes;
      const entry = {
        version,
        bytes: large ? 0 : json.length,
        body: listBody(json, {
          keepJson: !large,
          onEncoded: (encoded) => {
            // A large list enters the cache with its first compressed form, unless a newer one is in.
            if (large && entry.bytes === 0) {
              const current = entries.get(key);
              if (encoded > maxEntryBytes || (current && current.version >= version)) return;
              drop(key);
              entries.set(key, entry);
            }
            if (entries.get(key) !== entry) return;
            entry.bytes += encoded;
            bytes += encoded;
            trim();
          },
        }),
      };
      if (large) return entry.body;
      entries.set(key, entry);
      bytes += json.length;
      trim();
      return entry.body;
    },

    bytes: () => bytes,
  };
}
