import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where file contents live. One interface, shaped so an S3-compatible driver can follow:
 * keys are opaque generated names, contents go in and out as streams.
 */
export interface FileStore {
  /**
   * Streams `source` into the store under a new generated key and returns it with the byte count.
   * The content lands under its key only once complete; on any error nothing is left behind.
   */
  put(source: Readable): Promise<{ key: string; size: number }>;
  get(key: string): Promise<Readable>;
  /** Removes a stored file; a missing one is not an error. */
  remove(key: string): Promise<void>;
  /** Clears leftovers of uploads interrupted by a crash. */
  sweepIncomplete(): Promise<void>;
}

const KEY_PATTERN = /^[a-f0-9]{32}$/;

/** Local disk driver: DATA_DIR/files/<key>, with partial uploads in DATA_DIR/files/.incoming. */
export function createDiskFileStore(root: string): FileStore {
  const incoming = path.join(root, '.incoming');
  fs.mkdirSync(incoming, { recursive: true });
  const pathOf = (key: string) => {
    if (!KEY_PATTERN.test(key)) throw new Error('invalid storage key');
    return path.join(root, key);
  };

  return {
    async put(source) {
      const key = crypto.randomBytes(16).toString('hex');
      const temporary = path.join(incoming, key);
      let size = 0;
      source.on('data', (chunk: Buffer) => {
        size += chunk.length;
      });
      try {
        await pipeline(source, fs.createWriteStream(temporary, { flags: 'wx', mode: 0o600 }));
        await fsp.rename(temporary, pathOf(key));
      } catch (error) {
        await fsp.rm(temporary, { force: true });
        throw error;
      }
      return { key, size };
    },

    async get(key) {
      const file = pathOf(key);
      await fsp.access(file);
      return fs.createReadStream(file);
    },

    async remove(key) {
      await fsp.rm(pathOf(key), { force: true });
    },

    async sweepIncomplete() {
      for (const name of await fsp.readdir(incoming)) {
        await fsp.rm(path.join(incoming, name), { force: true });
      }
    },
  };
}
