import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import type { Db } from '../db';
import type { FileStore } from '../files/store';
import {
  AI_KEY_MEMBER,
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  type ArchiveTables,
  type FileProgress,
  fileMember,
  isGzipName,
  MANIFEST_MEMBER,
  type Manifest,
  type ManifestMember,
  orderColumn,
  sha256,
  sha256Meter,
  summarize,
  TABLES,
  TransferError,
  type TransferSummary,
  tableMember,
  toArchiveRow,
} from './archive';

export interface ExportOptions {
  db: Db;
  store: FileStore;
  /** The source's AI key (loadAiKey), so an import can re-seal users' API keys with its own. */
  aiKey: Buffer;
  /** The archive to write; gzipped when it ends in .gz or .tgz. */
  file: string;
  onProgress?: (progress: FileProgress) => void;
}

/**
 * Writes the whole instance into one archive (./archive.ts), streaming each file from the store.
 * The archive appears under its name only once complete: it is written beside it and renamed.
 */
export async function exportArchive({
  db,
  store,
  aiKey,
  file,
  onProgress,
}: ExportOptions): Promise<TransferSummary> {
  const startedAt = performance.now();
  const tables = await readTables(db);
  if (tables.users.length === 0) {
    throw new TransferError(
      'the instance has no users, so there is nothing to export: check DATA_DIR or DATABASE_URL',
    );
  }
  const partial = `${file}.partial`;
  const pack = tar.pack();
  // tar-stream's streams are streamx streams, which node's pipeline drives (pipe, events, destroy)
  // though their types are streamx's own.
  const packed = pack as unknown as Readable;
  // Owner-only, like DATA_DIR's key file: the archive holds password hashes and the AI key.
  const output = fs.createWriteStream(partial, { mode: 0o600 });
  const writing = isGzipName(file) ? pipeline(packed, zlib.createGzip(), output) : pipeline(packed, output);
  // Awaited once every member is in; a write failing before then must not count as unhandled.
  writing.catch(() => {});
  const members: ManifestMember[] = [];
  const write = (name: string, content: Buffer) =>
    new Promise<void>((resolve, reject) =>
      pack.entry({ name, size: content.length }, content, (error) => (error ? reject(error) : resolve())),
    );
  const addBuffer = (name: string, content: Buffer) => {
    members.push({ name, size: content.length, sha256: sha256(content) });
    return write(name, content);
  };

  try {
    for (const table of TABLES)
      await addBuffer(tableMember(table), Buffer.from(JSON.stringify(tables[table])));
    let bytes = 0;
    for (const [index, row] of tables.files.entries()) {
      const source = await store.get(row.storage_key);
      if (!source) {
        throw new TransferError(
          `file ${row.id} ("${row.original_name}", task ${row.task_id}) is missing from the file store; ` +
            'restore it, or delete it in the app, then export again',
        );
      }
      const name = fileMember(row.id);
      const meter = sha256Meter();
      try {
        await pipeline(
          source,
          meter.through,
          pack.entry({ name, size: row.file_size }) as unknown as Writable,
        );
      } catch (error) {
        throw new TransferError(
          `could not export file ${row.id} ("${row.original_name}"): ${error instanceof Error ? error.message : error}`,
        );
      }
      members.push({ name, size: meter.bytes(), sha256: meter.digest() });
      bytes += meter.bytes();
      onProgress?.({ files: index + 1, totalFiles: tables.files.length, bytes });
    }
    await addBuffer(AI_KEY_MEMBER, aiKey);
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      createdAt: new Date().toISOString(),
      members,
    };
    await write(MANIFEST_MEMBER, Buffer.from(JSON.stringify(manifest, null, 2)));
    pack.finalize();
    await writing;
    await fsp.rename(partial, file);
  } catch (error) {
    pack.destroy();
    await writing.catch(() => {});
    await fsp.rm(partial, { force: true });
    throw error;
  }
  return summarize(tables, startedAt);
}

/** Every table from one snapshot (on SQLite the exclusive lock already keeps every writer out). */
function readTables(db: Db): Promise<ArchiveTables> {
  return db.kysely
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const tables: Partial<Record<keyof ArchiveTables, unknown[]>> = {};
      for (const table of TABLES) {
        const rows = await trx.selectFrom(table).selectAll().orderBy(orderColumn(table)).execute();
        tables[table] = rows.map((row) => toArchiveRow(table, row));
      }
      return tables as ArchiveTables;
    });
}
