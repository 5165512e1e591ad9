import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { nowIso } from '../db/values';
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
}

/** Rows per INSERT: well under either database's limit of bound parameters. */
const BATCH = 400;

/**
 * Adds tasks on top of the user's list, keeping their given order, with their search text,
 * checklist items and checklist counts written as the tasks feature writes them one by one. Call it
 * inside a transaction (`db` is then the transaction) and publish the change after it commits.
 * Returns how many tasks it added.
 */
export async function insertTasksOnTop(
  db: Kysely<Database>,
  userId: number,
  tasks: NewTaskWithChecklist[],
): Promise<number> {
  if (tasks.length === 0) return 0;
  const { top } = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.min('position').as('top'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  // The first task goes to top - n, the last just above the current top (position starts at 0).
  const first = (top === null ? 0 : Number(top)) - tasks.length;
  const now = nowIso();
  for (let start = 0; start < tasks.length; start += BATCH) {
    const batch = tasks.slice(start, start + BATCH);
    const rows = await db
      .insertInto('tasks')
      .values(
        batch.map((task, i) => ({
          user_id: userId,
          title: task.title,
          description: task.description,
          due_date: task.dueDate,
          completed: task.completed,
          archived: task.archived,
          archived_at: task.archived ? (task.archivedAt ?? now) : null,
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
        })),
      )
      .returning(['id', 'position'])
      .execute();
    // Positions are unique within the import, so they say which id is whose.
    const idAt = new Map(rows.map((row) => [row.position, row.id]));
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
  return tasks.length;
}
