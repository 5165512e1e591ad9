import { type Kysely, sql } from 'kysely';
import {
  CHECKLIST_LIMITS,
  CHECKLIST_MESSAGES,
  type ChecklistItem,
  checklistPath,
  type UpdateChecklistItemBody,
} from '../../common/checklist';
import { ARCHIVED_TASKS_PATH, TASKS_PATH, taskPath } from '../../common/tasks';
import type { ChecklistItemRow, Database } from '../db/schema';
import { nowIso, toBool } from '../db/values';
import { badRequest, notFound } from '../http/errors';
import type { LiveBus } from '../live/bus';
import { foldForSearch } from './search';

const toItem = (row: ChecklistItemRow): ChecklistItem => ({
  id: row.id,
  taskId: row.task_id,
  title: row.title,
  done: toBool(row.done),
  position: row.position,
});

const itemNotFound = () => notFound('Checklist item');
const taskNotFound = () => notFound('Task');

/**
 * Checklist items of a task (issue 13). Every call is scoped to the owner, as for tasks: another
 * person's task or item does not exist (404). Each change recounts the task's `checklist` in the
 * same transaction, which also bumps the owner's task version, so cached lists show the new count.
 */
export function createChecklistService({ db, live }: { db: Kysely<Database>; live: LiveBus }) {
  const changed = (userId: number, taskId: number) =>
    live.publish(userId, [TASKS_PATH, ARCHIVED_TASKS_PATH, taskPath(taskId), checklistPath(taskId)]);

  const assertOwnTask = async (trx: Kysely<Database>, userId: number, taskId: number) => {
    const task = await trx
      .selectFrom('tasks')
      .select('id')
      .where('id', '=', taskId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!task) throw taskNotFound();
  };

  const itemsOf = (trx: Kysely<Database>, taskId: number) =>
    trx
      .selectFrom('checklist_items')
      .selectAll()
      .where('task_id', '=', taskId)
      .orderBy('position')
      .orderBy('id')
      .execute();

  const recount = (trx: Kysely<Database>, taskId: number) =>
    trx
      .updateTable('tasks')
      .set({
        checklist_total: sql<number>`(select count(*) from checklist_items where task_id = ${taskId})`,
        checklist_done: sql<number>`(select count(*) from checklist_items where task_id = ${taskId} and done = ${sql.lit(true)})`,
      })
      .where('id', '=', taskId)
      .execute();

  return {
    async list(userId: number, taskId: number): Promise<ChecklistItem[]> {
      await assertOwnTask(db, userId, taskId);
      return (await itemsOf(db, taskId)).map(toItem);
    },

    /** A new item goes to the bottom of the list. */
    async add(userId: number, taskId: number, title: string): Promise<ChecklistItem> {
      const [item] = await this.addMany(userId, taskId, [title]);
      return item!;
    },

    /** New items at the bottom, in order, all or none (a task holds at most CHECKLIST_LIMITS.itemsMax). */
    async addMany(userId: number, taskId: number, titles: string[]): Promise<ChecklistItem[]> {
      const rows = await db.transaction().execute(async (trx) => {
        await assertOwnTask(trx, userId, taskId);
        const { count, last } = await trx
          .selectFrom('checklist_items')
          .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.max('position').as('last')])
          .where('task_id', '=', taskId)
          .executeTakeFirstOrThrow();
        if (Number(count) + titles.length > CHECKLIST_LIMITS.itemsMax)
          throw badRequest(CHECKLIST_MESSAGES.tooMany);
        const now = nowIso();
        const first = last === null ? 0 : Number(last) + 1;
        const inserted = await trx
          .insertInto('checklist_items')
          .values(
            titles.map((title, i) => ({
              task_id: taskId,
              user_id: userId,
              title,
              done: false,
              position: first + i,
              search_text: foldForSearch(title),
              created_at: now,
              updated_at: now,
            })),
          )
          .returningAll()
          .execute();
        await recount(trx, taskId);
        return inserted;
      });
      changed(userId, taskId);
      return rows.sort((a, b) => a.position - b.position).map(toItem);
    },

    async update(userId: number, itemId: number, input: UpdateChecklistItemBody): Promise<ChecklistItem> {
      const row = await db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom('checklist_items')
          .selectAll()
          .where('id', '=', itemId)
          .where('user_id', '=', userId)
          .executeTakeFirst();
        if (!current) throw itemNotFound();
        if (input.title === undefined && input.done === undefined) return current;
        const updated = await trx
          .updateTable('checklist_items')
          .set({
            title: input.title,
            search_text: input.title === undefined ? undefined : foldForSearch(input.title),
            done: input.done,
            updated_at: nowIso(),
          })
          .where('id', '=', itemId)
          .returningAll()
          .executeTakeFirstOrThrow();
        await recount(trx, current.task_id);
        return updated;
      });
      changed(userId, row.task_id);
      return toItem(row);
    },

    async remove(userId: number, itemId: number): Promise<void> {
      const taskId = await db.transaction().execute(async (trx) => {
        const deleted = await trx
          .deleteFrom('checklist_items')
          .where('id', '=', itemId)
          .where('user_id', '=', userId)
          .returning('task_id')
          .executeTakeFirst();
        if (!deleted) throw itemNotFound();
        await recount(trx, deleted.task_id);
        return deleted.task_id;
      });
      changed(userId, taskId);
    },

    /**
     * The listed items first, in the given order, then the task's other items in theirs. An id that
     * is not one of this task's items refuses the whole request.
     */
    async reorder(userId: number, taskId: number, itemIds: number[]): Promise<ChecklistItem[]> {
      const seen = new Set<number>();
      for (const id of itemIds) {
        if (seen.has(id)) throw badRequest(CHECKLIST_MESSAGES.duplicateInReorder(id));
        seen.add(id);
      }
      const rows = await db.transaction().execute(async (trx) => {
        await assertOwnTask(trx, userId, taskId);
        const items = await itemsOf(trx, taskId);
        const byId = new Map(items.map((item) => [item.id, item]));
        if (itemIds.some((id) => !byId.has(id))) throw itemNotFound();
        const order = [...itemIds, ...items.map((item) => item.id).filter((id) => !seen.has(id))];
        const now = nowIso();
        for (const [position, id] of order.entries()) {
          if (byId.get(id)!.position === position) continue;
          await trx
            .updateTable('checklist_items')
            .set({ position, updated_at: now })
            .where('id', '=', id)
            .execute();
        }
        return itemsOf(trx, taskId);
      });
      // The task's counts are unchanged: only its checklist is news.
      live.publish(userId, [checklistPath(taskId)]);
      return rows.map(toItem);
    },
  };
}

export type ChecklistService = ReturnType<typeof createChecklistService>;
