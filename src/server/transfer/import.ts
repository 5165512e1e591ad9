import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { type Kysely, sql } from 'kysely';
import tar from 'tar-stream';
import { DEFAULT_PROJECT_COLOR, INBOX_NAME } from '../../common/projects';
import { AI_KEY_BYTES, type SecretBox, secretBoxWithKey } from '../agents/crypto';
import type { Db } from '../db';
import type { Database } from '../db/schema';
import type { FileStore } from '../files/store';
import {
  AI_KEY_MEMBER,
  type ArchiveRow,
  type ArchiveTables,
  FILE_MEMBER,
  type FileProgress,
  ID_TABLES,
  LATER_TABLES,
  MANIFEST_MEMBER,
  parseManifest,
  parseRows,
  sha256,
  sha256Meter,
  summarize,
  TABLE_MEMBER,
  TABLES,
  TransferError,
  type TransferSummary,
  tableMember,
} from './archive';

export interface ImportOptions {
  db: Db;
  store: FileStore;
  /** The target's own box: users' API keys are re-sealed with it. */
  secrets: SecretBox;
  /** The archive to read, gzipped or not. */
  file: string;
  onProgress?: (progress: FileProgress) => void;
}

export interface ImportSummary extends TransferSummary {
  /** Users' API keys the source could not read either (sealed under an older secret): carried as they were. */
  unreadableAiKeys: number;
}

/** Rows per INSERT: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters at 15 columns. */
const INSERT_BATCH = 500;

/**
 * Loads an archive (./archive.ts) into an empty instance, all or nothing: file bytes stream into the
 * store as they come, every checksum is verified once the manifest (last) is read, then every row is
 * inserted in one transaction. Any failure removes the stored files again and leaves no row.
 */
export async function importArchive({
  db,
  store,
  secrets,
  file,
  onProgress,
}: ImportOptions): Promise<ImportSummary> {
  const startedAt = performance.now();
  await assertEmpty(db.kysely);
  const stored = new Map<number, StoredFile>();
  try {
    const members = await readArchive(file, store, stored, onProgress);
    const tables = verify(members, stored);
    const { rows: credentials, unreadable } = reseal(
      tables.ai_credentials,
      members.buffers.get(AI_KEY_MEMBER)!,
      secrets,
    );
    await insert(db, {
      ...tables,
      // The target store chose its own keys; verify() checked every row has its bytes.
      files: tables.files.map((row) => ({ ...row, storage_key: stored.get(row.id)!.key })),
      ai_credentials: credentials,
    });
    return { ...summarize(tables, startedAt), unreadableAiKeys: unreadable };
  } catch (error) {
    // Best effort: an object left behind here is claimed by no row, so the periodic sweep removes it.
    for (const { key } of stored.values()) await store.remove(key).catch(() => {});
    throw error;
  }
}

interface StoredFile {
  key: string;
  size: number;
}

interface ArchiveMembers {
  /** Size and SHA-256 of every member but the manifest, as read. */
  digests: Map<string, { size: number; sha256: string }>;
  /** The members held in memory: the manifest, the tables and the AI key. */
  buffers: Map<string, Buffer>;
}

/** Reads every member once: files stream into the store (recorded in `stored`), the rest into memory. */
async function readArchive(
  file: string,
  store: FileStore,
  stored: Map<number, StoredFile>,
  onProgress: ImportOptions['onProgress'],
): Promise<ArchiveMembers> {
  const gzipped = await startsWithGzipMagic(file);
  const input = fs.createReadStream(file);
  const gunzip = gzipped ? zlib.createGunzip() : undefined;
  const extract = tar.extract();
  // tar-stream's streams are streamx streams, which node's pipeline drives (pipe, events, destroy)
  // though their types are streamx's own.
  const extracting = extract as unknown as Writable;
  // The archive's own failures (not a tar, cut short, bad gzip) are told apart from the store's.
  let damage: Error | undefined;
  const recordDamage = (error: Error) => {
    damage ??= error;
  };
  input.on('error', recordDamage);
  gunzip?.on('error', recordDamage);
  extract.on('error', recordDamage);
  const reading = gunzip ? pipeline(input, gunzip, extracting) : pipeline(input, extracting);
  // Awaited after the last entry; a failure before then surfaces through the entries first.
  reading.catch(() => {});
  const digests = new Map<string, { size: number; sha256: string }>();
  const buffers = new Map<string, Buffer>();
  let bytes = 0;
  try {
    for await (const entry of extract) {
      const { name, type } = entry.header;
      // Entries carry Buffers; streamx types their chunks as unknown.
      const content = entry as AsyncIterable<Buffer>;
      if (type !== 'file') throw new TransferError(`the archive holds an unexpected ${type} entry, ${name}`);
      if (digests.has(name) || buffers.has(name))
        throw new TransferError(`${name} appears twice in the archive`);
      const fileId = FILE_MEMBER.exec(name)?.[1];
      if (fileId) {
        const meter = sha256Meter();
        const { key, size } = await store.put(Readable.from(meter.through(content)));
        stored.set(Number(fileId), { key, size });
        digests.set(name, { size, sha256: meter.digest() });
        bytes += size;
        onProgress?.({ files: stored.size, bytes });
        continue;
      }
      if (name !== MANIFEST_MEMBER && name !== AI_KEY_MEMBER && !isTableMember(name)) {
        throw new TransferError(`the archive holds ${name}, which is not part of a Tasklane export`);
      }
      const chunks: Buffer[] = [];
      for await (const chunk of content) chunks.push(chunk);
      const buffer = Buffer.concat(chunks);
      buffers.set(name, buffer);
      if (name !== MANIFEST_MEMBER) digests.set(name, { size: buffer.length, sha256: sha256(buffer) });
    }
    await reading;
  } catch (error) {
    const cause = damage;
    extract.destroy();
    await reading.catch(() => {});
    if (cause && !(error instanceof TransferError)) {
      throw new TransferError(`${file} is not a complete Tasklane archive (${cause.message})`);
    }
    throw error;
  }
  return { digests, buffers };
}

async function startsWithGzipMagic(file: string): Promise<boolean> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, 'r');
  } catch (error) {
    throw new TransferError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

const isTableMember = (name: string): boolean =>
  TABLES.some((table) => TABLE_MEMBER.exec(name)?.[1] === table);

/** Every member matches the manifest, then every table parses and every files row has its bytes. */
function verify({ digests, buffers }: ArchiveMembers, stored: Map<number, StoredFile>): ArchiveTables {
  const manifestContent = buffers.get(MANIFEST_MEMBER);
  if (!manifestContent)
    throw new TransferError(`the archive has no ${MANIFEST_MEMBER}: it is not a Tasklane export`);
  const listed = new Map(parseManifest(manifestContent).members.map((member) => [member.name, member]));
  for (const [name, actual] of digests) {
    const expected = listed.get(name);
    if (!expected) throw new TransferError(`${name} is in the archive but not in its manifest`);
    if (expected.size !== actual.size || expected.sha256 !== actual.sha256) {
      throw new TransferError(
        `checksum mismatch for ${name}: the archive was damaged or altered; nothing was imported`,
      );
    }
  }
  for (const name of listed.keys()) {
    if (!digests.has(name))
      throw new TransferError(`${name} is listed in the manifest but missing from the archive`);
  }
  const required = TABLES.filter((table) => !LATER_TABLES.has(table));
  for (const name of [...required.map(tableMember), AI_KEY_MEMBER]) {
    if (!buffers.has(name))
      throw new TransferError(`the archive has no ${name}: it is not a complete Tasklane export`);
  }

  const tables = Object.fromEntries(
    TABLES.map((table) => {
      const content = buffers.get(tableMember(table));
      return [table, content ? parseRows(table, content) : []];
    }),
  ) as ArchiveTables;
  for (const row of tables.files) {
    const bytes = stored.get(row.id);
    if (!bytes)
      throw new TransferError(`file ${row.id} ("${row.original_name}") has no bytes in the archive`);
    if (bytes.size !== row.file_size) {
      throw new TransferError(
        `file ${row.id} holds ${bytes.size} bytes in the archive, its row says ${row.file_size}`,
      );
    }
  }
  const rowIds = new Set(tables.files.map((row) => row.id));
  for (const id of stored.keys()) {
    if (!rowIds.has(id)) throw new TransferError(`the archive holds bytes for file ${id}, which has no row`);
  }
  return withInboxes(tables);
}

/**
 * An archive from before projects: each of its users gets the Inbox every user has (made at their
 * account's creation), and each task goes into its creator's. In a later archive every task names
 * its project.
 */
function withInboxes(tables: ArchiveTables): ArchiveTables {
  if (tables.projects.length > 0) {
    const task = tables.tasks.find((row) => row.project_id === null);
    if (task) throw new TransferError(`task ${task.id} in the archive names no project`);
    return tables;
  }
  const inboxes = new Map(tables.users.map((user, index) => [user.id, index + 1]));
  return {
    ...tables,
    projects: tables.users.map((user) => ({
      id: inboxes.get(user.id)!,
      name: INBOX_NAME,
      color: DEFAULT_PROJECT_COLOR,
      owner_id: user.id,
      is_inbox: true,
      archived: false,
      created_at: user.created_at,
      updated_at: user.created_at,
    })),
    project_members: tables.users.map((user) => ({
      project_id: inboxes.get(user.id)!,
      user_id: user.id,
      role: 'owner',
      added_at: user.created_at,
    })),
    tasks: tables.tasks.map((row) => ({
      ...row,
      project_id: row.project_id ?? inboxes.get(row.user_id) ?? null,
    })),
  };
}

/** Opens each user's API key with the source's key from the archive and seals it with the target's own. */
function reseal(rows: ArchiveRow<'ai_credentials'>[], sourceKey: Buffer, target: SecretBox) {
  if (sourceKey.length !== AI_KEY_BYTES) {
    throw new TransferError(`${AI_KEY_MEMBER} in the archive does not hold a ${AI_KEY_BYTES}-byte key`);
  }
  const source = secretBoxWithKey(sourceKey);
  let unreadable = 0;
  const resealed = rows.map((row) => {
    const apiKey = source.decrypt(row.api_key_encrypted);
    if (apiKey === undefined) {
      unreadable += 1;
      return row;
    }
    return { ...row, api_key_encrypted: target.encrypt(apiKey) };
  });
  return { rows: resealed, unreadable };
}

/** Every row in one transaction, ids as they were; then PostgreSQL's identities continue after them. */
async function insert(db: Db, tables: ArchiveTables): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    // Checked again inside the transaction: an instance started meanwhile would have its administrator.
    await assertEmpty(trx);
    for (const table of TABLES) {
      const rows: object[] = table === 'tasks' ? parentsFirst(tables.tasks) : tables[table];
      for (let start = 0; start < rows.length; start += INSERT_BATCH) {
        // The rows were checked against the columns of schema.ts (archive.ts); Kysely cannot relate
        // a row type to a table chosen at run time.
        await trx
          .insertInto(table)
          .values(rows.slice(start, start + INSERT_BATCH) as never)
          .execute();
      }
    }
    // SQLite's AUTOINCREMENT already continues after the largest id inserted (sqlite_sequence);
    // a PostgreSQL identity column would hand out 1, 2, ... again.
    if (db.dialect === 'postgres') {
      for (const table of ID_TABLES) {
        const ids = (tables[table] as Array<{ id: number }>).map((row) => row.id);
        if (ids.length === 0) continue;
        const max = ids.reduce((a, b) => Math.max(a, b));
        await sql`select setval(pg_get_serial_sequence(${table}, 'id'), ${max})`.execute(trx);
      }
    }
  });
}

/**
 * Issue 29: the tasks with every parent before its sub-tasks, as parent_id → tasks.id is checked at
 * insert (a sub-task may have a smaller id than its parent: one moved under a newer task) and the
 * rows go in batches. By depth, in their order otherwise; a parent not in the archive is left for
 * the insert to refuse.
 */
export function parentsFirst<T extends { id: number; parent_id?: number | null }>(rows: T[]): T[] {
  if (!rows.some((row) => row.parent_id !== null && row.parent_id !== undefined)) return rows;
  const parentOf = new Map(rows.map((row) => [row.id, row.parent_id ?? null]));
  const depth = new Map<number, number>();
  const depthOf = (id: number): number => {
    let known = depth.get(id);
    if (known !== undefined) return known;
    // Up the chain without recursion; a loop (a broken archive) stops after as many steps as rows.
    const chain: number[] = [];
    let at: number | null = id;
    while (at !== null && !depth.has(at) && chain.length <= rows.length) {
      chain.push(at);
      at = parentOf.get(at) ?? null;
    }
    known = at === null || !depth.has(at) ? -1 : depth.get(at)!;
    for (const link of chain.reverse()) depth.set(link, ++known);
    return depth.get(id)!;
  };
  return rows
    .map((row, index) => ({ row, index, depth: depthOf(row.id) }))
    .sort((a, b) => a.depth - b.depth || a.index - b.index)
    .map(({ row }) => row);
}

/** Empty means never started: no row in any table an archive carries (a started instance has its administrator). */
async function assertEmpty(db: Kysely<Database>): Promise<void> {
  for (const table of TABLES) {
    const row = await db.selectFrom(table).select(sql`1`.as('one')).limit(1).executeTakeFirst();
    if (row) {
      throw new TransferError(
        `the target instance is not empty (it has ${table.replace('_', ' ')}): import into a new instance, ` +
          'before its first start; nothing was changed',
      );
    }
  }
}
