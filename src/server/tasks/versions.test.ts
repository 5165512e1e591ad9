import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_VERSION_MESSAGES, taskEtag } from '../../common/offline';
import type { Task } from '../../common/tasks';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { createTaskRepository } from './repository';
import { versionBump } from './version';

/** Issue 31: a task's version, its ETag, and If-Match on PATCH /api/tasks/{id}. */
describe.each(testDialects)('task versions on %s', (dialect) => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    user = await t.signUp();
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = async (title: string, body: Record<string, unknown> = {}): Promise<Task> => {
    const response = await user.request('POST', '/api/tasks', { title, ...body });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const get = async (id: number): Promise<Task> => {
    const response = await user.request('GET', `/api/tasks/${id}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const versionOf = async (id: number) => (await get(id)).version;
  /** The change, then the task's version: one more than before. */
  const bumps = async (id: number, change: () => Promise<{ statusCode: number; body: string }>) => {
    const before = await versionOf(id);
    const response = await change();
    expect(response.statusCode, response.body).toBeLessThan(300);
    expect(await versionOf(id)).toBe(before + 1);
  };
  const patch = (id: number, body: unknown, ifMatch?: string) =>
    t.app.inject({
      method: 'PATCH',
      url: `/api/tasks/${id}`,
      headers: { ...user.headers, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
      payload: body as object,
    });

  it('starts at 1 and grows by one with every kind of change to the task', async () => {
    const task = await create('Versioned');
    expect(task.version).toBe(1);
    const other = await create('Other');
    await bumps(task.id, () => user.request('PATCH', `/api/tasks/${task.id}`, { title: 'Renamed' }));
    await bumps(task.id, () => user.request('PATCH', `/api/tasks/${task.id}`, { notes: 'n', priority: 2 }));
    await bumps(task.id, () => user.request('POST', `/api/tasks/${task.id}/complete`, {}));
    await bumps(task.id, () => user.request('PATCH', `/api/tasks/${task.id}`, { completed: false }));
    // Reordered below the other task, then moved back to the top.
    await bumps(task.id, () => user.request('POST', '/api/tasks/reorder', { taskIds: [other.id, task.id] }));
    await bumps(task.id, () => user.request('POST', `/api/tasks/${task.id}/move`, { afterId: null }));
    // Its checklist's counts and its comments' count are the task's too.
    const item = (await user.request('POST', `/api/tasks/${task.id}/checklist`, { title: 'Step' })).json();
    expect(await versionOf(task.id)).toBe(8);
    await bumps(task.id, () => user.request('PATCH', `/api/checklist/${item.id}`, { done: true }));
    await bumps(task.id, () => user.request('POST', `/api/tasks/${task.id}/comments`, { body: 'Hi' }));
    // Labels: set on the task, then the label renamed.
    const label = (await user.request('POST', '/api/labels', { name: 'errands', color: 'teal' })).json();
    await bumps(task.id, () => user.request('PATCH', `/api/tasks/${task.id}`, { labelIds: [label.id] }));
    await bumps(task.id, () => user.request('PATCH', `/api/labels/${label.id}`, { name: 'Errands' }));
    // A section deleted under it.
    const section = (
      await user.request('POST', `/api/projects/${user.inboxId}/sections`, { name: 'Doing' })
    ).json();
    await bumps(task.id, () => user.request('PATCH', `/api/tasks/${task.id}`, { sectionId: section.id }));
    await bumps(task.id, () => user.request('DELETE', `/api/sections/${section.id}`));
    expect((await get(task.id)).sectionId).toBeNull();
    // A blocker added: both sides' rows change (the blocked one's blockedBy).
    const before = await versionOf(other.id);
    await bumps(task.id, () =>
      user.request('POST', `/api/tasks/${task.id}/relations`, { kind: 'blocks', taskId: other.id }),
    );
    expect(await versionOf(other.id)).toBe(before + 1);
  });

  it('leaves the version alone when nothing changes, and a reorder writes only the tasks that move', async () => {
    user = await t.signUp();
    const a = await create('A');
    const b = await create('B');
    const c = await create('C');
    const unchanged = await patch(a.id, {});
    expect(unchanged.statusCode).toBe(200);
    expect(unchanged.json().version).toBe(1);
    const reorder = async (ids: number[]) =>
      expect((await user.request('POST', '/api/tasks/reorder', { taskIds: ids })).statusCode).toBe(200);
    const versions = async () => [await versionOf(a.id), await versionOf(b.id), await versionOf(c.id)];
    // The list is c, b, a (each new task on top); a reorder numbers the positions from 0.
    await reorder([c.id, b.id, a.id]);
    const numbered = await versions();
    await reorder([c.id, b.id, a.id]);
    expect(await versions()).toEqual(numbered);
    // Swapping the first two writes them, not the third.
    await reorder([b.id, c.id, a.id]);
    expect(await versions()).toEqual([numbered[0], (numbered[1] ?? 0) + 1, (numbered[2] ?? 0) + 1]);
  });

  it('answers GET and PATCH with the version as a strong ETag', async () => {
    const task = await create('Tagged');
    const read = await user.request('GET', `/api/tasks/${task.id}`);
    expect(read.headers.etag).toBe('"1"');
    const changed = await patch(task.id, { title: 'Tagged again' }, '"1"');
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.headers.etag).toBe(taskEtag(2));
    expect(changed.json()).toMatchObject({ title: 'Tagged again', version: 2 });
    // The list's tasks carry it too (the app's summary view included).
    const summary = (await user.request('GET', '/api/tasks?view=summary')).json() as Task[];
    expect(summary.find((t) => t.id === task.id)?.version).toBe(2);
  });

  it('takes If-Match as "n", W/"n" or *, and refuses one that names no version with 400', async () => {
    const task = await create('Matched');
    expect((await patch(task.id, { priority: 3 }, 'W/"1"')).statusCode).toBe(200);
    expect((await patch(task.id, { priority: 2 }, '*')).statusCode).toBe(200);
    for (const bad of ['abc', '"x"', '"1", "2"', '']) {
      const response = await patch(task.id, { priority: 1 }, bad);
      expect(response.statusCode, `${bad}: ${response.body}`).toBe(400);
      expect(response.json()).toEqual({ message: TASK_VERSION_MESSAGES.ifMatchInvalid });
      expect(response.json().message).toMatch(/If-Match/);
    }
    expect(await get(task.id)).toMatchObject({ priority: 2, version: 3 });
  });

  it('answers a stale If-Match with 412 and the task as GET gives it, and changes nothing', async () => {
    const task = await create('Buy milk');
    expect((await patch(task.id, { title: 'Buy oat milk' }, '"1"')).statusCode).toBe(200);
    const current = await get(task.id);
    const stale = await patch(task.id, { title: 'Buy soy milk', priority: 1 }, '"1"');
    expect(stale.statusCode).toBe(412);
    expect(stale.headers.etag).toBe('"2"');
    expect(stale.json()).toEqual({ message: TASK_VERSION_MESSAGES.changed, task: current });
    expect(await get(task.id)).toEqual(current);
    // Even a change of nothing: the version named is not the task's.
    expect((await patch(task.id, {}, '"1"')).statusCode).toBe(412);
    // A task that is not there is still 404, not 412.
    expect((await patch(999_999, { title: 'x' }, '"1"')).statusCode).toBe(404);
    // Without If-Match, as before: the last write wins.
    expect((await patch(task.id, { title: 'Buy milk' })).statusCode).toBe(200);
  });

  it('documents the ETag, If-Match and the 412 in the OpenAPI document', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const { get: read, patch: change } = document.paths['/api/tasks/{id}'];
    expect(read.responses['200'].headers.ETag).toMatchObject({ schema: { type: 'string' } });
    expect(change.responses['200'].headers.ETag.description).toMatch(/version/);
    expect(change.responses['412'].headers.ETag).toBeDefined();
    const conflict = change.responses['412'].content['application/json'].schema;
    expect(conflict.required).toEqual(['message', 'task']);
    expect(change.parameters).toContainEqual(
      expect.objectContaining({ in: 'header', name: 'if-match', required: false }),
    );
  });

  it('writes nothing when the row is no longer at the version named (the conditional update)', async () => {
    const task = await create('Conditional');
    const repository = createTaskRepository(t.ctx.db.kysely, dialect);
    expect(await repository.update(task.id, { title: 'Late' }, undefined, undefined, 2)).toBeUndefined();
    expect((await repository.update(task.id, { title: 'On time' }, undefined, undefined, 1))?.version).toBe(
      2,
    );
    expect(await get(task.id)).toMatchObject({ title: 'On time', version: 2 });
  });

  it('answers 412 with the task as the other writer left it when it changed between the check and the write', async () => {
    const task = await create('Held');
    const db = t.ctx.db.kysely;
    let answer: Promise<{ statusCode: number; json(): unknown }> | undefined;
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('tasks')
        .set({ title: 'Changed meanwhile', ...versionBump })
        .where('id', '=', task.id)
        .execute();
      answer = patch(task.id, { title: 'Mine' }, '"1"');
      if (dialect !== 'postgres') return;
      // PostgreSQL: the PATCH read version 1 and now waits for this transaction's row lock.
      await expect
        .poll(
          async () =>
            Number(
              (
                await sql<{
                  waiting: number;
                }>`select count(*) as waiting from pg_locks where not granted`.execute(db)
              ).rows[0]?.waiting,
            ),
          { timeout: 10_000 },
        )
        .toBeGreaterThan(0);
    });
    const response = await answer!;
    expect(response.statusCode).toBe(412);
    expect((response.json() as { task: Task }).task).toMatchObject({
      title: 'Changed meanwhile',
      version: 2,
    });
    expect(await get(task.id)).toMatchObject({ title: 'Changed meanwhile', version: 2 });
  });

  it('lets only one of two PATCHes naming the same version win', async () => {
    for (let round = 0; round < 3; round++) {
      const task = await create(`Race ${round}`);
      const answers = await Promise.all([
        patch(task.id, { title: 'First' }, '"1"'),
        patch(task.id, { title: 'Second' }, '"1"'),
      ]);
      const statuses = answers.map((answer) => answer.statusCode).sort();
      expect(statuses, answers.map((answer) => answer.body).join('\n')).toEqual([200, 412]);
      const winner = answers.find((answer) => answer.statusCode === 200)?.json() as Task;
      const loser = answers.find((answer) => answer.statusCode === 412)?.json() as { task: Task };
      expect(loser.task).toMatchObject({ title: winner.title, version: 2 });
      expect(await get(task.id)).toMatchObject({ title: winner.title, version: 2 });
    }
  });
});

/**
 * One place decides the version: every statement of the server that updates tasks grows it. Read
 * from the source, so a new path that forgets it fails here rather than in a person's lost edit.
 */
describe('every update of tasks grows the version', () => {
  const root = path.resolve(__dirname, '..');
  const sources = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sources(full);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
    });

  it('sets version in each updateTable(tasks) and update tasks statement', () => {
    const missing: string[] = [];
    let found = 0;
    for (const file of sources(root)) {
      // Migrations write rows as they were then: a column of their time, not a change of the task.
      if (file.endsWith(path.join('db', 'migrations.ts'))) continue;
      const text = fs.readFileSync(file, 'utf8');
      for (const match of text.matchAll(/updateTable\(\s*'tasks'\s*\)|\bupdate tasks set\b/g)) {
        found += 1;
        const statement = text.slice(match.index, text.indexOf('execute', match.index));
        if (!/versionBump|nextVersion/.test(statement)) {
          missing.push(`${path.relative(root, file)}:${text.slice(0, match.index).split('\n').length}`);
        }
      }
    }
    expect(found).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });
});
