import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app';
import { testDialects } from '../testing/database';
import { startTestS3, type TestS3 } from '../testing/s3';
import { createFileSweeper } from './sweeper';

const HOUR = 60 * 60 * 1000;

/** Issue 10 and 11: stored files that no row claims are removed while the server runs. */
describe.each(testDialects)('the file sweep on %s', (dialect) => {
  let t: TestApp;
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startTestS3({ prefix: 'sweep/' });
  });
  afterAll(async () => s3?.close());
  afterEach(async () => t?.close());

  async function claimedBlob(key: string) {
    const user = await t.signUp();
    const task = (await user.request('POST', '/api/tasks', { title: 'Has a file' })).json() as { id: number };
    await t.ctx.db.kysely
      .insertInto('files')
      .values({
        task_id: task.id,
        user_id: user.user.id,
        original_name: 'kept.txt',
        file_size: 4,
        content_type: 'text/plain',
        storage_key: key,
        created_at: new Date().toISOString(),
      })
      .execute();
  }

  const keys = async () => {
    const found: string[] = [];
    for await (const { key } of t.ctx.fileStore.list()) found.push(key);
    return found.sort();
  };
  const put = async (content: string) => (await t.ctx.fileStore.put(Readable.from([content]))).key;

  it('removes unclaimed blobs older than the minimum age, and keeps claimed and young ones (disk)', async () => {
    t = await createTestApp(dialect);
    const claimed = await put('kept');
    const orphan = await put('orphan');
    const young = await put('young');
    await claimedBlob(claimed);
    const old = new Date(Date.now() - 2 * HOUR);
    for (const key of [claimed, orphan]) fs.utimesSync(path.join(t.dataDir, 'files', key), old, old);

    const sweeper = createFileSweeper({
      db: t.ctx.db,
      store: t.ctx.fileStore,
      minAgeMs: HOUR,
      logger: t.ctx.logger,
    });
    expect(await sweeper.sweepOnce()).toBe(1);
    expect(await keys()).toEqual([claimed, young].sort());
  });

  it('removes unclaimed objects from the bucket and keeps claimed ones (S3)', async () => {
    t = await createTestApp(dialect, { env: s3.env });
    const claimed = await put('kept');
    const orphan = await put('orphan');
    await claimedBlob(claimed);
    expect(await keys()).toEqual(expect.arrayContaining([claimed, orphan]));

    const sweeper = createFileSweeper({
      db: t.ctx.db,
      store: t.ctx.fileStore,
      minAgeMs: 0,
      logger: t.ctx.logger,
    });
    await sweeper.sweepOnce();
    const left = await keys();
    expect(left).toContain(claimed);
    expect(left).not.toContain(orphan);
  });
});
