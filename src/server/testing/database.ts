import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
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
 */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'tasklane-test-'));
  if (dialect === 'sqlite') {
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
  const schema = await createPgSchema(baseUrl);
  const databaseUrl = schema.url;
  const db = await openDatabase({ databaseUrl, dataDir });
  return {
    db,
    dataDir,
    databaseUrl,
    async destroy() {
      await db.close();
      await schema.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
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
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create schema ${name}`);
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return { name, url: url.toString(), drop: () => run(`drop schema if exists ${name} cascade`) };
}
