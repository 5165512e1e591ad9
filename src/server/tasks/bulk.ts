import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { nowIso } from '../db/values';
import { doneAfter } from './done';
import { foldForSearch, taskSearchText } from './search';
import { versionBump } from './version';

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
   * Issue 29: the index, in the same call, of an earlier task this one is a sub-task of (an import's
   * nesting). It takes that task's section; completed, it stays out of the archive unless its
   * top-level task is archived (decision 050). Ignored when it names no earlier task.
   */
  parentIndex?: number;
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
  const ids: number[] = [];
  // Issue 29: each task's parent (an earlier index, else none), top-level task, and archived state.
  const parentOf = tasks.map((task, i) =>
    task.parentIndex !== undefined &&
    Number.isInteger(task.parentIndex) &&
    task.parentIndex >= 0 &&
    task.parentIndex < i
      ? task.parentIndex
      : undefined,
  );
  const rootOf: number[] = [];
  for (let i = 0; i < tasks.length; i++) {
    const parent = parentOf[i];
    rootOf.push(parent === undefined ? i : rootOf[parent]!);
  }
  const archivedAt = (i: number) => doneAfter(tasks[rootOf[i]!]!) === true;
  for (let start = 0; start < tasks.length; start += BATCH) {
    const batch = tasks.slice(start, start + BATCH);
    const rows = await db
      .insertInto('tasks')
      .values(
        batch.map((task, i) => {
          // A file from elsewhere may set one flag only: here they are one state.
          const done = doneAfter(task) === true;
          const index = start + i;
          const parent = parentOf[index];
          const archived = parent === undefined ? done : archivedAt(index);
          const root = tasks[rootOf[index]!]!;
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
            section_id: (parent === undefined ? task.sectionId : root.sectionId) ?? null,
            priority: task.priority ?? 4,
            completed: done || archived,
            archived,
            archived_at: archived
              ? ((parent === undefined ? task.archivedAt : root.archivedAt) ?? now)
              : null,
            position: first + start + i,
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
    for (let i = 0; i < batch.length; i++) ids.push(idAt.get(first + start + i)!);
    const items = batch.flatMap((task, i) =>
      task.checklistItems.map((item, position) => ({
        task_id: idAt.get(first + start + i)!,
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
  // The nesting, one statement per parent.
  const children = new Map<number, number[]>();
  for (let i = 0; i < tasks.length; i++) {
    const parent = parentOf[i];
    if (parent === undefined) continue;
    const list = children.get(ids[parent]!);
    if (list) list.push(ids[i]!);
    else children.set(ids[parent]!, [ids[i]!]);
  }
  for (const [parentId, childIds] of children) {
    for (let at = 0; at < childIds.length; at += BATCH) {
      await db
        .updateTable('tasks')
        .set({ parent_id: parentId, ...versionBump })
        .where('id', 'in', childIds.slice(at, at + BATCH))
        .execute();
    }
  }
  return ids;
}
