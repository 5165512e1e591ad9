import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  Kysely,
  Migrator,
  PostgresDialect,
  type SchemaMetadata,
  type SqliteDatabase as SqliteConnection,
  SqliteDialect,
  type SqliteStatement,
  sql,
  type TableMetadata,
} from 'kysely';
import type pg from 'pg';
import { onFirstUse } from '../on-first-use';
import { type DialectName, migrationProvider } from './migrations';
import type { Database } from './schema';

export type { DialectName } from './migrations';
export type { Database } from './schema';

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** PostgreSQL pool, for LISTEN/NOTIFY and the rate limiters' store; undefined on SQLite. */
  pgPool?: pg.Pool;
  /** The embedded connection, for the rate limiters' store; undefined on PostgreSQL. */
  sqlite?: SqliteDatabase.Database;
  close(): Promise<void>;
}

export class DataDirLockedError extends Error {}

/** The PostgreSQL driver, loaded only when DATABASE_URL is set. */
export const loadPg = onFirstUse(async () => {
  const { default: driver } = await import('pg');
  // bigint (count(*), file sizes) as a JS number: our values stay far below 2^53.
  driver.types.setTypeParser(driver.types.builtins.INT8, (v) => Number(v));
  return driver;
});

export interface DbOptions {
  databaseUrl?: string;
  /** Folder for the embedded SQLite database. */
  dataDir: string;
}

export async function openDatabase(options: DbOptions): Promise<Db> {
  const db = options.databaseUrl ? await openPostgres(options.databaseUrl) : openSqlite(options.dataDir);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/**
 * Kysely's PostgreSQL introspector reads every table of every schema in the database, resolving each
 * by name; the migrator asks it whether its bookkeeping tables exist. When another schema is dropped
 * meanwhile (another application, or parallel tests each in a schema of their own) that read fails
 * with 'schema ... does not exist'. This one reads the current schema only, which is all ours.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; is_view: boolean }>`
      select c.relname as name, n.nspname as schema, c.relkind = 'v' as is_view
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
      order by c.relname`.execute(this.db);
    return rows.map((row) => ({ name: row.name, schema: row.schema, isView: row.is_view, columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

export class SchemaScopedPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

/** SQL texts run as named (server-side prepared) statements on PostgreSQL, by their names. */
const namedStatements = new Map<string, string>();

/**
 * Runs this SQL text as a named statement on PostgreSQL: parsed and planned once per connection
 * instead of at every call. For the few hottest queries, whose text never varies (the task list's
 * scope, decision 029); a text with a varying list of parameters would fill every connection with
 * statements.
 */
export function prepareOnPostgres(sqlText: string): void {
  if (!namedStatements.has(sqlText)) namedStatements.set(sqlText, `tasklane_${namedStatements.size + 1}`);
}

type QueryFunction = (...args: unknown[]) => unknown;

/** Kysely calls `query(text, values)`: a registered text becomes `query({name, text, values})`. */
function withNamedStatements(client: { query: QueryFunction }): void {
  const query = client.query;
  client.query = function (this: unknown, ...args: unknown[]) {
    const [text, values] = args;
    const name = typeof text === 'string' && args.length === 2 ? namedStatements.get(text) : undefined;
    return name ? query.call(this, { name, text, values }) : query.apply(this, args);
  };
}

async function openPostgres(url: string): Promise<Db> {
  const pg = await loadPg();
  // While the database is away, a request waits at most 5 s for a connection, then answers 503.
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
  // A client losing its connection must not crash the process: the pool handles idle ones (and
  // replaces them), and a checked-out one, which pg-pool leaves without a listener, fails its query.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    withNamedStatements(client as unknown as { query: QueryFunction });
  });
  const kysely = new Kysely<Database>({ dialect: new SchemaScopedPostgresDialect({ pool }) });
  return { kysely, dialect: 'postgres', pgPool: pool, close: () => kysely.destroy() };
}

function openSqlite(dataDir: string): Db {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'tasklane.db');
  const sqlite = new SqliteDatabase(file);
  // An exclusive lock held for the life of the process: a second process on the same
  // DATA_DIR fails here instead of corrupting the database. The OS drops it if we crash.
  sqlite.pragma('locking_mode = EXCLUSIVE');
  sqlite.pragma('busy_timeout = 0');
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.exec('BEGIN EXCLUSIVE; COMMIT;');
  } catch (error) {
    sqlite.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new DataDirLockedError(
        `DATA_DIR ${dataDir} is in use by another Tasklane process; stop it or choose another DATA_DIR.`,
      );
    }
    throw error;
  }
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Kysely's statements are cached and convert their own parameters; any other user of the
  // connection (the rate limiters' store) gets booleans converted on each statement it prepares.
  const connection = cachedStatements(sqlite);
  withBooleanParameters(sqlite);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
  return {
    kysely,
    dialect: 'sqlite',
    sqlite,
    close: async () => {
      await kysely.destroy();
    },
  };
}

/** better-sqlite3 refuses to bind booleans; SQLite stores them as 0/1. */
function bindable(params: unknown): unknown {
  if (!Array.isArray(params)) return params;
  for (let i = 0; i < params.length; i++) {
    if (typeof params[i] === 'boolean') return params.map((p) => (typeof p === 'boolean' ? Number(p) : p));
  }
  return params;
}

/**
 * Booleans bound as 0/1 on every statement prepared on this connection, for those who use it
 * directly (the rate limiters' store). Kysely goes through cachedStatements instead.
 */
function withBooleanParameters(sqlite: SqliteDatabase.Database): SqliteDatabase.Database {
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    const statement = prepare(source);
    for (const method of ['all', 'get', 'run', 'iterate'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (params: unknown, ...rest: unknown[]) =>
        original(bindable(params), ...rest);
    }
    return statement;
  }) as typeof sqlite.prepare;
  return sqlite;
}

/** Distinct SQL texts kept prepared; Kysely's texts vary mostly with the length of `in (...)` lists. */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * The connection as Kysely sees it: each SQL text is prepared once and its statement reused
 * (better-sqlite3 statements are reusable; preparing anew was a quarter of a list GET's CPU),
 * least recently used texts dropped past `size`. Booleans are bound as 0/1. A statement still
 * being iterated (a streamed query) is busy: the same text then gets a statement of its own.
 * The cache belongs to this connection and is emptied when it closes.
 */
export function cachedStatements(
  sqlite: SqliteDatabase.Database,
  size = STATEMENT_CACHE_SIZE,
): SqliteConnection & { cachedCount(): number } {
  type Cached = SqliteStatement & { statement: SqliteDatabase.Statement };
  // The connection's own prepare, taken before anything wraps it.
  const prepare = sqlite.prepare.bind(sqlite);
  const cache = new Map<string, Cached>();
  const wrap = (statement: SqliteDatabase.Statement): Cached => ({
    statement,
    reader: statement.reader,
    all: (params) => statement.all(bindable(params) as unknown[]),
    run: (params) => statement.run(bindable(params) as unknown[]),
    iterate: (params) => statement.iterate(bindable(params) as unknown[]),
  });
  let closed = false;
  return {
    prepare(source) {
      if (closed) throw new TypeError('The database connection is not open');
      const hit = cache.get(source);
      if (hit) {
        if (hit.statement.busy) return wrap(prepare(source));
        // Re-inserted to mark it most recently used: a Map iterates in insertion order.
        cache.delete(source);
        cache.set(source, hit);
        return hit;
      }
      const entry = wrap(prepare(source));
      cache.set(source, entry);
      if (cache.size > size) cache.delete(cache.keys().next().value as string);
      return entry;
    },
    close() {
      closed = true;
      cache.clear();
      sqlite.close();
    },
    cachedCount: () => cache.size,
  };
}

/** Runs pending migrations. On PostgreSQL, Kysely holds an advisory lock so instances do not race. */
async function migrate(db: Db): Promise<void> {
  // Kysely looks for its bookkeeping tables in every schema; pin it to ours (search_path).
  const schema =
    db.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db: db.kysely,
    provider: migrationProvider(db.dialect),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
