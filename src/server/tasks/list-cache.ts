/**
 * Serialised task lists, reused while the user's task version (bumped by database triggers on any
 * change to their tasks, see migration 0002) holds still. Listing 1,000 tasks costs milliseconds of
 * query, mapping and JSON; a version check costs one indexed read. Least recently used lists go
 * first once the cache holds more than `maxBytes`.
 */
export function createListCache(maxBytes: number) {
  const entries = new Map<string, { version: number; body: Buffer }>();
  let bytes = 0;

  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    bytes -= entry.body.length;
    entries.delete(key);
  };

  return {
    get(key: string, version: number): Buffer | undefined {
      const entry = entries.get(key);
      if (!entry || entry.version !== version) return undefined;
      // Re-inserted to mark it most recently used: a Map iterates in insertion order.
      entries.delete(key);
      entries.set(key, entry);
      return entry.body;
    },

    set(key: string, version: number, body: Buffer): void {
      drop(key);
      if (body.length > maxBytes) return;
      entries.set(key, { version, body });
      bytes += body.length;
      for (const oldest of entries.keys()) {
        if (bytes <= maxBytes) break;
        drop(oldest);
      }
    },
  };
}
