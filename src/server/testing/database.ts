import crypto from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';
import { type Db, type DialectName, openDatabase } from '../db';

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export const testDialects: DialectName[] = process.env.TEST_DATABASE_URL
  ? ['sqlite', 'postgres']
  : ['sqlite'];

export interface TestDatabase {
  db: Db;
  dataDir: string;
  /** The URL the app would be configured with (PostgreSQL only). */
  databaseUrl?: string;
  destroy(): Promise<void>;
}

/**
 * A fresh database per test app: a temporary SQLite folder, or a PostgreSQL schema
 * of its own (search_path) so parallel test files never see each other's rows.
 *
 * Migrating a database from nothing is most of a test app's start (26 migrations: about a second on
 * PostgreSQL, more on a busy machine), and many files start an app per test. So a process migrates
 * once per dialect: SQLite's later databases start as a copy of its first, migrated file; a
 * PostgreSQL schema given back by `destroy` is emptied (TRUNCATE … RESTART IDENTITY) and handed to
 * the next test of the file, and the schemas are dropped once the file's tests are done
 * (`dropPooledSchemas`). Either way the database is as migrations leave it.
 */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'tasklane-test-'));
  if (dialect === 'sqlite') {
    await fs.copyFile(await migratedSqliteFile(), path.join(dataDir, SQLITE_FILE));
    const db = await openDatabase({ dataDir });
    return {
      db,
      dataDir,
      async destroy() {
        await db.close();
        await fs.rm(dataDir, { recursive: true, force: true });
      },
    };
  }
  const baseUrl = process.env.TEST_DATABASE_URL;
  if (!baseUrl) throw new Error('TEST_DATABASE_URL is not set');
  const pooled = emptiedSchemas.pop();
  const schema = pooled ? await pooled : await createPgSchema(baseUrl);
  const databaseUrl = schema.url;
  const db = await openDatabase({ databaseUrl, dataDir });
  return {
    db,
    dataDir,
    databaseUrl,
    async destroy() {
      await db.close();
      emptiedSchemas.push(emptySchema(schema));
      // Seen by dropPooledSchemas even while it is being emptied.
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The file openDatabase keeps a SQLite database in (src/server/db). */
const SQLITE_FILE = 'tasklane.db';

let migratedSqlite: Promise<string> | undefined;

/** A SQLite database migrated to the latest, closed (its WAL folded in): later databases copy it. */
function migratedSqliteFile(): Promise<string> {
  migratedSqlite ??= (async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tasklane-migrated-'));
    process.once('exit', () => fsSync.rmSync(dir, { recursive: true, force: true }));
    const db = await openDatabase({ dataDir: dir });
    db.sqlite?.pragma('wal_checkpoint(TRUNCATE)');
    await db.close();
    return path.join(dir, SQLITE_FILE);
  })();
  return migratedSqlite;
}

/** PostgreSQL schemas given back, being emptied for the next test of this process. */
const emptiedSchemas: Promise<PgSchema>[] = [];

/** Every table but the migrations' own bookkeeping, emptied, its identities back to 1. */
async function emptySchema(schema: PgSchema): Promise<PgSchema> {
  await withClient(schema.url, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      `select tablename as name from pg_tables
       where schemaname = current_schema() and tablename not like 'kysely_migration%'`,
    );
    const tables = rows.map((row) => `"${row.name}"`).join(', ');
    await client.query(`truncate ${tables} restart identity cascade`);
  });
  return schema;
}

/** Drops the schemas this process keeps for reuse. */
async function dropPooledSchemas(): Promise<void> {
  const schemas = await Promise.all(emptiedSchemas.splice(0));
  await Promise.all(schemas.map((schema) => schema.drop()));
}
// Imported as a test file is collected, so this runs once the file's tests are done.
afterAll(dropPooledSchemas);

async function withClient<T>(connectionString: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * Another handle on the same database, as a second instance (PostgreSQL) or a restarted one (SQLite,
 * once the first handle is closed: one process holds its lock) would open it. Its destroy only
 * closes it; the first handle's drops the database.
 */
export async function reopenTestDatabase(first: TestDatabase): Promise<TestDatabase> {
  const db = await openDatabase({ databaseUrl: first.databaseUrl, dataDir: first.dataDir });
  return { db, dataDir: first.dataDir, databaseUrl: first.databaseUrl, destroy: () => db.close() };
}

export interface PgSchema {
  name: string;
  /** `baseUrl` with this schema as the search_path. */
  url: string;
  drop(): Promise<void>;
}

/** An empty PostgreSQL schema of its own, so parallel tests (and server processes) never meet. */
export async function createPgSchema(baseUrl: string, prefix = 'test'): Promise<PgSchema> {
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  const run = (statement: string) =>
    withClient(baseUrl, async (client) => {
      await client.query(statement);
    });
  await run(`create schema ${name}`);
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return { name, url: url.toString(), drop: () => run(`drop schema if exists ${name} cascade`) };
}
