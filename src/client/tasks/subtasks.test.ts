import { describe, expect, it } from 'vitest';
import type { TaskSummary } from '../../common/tasks';
import { arrangeTree, dropPlace, placeInTree, siblingAbove, type TreeInfo } from './subtasks';

const t = (id: number, parentId: number | null = null, completed = false, sectionId: number | null = null) =>
  ({ id, parentId, completed, sectionId, title: `T${id}`, subtasks: { done: 0, total: 0 } }) as TaskSummary;

const ids = (rows: { id: number | string }[]) => rows.map((row) => row.id);

describe('the tree of sub-tasks (issue 29)', () => {
  // 1 ─ 2 ─ 3, 1 ─ 4 (done), 5; 6's parent (99) is not in the list; 7 is done under a missing parent.
  const tasks = [t(1), t(2, 1), t(3, 2), t(4, 1, true), t(5), t(6, 99), t(7, 99, true)];

  it('puts sub-tasks under their parents, completed ones behind a done row, orphans top-level', () => {
    const info = new Map<number, TreeInfo>();
    expect(ids(arrangeTree(tasks, new Set(), new Set(), info))).toEqual([1, 2, 3, 'done:1', 5, 6]);
    expect(info.get(1)).toEqual({ depth: 0, children: 2, collapsed: false });
    expect(info.get(3)?.depth).toBe(2);
    expect(ids(arrangeTree(tasks, new Set(), new Set([1]), new Map()))).toEqual([1, 2, 3, 'done:1', 4, 5, 6]);
    expect(ids(arrangeTree(tasks, new Set([1]), new Set(), new Map()))).toEqual([1, 5, 6]);
    // A childless task's collapsed mark means nothing.
    expect(ids(arrangeTree(tasks, new Set([5]), new Set(), new Map()))).toEqual([1, 2, 3, 'done:1', 5, 6]);
  });

  it('moves a task with its subtree, and counts its sub-tasks on both parents', () => {
    const list = [t(1), t(2, 1), t(3, 2), t(5)];
    const moved = placeInTree(list, 2, { parentId: 5, afterId: 'last' });
    expect(moved.map((task) => [task.id, task.parentId])).toEqual([
      [1, null],
      [5, null],
      [2, 5],
      [3, 2],
    ]);
    expect(moved.find((task) => task.id === 5)?.subtasks.total).toBe(1);
    expect(moved.find((task) => task.id === 1)?.subtasks.total).toBe(-1);
    // Out a level, just after its old parent's subtree.
    expect(ids(placeInTree(list, 3, { parentId: 1, afterId: 2 }))).toEqual([1, 2, 3, 5]);
    expect(ids(placeInTree(list, 3, { parentId: null, afterId: 1 }))).toEqual([1, 2, 3, 5]);
    expect(ids(placeInTree(list, 5, { parentId: null, afterId: null }))).toEqual([5, 1, 2, 3]);
  });

  it('finds the sibling above at the same level', () => {
    const list = [t(1), t(2, 1), t(3, 1, true), t(4, 1), t(5)];
    expect(siblingAbove(list, 4)?.id).toBe(2);
    expect(siblingAbove(list, 5)?.id).toBe(1);
    expect(siblingAbove(list, 1)).toBeUndefined();
    expect(siblingAbove(list, 2)).toBeUndefined();
  });

  it('reads a drop among siblings, and below another subtree', () => {
    const list = [t(1), t(2, 1), t(3, 1), t(5), t(6)];
    const rows = list;
    // 3 dropped first under 1 (row index 1: just below 1).
    expect(dropPlace(rows, list, 3, 1)).toEqual({ parentId: 1, afterId: null });
    // 6 dropped right below 3: a sibling of 1, after it (the ancestor at its level).
    expect(dropPlace(rows, list, 6, 3)).toMatchObject({ parentId: null, afterId: 1 });
    // 6 on top.
    expect(dropPlace(rows, list, 6, 0)).toMatchObject({ parentId: null, afterId: null });
    // A top-level card dropped inside another's sub-tasks stays top-level (nesting is a drop onto a card).
    expect(dropPlace(rows, list, 5, 2)).toMatchObject({ parentId: null, afterId: 1 });
    // A sub-task dragged out of its parent's sub-tasks goes beside the card above it.
    expect(dropPlace(rows, list, 2, 3)).toMatchObject({ parentId: null, afterId: 5 });
    // 1 dropped among its own sub-tasks: nothing.
    expect(dropPlace(rows, list, 1, 2)).toBeNull();
  });
});
