import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testDialects } from '../testing/database';
import { createGroupCommit } from './group-commit';

describe.each(testDialects)('group commit on %s', (dialect) => {
  let test: TestDatabase;
  beforeEach(async () => {
    test = await createTestDatabase(dialect);
  });
  afterEach(async () => {
    await test.destroy();
  });
  const db = () => test.db.kysely;
  const rows = async () =>
    (await db().selectFrom('project_versions').select('project_id').orderBy('project_id').execute()).map(
      (row) => row.project_id,
    );

  it('writes what arrives together in one transaction, and answers each after its commit', async () => {
    const groups: number[][] = [];
    const write = createGroupCommit(
      db(),
      async (trx, id: number) => {
        await trx.insertInto('project_versions').values({ project_id: id, version: 1 }).execute();
        return id;
      },
      async (ids) => {
        // Committed by then: a read sees the whole group.
        expect(await rows()).toEqual(expect.arrayContaining(ids));
        groups.push(ids);
      },
    );
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(await Promise.all(ids.map((id) => write(id)))).toEqual(ids);
    expect(await rows()).toEqual(ids);
    // Asked for in one turn of the event loop: one transaction.
    expect(groups).toEqual([ids]);
    // One that comes while a group is being written goes in the next.
    groups.length = 0;
    const first = write(21);
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([first, write(22), write(23)]);
    expect(groups).toEqual([[21], [22, 23]]);
  });

  it('writes each item of a failed group alone, so only the bad one fails', async () => {
    const write = createGroupCommit(db(), async (trx, id: number) => {
      await trx.insertInto('project_versions').values({ project_id: id, version: 1 }).execute();
      return id;
    });
    const answers = await Promise.allSettled([1, 2, 2, 3].map((id) => write(id)));
    expect(answers.map((answer) => answer.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(await rows()).toEqual([1, 2, 3]);
  });

  it('fails the group, without writing it again, when what follows the commit fails', async () => {
    let writes = 0;
    const write = createGroupCommit(
      db(),
      async (trx, id: number) => {
        writes += 1;
        await trx.insertInto('project_versions').values({ project_id: id, version: 1 }).execute();
        return id;
      },
      async () => {
        throw new Error('not published');
      },
    );
    await expect(write(1)).rejects.toThrow('not published');
    expect(writes).toBe(1);
    expect(await rows()).toEqual([1]);
  });
});
