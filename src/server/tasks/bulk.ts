import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { nowIso } from '../db/values';
import { doneAfter } from './done';
import { foldForSearch, taskSearchText } from './search';

/** A task to add in bulk (an import), with its checklist items in order. */
export interface NewTaskWithChecklist {
  title: string;
  description: string | null;
  dueDate: string | null;
  completed: boolean;
  archived: boolean;
  contextId: number | null;
  notes: string | null;
  aiDraft: string | null;
  aiAssisted: boolean;
  /** ISO 8601; now when absent. */
  createdAt?: string | null;
  archivedAt?: string | null;
  checklistItems: Array<{ title: string; done: boolean }>;
  /** Issue 22: 'HH:MM' with the zone it is read in, an RRULE and where it counts from. */
  dueTime?: string | null;
  dueTimeZone?: string | null;
  recurrence?: string | null;
  recurrenceFrom?: 'due' | 'completion';
  /** Issue 23: a section of the project the tasks go to; none when absent. */
  sectionId?: number | null;
  /** 1 (urgent) to 4 (none, when absent). */
  priority?: number;
  /**
   * Issue 29: the index, in the same list, of the task this one is a sub-task of; none for a
   * top-level task (and for one whose parents, given here, loop). A sub-task takes its parent's section, and goes to the archive only
   * with it: a completed sub-task of an open parent stays in the list, completed.
   */
  parentIndex?: number | null;
}

/** Rows per INSERT: well under either database's limit of bound parameters. */
const BATCH = 400;

/**
 * Adds tasks on top of a project's list (created by `userId`), keeping their given order, with their search text,
 * checklist items and checklist counts written as the tasks feature writes them one by one. Call it
 * inside a transaction (`db` is then the transaction) and publish the change after it commits.
 * Returns the new tasks' ids, in the given order.
 */
export async function insertTasksOnTop(
  db: Kysely<Database>,
  userId: number,
  projectId: number,
  tasks: NewTaskWithChecklist[],
): Promise<number[]> {
  if (tasks.length === 0) return [];
  const { top } = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.min('position').as('top'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  // The first task goes to top - n, the last just above the current top (position starts at 0).
  const first = (top === null ? 0 : Number(top)) - tasks.length;
  const now = nowIso();
  const ids: number[] = new Array(tasks.length);
  // Issue 29: a parent is written before its sub-tasks (parent_id is checked at insert), one level at
  // a time; positions come from the given order, so the list's order is the same either way.
  const level = new Array<number | undefined>(tasks.length);
  const parentOf = (i: number): number | null => {
    const parent = tasks[i]!.parentIndex ?? null;
    return parent !== null && Number.isInteger(parent) && parent >= 0 && parent < tasks.length && parent !== i
      ? parent
      : null;
  };
  const levelOf = (i: number): number => {
    const known = level[i];
    if (known !== undefined) return known === -1 ? 0 : known;
    level[i] = -1; // on the way: a loop in the given parents makes a top-level task
    const parent = parentOf(i);
    const depth = parent === null || level[parent] === -1 ? 0 : levelOf(parent) + 1;
    level[i] = depth;
    return depth;
  };
  const waves: number[][] = [];
  for (let i = 0; i < tasks.length; i++) {
    const wave = waves[levelOf(i)];
    if (wave) wave.push(i);
    else waves[levelOf(i)] = [i];
  }
  const archivedOf = new Array<boolean>(tasks.length);
  const sectionAt = new Array<number | null>(tasks.length);
  for (const wave of waves)
    for (const i of wave) {
      const parent = level[i]! > 0 ? parentOf(i) : null;
      archivedOf[i] = parent === null ? doneAfter(tasks[i]!) === true : archivedOf[parent]!;
      sectionAt[i] = parent === null ? (tasks[i]!.sectionId ?? null) : sectionAt[parent]!;
    }
  for (const wave of waves) {
    for (let start = 0; start < wave.length; start += BATCH) {
      const batch = wave.slice(start, start + BATCH);
      const rows = await db
        .insertInto('tasks')
        .values(
          batch.map((i) => {
            const task = tasks[i]!;
            // A file from elsewhere may set one flag only: here they are one state.
            const done = doneAfter(task) === true;
            const archived = archivedOf[i]!;
            const parent = level[i]! > 0 ? parentOf(i) : null;
            return {
              user_id: userId,
              project_id: projectId,
              title: task.title,
              description: task.description,
              due_date: task.dueDate,
              // A time or a rule without a date cannot stand (the routes refuse it): it is dropped.
              due_time: task.dueDate ? (task.dueTime ?? null) : null,
              due_time_zone: task.dueDate && task.dueTime ? (task.dueTimeZone ?? 'UTC') : null,
              recurrence: task.dueDate ? (task.recurrence ?? null) : null,
              recurrence_from: task.recurrenceFrom ?? 'due',
              section_id: sectionAt[i]!,
              priority: task.priority ?? 4,
              completed: done || archived,
              archived,
              archived_at: archived ? (task.archivedAt ?? now) : null,
              position: first + i,
              parent_id: parent === null ? null : ids[parent]!,
              context_id: task.contextId,
              notes: task.notes,
              ai_draft: task.aiDraft,
              ai_assisted: task.aiAssisted,
              search_text: taskSearchText(task),
              checklist_total: task.checklistItems.length,
              checklist_done: task.checklistItems.filter((item) => item.done).length,
              created_at: task.createdAt ?? now,
              updated_at: now,
            };
          }),
        )
        .returning(['id', 'position'])
        .execute();
      // Positions are unique within the import, so they say which id is whose.
      const idAt = new Map(rows.map((row) => [row.position, row.id]));
      for (const i of batch) ids[i] = idAt.get(first + i)!;
      const items = batch.flatMap((i) =>
        tasks[i]!.checklistItems.map((item, position) => ({
          task_id: ids[i]!,
          user_id: userId,
          title: item.title,
          done: item.done,
          position,
          search_text: foldForSearch(item.title),
          created_at: now,
          updated_at: now,
        })),
      );
      for (let at = 0; at < items.length; at += BATCH) {
        await db
          .insertInto('checklist_items')
          .values(items.slice(at, at + BATCH))
          .execute();
      }
    }
  }
  return ids;
}
