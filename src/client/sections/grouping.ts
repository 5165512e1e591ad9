import type { Section } from '../../common/sections';
import type { TaskSummary } from '../../common/tasks';
import { isActive } from '../tasks/api';
import type { DoneRow } from '../tasks/subtasks';

/** How the List and the Board arrange a project's tasks by section (issue 23, decision 040). */

/** One group of tasks: a section's, or the tasks in none (`section` null). */
export type SectionGroup = { section: Section | null; tasks: TaskSummary[] };

/**
 * The tasks grouped as the list and the board show them (decision 039): 'No section' first, then each
 * section in its order; within a group, the list's own order. A task naming a section not (yet)
 * known is shown in none.
 */
export function groupBySection(tasks: readonly TaskSummary[], sections: readonly Section[]): SectionGroup[] {
  const groups = new Map<number | null, SectionGroup>([[null, { section: null, tasks: [] }]]);
  for (const section of sections) groups.set(section.id, { section, tasks: [] });
  for (const task of tasks) (groups.get(task.sectionId) ?? groups.get(null)!).tasks.push(task);
  return [...groups.values()];
}

/**
 * Whether the tasks cannot be shown before their sections are known: only when one is in a section.
 * Tasks in none come first on the List and the Board alike, so the sections' headers or columns
 * join below or to the right of them without moving a card (issue 28: a new person's 5,000
 * imported cards waited for the projects, then the sections, then the list's read on the server).
 */
export const needsSections = (tasks: readonly TaskSummary[]): boolean =>
  tasks.some((task) => task.sectionId !== null);

/** Where a task goes: into a section (null: none), just after `afterId` there (null: on top). */
export type TaskPlace = { sectionId: number | null; afterId: number | null };

/** The list `tasks` with task `id` taken out and put at `place` (the order a move leaves). */
export function placeTask(tasks: readonly TaskSummary[], id: number, place: TaskPlace): TaskSummary[] {
  const moved = tasks.find((task) => task.id === id);
  if (!moved) return [...tasks];
  const rest = tasks.filter((task) => task.id !== id);
  const updated = { ...moved, sectionId: place.sectionId };
  let at: number;
  if (place.afterId !== null) at = rest.findIndex((task) => task.id === place.afterId) + 1;
  else {
    const first = rest.findIndex((task) => task.sectionId === place.sectionId && isActive(task));
    at = first === -1 ? rest.length : first;
  }
  rest.splice(at, 0, updated);
  return rest;
}

/**
 * A section's header among the List's rows (issue 23). A row of the one list (a Draggable that does
 * not drag), so the cards keep one droppable, one virtualizer and one order for j/k and the palette.
 */
export type HeaderRow = { id: string; section: Section; count: number; collapsed: boolean };
/** A card, a section's header, or (issue 29) the row of a parent's completed sub-tasks. */
export type ListRow = TaskSummary | HeaderRow | DoneRow;
export const isHeader = (row: ListRow): row is HeaderRow => 'section' in row;

/**
 * The list's rows: the tasks as they are when the project has no sections; otherwise the tasks in
 * none first, then each section's header and (unless collapsed) its tasks (decision 040). `arrange`
 * lays out each group's tasks (issue 29: as a tree of sub-tasks).
 */
export function listRows(
  tasks: TaskSummary[],
  sections: readonly Section[],
  collapsed: ReadonlySet<number>,
  arrange: (tasks: TaskSummary[]) => ListRow[] = (group) => group,
): ListRow[] {
  if (sections.length === 0) return arrange(tasks);
  const rows: ListRow[] = [];
  for (const group of groupBySection(tasks, sections)) {
    if (group.section) {
      const hidden = collapsed.has(group.section.id);
      rows.push({
        id: `section:${group.section.id}`,
        section: group.section,
        count: group.tasks.length,
        collapsed: hidden,
      });
      if (hidden) continue;
    }
    rows.push(...arrange(group.tasks));
  }
  return rows;
}
