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
  const schema = `test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const databaseUrl = url.toString();
  const db = await openDatabase({ databaseUrl, dataDir });
  return {
    db,
    dataDir,
    databaseUrl,
    async destroy() {
      await db.close();
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
