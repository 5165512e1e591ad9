import { describe, expect, it } from 'vitest';
import type { Task } from '../../common/tasks';
import {
  bodyFieldsOf,
  carryVersion,
  namesTempId,
  type OutboxEntry,
  outcomeOf,
  patchedTaskId,
  rewriteTempId,
  sameValue,
} from './entries';
import { mergeConflict } from './merge';

const entry = (over: Partial<OutboxEntry>): OutboxEntry => ({
  method: 'PATCH',
  url: '/api/tasks/1',
  task: { id: 1, title: 'Buy milk' },
  key: `k-${Math.random()}`,
  keptAt: 0,
  ...over,
});

describe('the outbox entries (issue 31)', () => {
  it('reads the task a PATCH edits, and only a task PATCH', () => {
    expect(patchedTaskId({ method: 'PATCH', url: '/api/tasks/12' })).toBe(12);
    expect(patchedTaskId({ method: 'PATCH', url: '/api/tasks/-5' })).toBe(-5);
    expect(patchedTaskId({ method: 'POST', url: '/api/tasks/12' })).toBeUndefined();
    expect(patchedTaskId({ method: 'PATCH', url: '/api/tasks/12/checklist/3' })).toBeUndefined();
  });

  it('says what an answer means: saved, refused, in flight, conflict or later', () => {
    const patch = { method: 'PATCH', url: '/api/tasks/1' } as const;
    const post = { method: 'POST', url: '/api/tasks/1/complete' } as const;
    expect(outcomeOf(200, patch)).toBe('saved');
    expect(outcomeOf(204, post)).toBe('saved');
    for (const status of [400, 403, 404, 410, 422]) expect(outcomeOf(status, patch)).toBe('refused');
    expect(outcomeOf(409, patch)).toBe('in-flight');
    expect(outcomeOf(412, patch)).toBe('conflict');
    expect(outcomeOf(412, post)).toBe('refused');
    for (const status of [undefined, 401, 408, 429, 500, 502, 503])
      expect(outcomeOf(status, patch)).toBe('later');
  });

  it('gives a task made offline its real id in the entries after it, and its first version to edits', () => {
    const later = [
      entry({ url: '/api/tasks/-7', task: { id: -7, title: 'New' }, body: { title: 'Newer' } }),
      entry({ method: 'POST', url: '/api/tasks/-7/complete', task: { id: -7, title: 'New' }, body: {} }),
      entry({ method: 'POST', url: '/api/tasks/3/move', body: { afterId: -7, sectionId: null } }),
      entry({ method: 'POST', url: '/api/tasks/reorder', body: { taskIds: [3, -7, 4] } }),
      entry({ method: 'POST', url: '/api/tasks', body: { title: 'Child', parentId: -7, position: -7 } }),
      entry({ url: '/api/tasks/-70', task: { id: -70, title: 'Other' } }),
    ];
    const rewritten = rewriteTempId(later, -7, { id: 42, version: 1 });
    expect(rewritten.map((e) => e.url)).toEqual([
      '/api/tasks/42',
      '/api/tasks/42/complete',
      '/api/tasks/3/move',
      '/api/tasks/reorder',
      '/api/tasks',
      '/api/tasks/-70',
    ]);
    expect(rewritten[0]).toMatchObject({ task: { id: 42 }, baseVersion: 1, body: { title: 'Newer' } });
    expect(rewritten[1]!.baseVersion).toBeUndefined();
    expect(rewritten[2]!.body).toEqual({ afterId: 42, sectionId: null });
    expect(rewritten[3]!.body).toEqual({ taskIds: [3, 42, 4] });
    // Only fields that name tasks: a position that happens to equal the temporary id stays.
    expect(rewritten[4]!.body).toEqual({ title: 'Child', parentId: 42, position: -7 });
    expect(rewritten[5]).toEqual(later[5]);
    // The keys stay: a repeat of the same request is still answered, not redone.
    expect(rewritten.map((e) => e.key)).toEqual(later.map((e) => e.key));
    expect(namesTempId(later[2]!, -7)).toBe(true);
    expect(namesTempId(later[5]!, -7)).toBe(false);
  });

  it('carries the new version to later edits made on top of a saved one, not past another person', () => {
    const saved = entry({ baseVersion: 3 });
    const next = entry({ baseVersion: 3, body: { priority: 1 } });
    const newer = entry({ baseVersion: 5 });
    const other = entry({ url: '/api/tasks/2', task: { id: 2, title: 'x' }, baseVersion: 3 });
    const carried = carryVersion([next, newer, other], saved, 4);
    expect(carried.map((e) => e.baseVersion)).toEqual([4, 5, 3]);
    // A change sent without If-Match may include someone else's: later edits keep their base (and merge).
    const complete = entry({ method: 'POST', url: '/api/tasks/1/complete', baseVersion: undefined });
    expect(carryVersion([next], complete, 9)[0]!.baseVersion).toBe(3);
  });

  it('reads a task in the PATCH body shape: labels as sorted labelIds, nothing as null', () => {
    const task = {
      title: 'A',
      dueDate: null,
      labels: [
        { id: 9, name: 'b', color: 'red' },
        { id: 2, name: 'a', color: 'red' },
      ],
    } as Partial<Task>;
    expect(bodyFieldsOf(task, ['title', 'labelIds', 'dueDate', 'notes'])).toEqual({
      title: 'A',
      labelIds: [2, 9],
      dueDate: null,
      notes: null,
    });
    // Another person's label on the task is not one of the person's.
    expect(bodyFieldsOf(task, ['labelIds'], new Set([9]))).toEqual({ labelIds: [9] });
    expect(sameValue([1, 2], [2, 1])).toBe(true);
    expect(sameValue(null, undefined)).toBe(true);
    expect(sameValue('a', 'b')).toBe(false);
  });
});

describe('merging a 412 (issue 31)', () => {
  it('sends again what only the person changed and keeps the server where both did', () => {
    const before = { title: 'Milk', priority: 4, dueDate: null, labelIds: [1] };
    const mine = { title: 'Buy oat milk', priority: 1, dueDate: '2026-12-01', labelIds: [1, 2] };
    const server = { title: 'Buy milk', priority: 4, dueDate: '2026-12-01', labelIds: [2, 1] };
    expect(mergeConflict(before, mine, server)).toEqual({
      resend: { priority: 1 },
      conflicts: [{ field: 'title', server: 'Buy milk', mine: 'Buy oat milk' }],
    });
  });

  it('has nothing to do when the server already has the person’s values', () => {
    expect(mergeConflict({ title: 'a' }, { title: 'b' }, { title: 'b' })).toEqual({
      resend: {},
      conflicts: [],
    });
  });
});
