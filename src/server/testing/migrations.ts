import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import pg from 'pg';
import { type DialectName, SchemaScopedPostgresDialect } from '../db';
import { migrationProvider } from '../db/migrations';
import { createPgSchema } from './database';

/**
 * A database of its own, migrated up to `migration` and no further, for a test that writes rows as
 * they were then and checks what the later migrations make of them (`migrateToLatest`).
 */
export async function withDatabaseMigratedTo(
  dialect: DialectName,
  migration: string,
  // biome-ignore lint/suspicious/noExplicitAny: the schema as it was at `migration`, which no type describes
  test: (db: Kysely<any>, migrateToLatest: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'tasklane-migration-'));
  const schema = dialect === 'postgres' ? await createPgSchema(process.env.TEST_DATABASE_URL!) : null;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const db = new Kysely<any>({
    dialect: schema
      ? new SchemaScopedPostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 2 }) })
      : new SqliteDialect({ database: new SqliteDatabase(path.join(dataDir, 'old.db')) }),
  });
  try {
    const migrator = new Migrator({
      db,
      provider: migrationProvider(dialect),
      ...(schema ? { migrationTableSchema: schema.name } : {}),
    });
    const migrated = async (result: Promise<{ error?: unknown }>) => {
      const { error } = await result;
      if (error) throw error;
    };
    await migrated(migrator.migrateTo(migration));
    await test(db, () => migrated(migrator.migrateToLatest()));
  } finally {
    await db.destroy();
    await schema?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
