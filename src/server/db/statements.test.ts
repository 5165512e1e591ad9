import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { type Generated, Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedStatements, openDatabase } from '.';

describe('cached SQLite statements', () => {
  const open: SqliteDatabase.Database[] = [];
  const connection = (size?: number) => {
    const sqlite = new SqliteDatabase(':memory:');
    open.push(sqlite);
    sqlite.exec('create table t (id integer primary key, flag integer, name text)');
    return { sqlite, cached: cachedStatements(sqlite, size) };
  };
  afterEach(() => {
    for (const sqlite of open.splice(0)) if (sqlite.open) sqlite.close();
  });

  it('prepares each SQL text once and reuses the statement', () => {
    const { cached } = connection();
    const first = cached.prepare('select * from t where id = ?');
    const again = cached.prepare('select * from t where id = ?');
    expect(again).toBe(first);
    expect(cached.cachedCount()).toBe(1);
  });

  it('binds booleans as 0 and 1, and leaves other values alone', () => {
    const { cached } = connection();
    cached.prepare('insert into t (flag, name) values (?, ?)').run([true, 'a']);
    cached.prepare('insert into t (flag, name) values (?, ?)').run([false, 'b']);
    expect(cached.prepare('select flag, name from t order by id').all([])).toEqual([
      { flag: 1, name: 'a' },
      { flag: 0, name: 'b' },
    ]);
  });

  it('drops the least recently used text past its size', () => {
    const { cached } = connection(2);
    const a = cached.prepare('select 1');
    cached.prepare('select 2');
    cached.prepare('select 1');
    cached.prepare('select 3');
    expect(cached.cachedCount()).toBe(2);
    expect(cached.prepare('select 1')).toBe(a);
    expect(cached.prepare('select 2')).not.toBe(a);
  });

  it('gives a text being iterated a statement of its own', () => {
    const { cached } = connection();
    cached.prepare('insert into t (name) values (?), (?)').run(['a', 'b']);
    const outer = cached.prepare('select name from t order by id');
    const names: string[] = [];
    for (const row of outer.iterate([]) as Iterable<{ name: string }>) {
      names.push(
        row.name,
        ...(cached.prepare('select name from t order by id').all([]) as Array<{ name: string }>).map(
          (r) => r.name,
        ),
      );
    }
    expect(names).toHaveLength(6);
  });

  it('refuses statements once closed, and closes the connection', () => {
    const { sqlite, cached } = connection();
    cached.prepare('select 1');
    cached.close();
    expect(sqlite.open).toBe(false);
    expect(cached.cachedCount()).toBe(0);
    expect(() => cached.prepare('select 1')).toThrow(/not open/);
  });

  it('serves Kysely, transactions included', async () => {
    const { cached } = connection();
    const db = new Kysely<{ t: { id: Generated<number>; flag: number; name: string } }>({
      dialect: new SqliteDialect({ database: cached }),
    });
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ flag: 1, name: 'kept' }).execute();
    });
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ flag: 1, name: 'rolled back' }).execute();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    const rows = await db.selectFrom('t').select('name').execute();
    expect(rows).toEqual([{ name: 'kept' }]);
    await db.destroy();
  });

  it('starts with an empty cache when the database is opened again', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-statements-'));
    try {
      const first = await openDatabase({ dataDir });
      await sql`select 1`.execute(first.kysely);
      await first.close();
      const second = await openDatabase({ dataDir });
      const { rows } = await sql<{ n: number }>`select count(*) as n from users`.execute(second.kysely);
      expect(rows[0]?.n).toBe(0);
      await second.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
