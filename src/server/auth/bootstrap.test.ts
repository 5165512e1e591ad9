import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { openDatabase } from '../db';
import { createTestApp, type TestApp } from '../testing/app';
import { testDialects } from '../testing/database';

/** Issue 11: instances started at the same moment on an empty database all come up; one admin. */
describe.each(testDialects)('the bootstrap administrator on %s', (dialect) => {
  let t: TestApp;
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    await t?.close();
  });

  /** Another app on the same database (PostgreSQL), or the same app (SQLite locks DATA_DIR). */
  async function secondInstance() {
    if (dialect === 'sqlite') return t.ctx;
    const db = await openDatabase({ databaseUrl: t.ctx.config.databaseUrl, dataDir: t.dataDir });
    const { app, ctx } = await buildApp({ config: t.ctx.config, db, logger: false });
    cleanup.push(
      () => db.close(),
      () => app.close(),
    );
    return ctx;
  }

  it('is created once when several instances start together', async () => {
    t = await createTestApp(dialect);
    const other = await secondInstance();
    const results = await Promise.all(
      [t.ctx, other, t.ctx, other].map((ctx) => ctx.auth.ensureBootstrapAdmin({ username: 'admin' })),
    );
    expect(results.filter((result) => result.created)).toHaveLength(1);
    const admins = await t.ctx.db.kysely
      .selectFrom('users')
      .select('username')
      .where('is_admin', '=', true)
      .execute();
    expect(admins).toEqual([{ username: 'admin' }]);
  });
});
