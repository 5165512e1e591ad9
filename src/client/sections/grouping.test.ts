import { describe, expect, it } from 'vitest';
import type { Section } from '../../common/sections';
import type { TaskSummary } from '../../common/tasks';
import { groupBySection, listRows, needsSections, placeTask } from './grouping';

const section = (id: number, position: number): Section => ({
  id,
  projectId: 1,
  name: `S${id}`,
  position,
  createdAt: '2026-11-26T00:00:00Z',
});
const task = (id: number, sectionId: number | null) =>
  ({ id, sectionId, completed: false, archived: false }) as TaskSummary;

// Sections 20 then 10 (their order), tasks in the list's order.
const sections = [section(20, 0), section(10, 1)];
const tasks = [task(1, 10), task(2, null), task(3, 20), task(4, 10), task(5, 99)];
const shown = (rows: ReturnType<typeof listRows>) => rows.map((row) => row.id);

describe('grouping by section', () => {
  it('needs the sections before the first paint only when a task is in one (issue 28)', () => {
    // 5,000 imported cards in none: the List and the Board show them at once, the sections' columns
    // (or headers) joining after them, below or to the right, moving no card.
    expect(needsSections([task(1, null), task(2, null)])).toBe(false);
    expect(needsSections([])).toBe(false);
    expect(needsSections([task(1, null), task(2, 10)])).toBe(true);
  });

  it("groups 'No section' first, then the sections in their order; an unknown section counts as none", () => {
    expect(
      groupBySection(tasks, sections).map((g) => [g.section?.id ?? null, g.tasks.map((t) => t.id)]),
    ).toEqual([
      [null, [2, 5]],
      [20, [3]],
      [10, [1, 4]],
    ]);
  });

  it('lists the tasks as they are without sections, with headers and collapsed sections otherwise', () => {
    expect(listRows(tasks, [], new Set())).toBe(tasks);
    expect(shown(listRows(tasks, sections, new Set()))).toEqual([2, 5, 'section:20', 3, 'section:10', 1, 4]);
    expect(shown(listRows(tasks, sections, new Set([20])))).toEqual([2, 5, 'section:20', 'section:10', 1, 4]);
  });

  it('puts a moved task after its new neighbour, or first in its new section', () => {
    expect(placeTask(tasks, 2, { sectionId: 10, afterId: 4 }).map((t) => [t.id, t.sectionId])).toEqual([
      [1, 10],
      [3, 20],
      [4, 10],
      [2, 10],
      [5, 99],
    ]);
    expect(placeTask(tasks, 4, { sectionId: 20, afterId: null }).map((t) => t.id)).toEqual([1, 2, 4, 3, 5]);
  });
});
