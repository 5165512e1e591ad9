import { type Kysely, sql } from 'kysely';
import { taskActivityPath } from '../../common/activity';
import {
  CHECKLIST_LIMITS,
  CHECKLIST_MESSAGES,
  type ChecklistItem,
  checklistPath,
  type UpdateChecklistItemBody,
} from '../../common/checklist';
import type { ProjectRole } from '../../common/projects';
import { ARCHIVED_TASKS_PATH, TASKS_PATH, taskPath } from '../../common/tasks';
import type { Access } from '../access';
import { type ActivityRecord, recordActivity } from '../activity/repository';
import type { ChecklistItemRow, Database, TaskRow } from '../db/schema';
import { nowIso, toBool } from '../db/values';
import { badRequest, HttpError, notFound } from '../http/errors';
import { type ProjectEvents, taskChange } from '../live/projects';
import { foldForSearch } from './search';
import type { TaskService } from './service';
import { versionBump } from './version';

const toItem = (row: ChecklistItemRow): ChecklistItem => ({
  id: row.id,
  taskId: row.task_id,
  title: row.title,
  done: toBool(row.done),
  position: row.position,
});

const itemNotFound = () => notFound('Checklist item');

/** What a `checklist_changed` activity entry says was done to an item. */
type ChecklistAction = 'added' | 'renamed' | 'ticked' | 'unticked' | 'deleted' | 'reordered';

/**
 * The item a reorder moved: the one that went furthest (a drag moves one item several places and
 * its neighbours one each). Undefined when the order is unchanged.
 */
function movedItem(before: ChecklistItemRow[], order: number[]): ChecklistItemRow | undefined {
  let moved: ChecklistItemRow | undefined;
  let furthest = 0;
  for (const [position, id] of order.entries()) {
    const from = before.findIndex((item) => item.id === id);
    if (Math.abs(position - from) > furthest) {
      furthest = Math.abs(position - from);
      moved = before[from];
    }
  }
  return moved;
}

export interface ChecklistServiceDeps {
  db: Kysely<Database>;
  access: Access;
  /** The project's members' streams (../live/projects). */
  projectEvents: ProjectEvents;
  /** The task as its caller sees it, for the `checklist.changed` event (webhooks). */
  tasks?: Pick<TaskService, 'get'>;
}

/**
 * Checklist items of a task (issue 13). Who may do what is the task's project's role table
 * (decision 029, the access module): viewers read, commenters tick and untick, editors add, rename,
 * reorder and delete; an item of a task the caller cannot see does not exist (404). Each change
 * writes a `checklist_changed` activity entry and recounts the task's `checklist` in its
 * transaction (which bumps the project's list version, so cached lists show the new count).
 */
export function createChecklistService({ db, access, projectEvents, tasks }: ChecklistServiceDeps) {
  const changed = async (userId: number, task: TaskRow, counts = true) =>
    projectEvents(
      [task.project_id],
      [
        ...(counts ? [TASKS_PATH, ARCHIVED_TASKS_PATH, taskPath(task.id)] : []),
        checklistPath(task.id),
        taskActivityPath(task.id),
      ],
      tasks
        ? await tasks.get(userId, task.id).then(
            (changedTask) => [taskChange('checklist.changed', changedTask)],
            () => [],
          )
        : [],
    );

  const requireTask = async (userId: number, taskId: number, needed: ProjectRole) =>
    (await access.requireTask({ id: userId }, taskId, needed)).task;

  /** The item and its task, when the caller's role is at least `needed(item)`. */
  const requireItem = async (
    userId: number,
    itemId: number,
    needed: (item: ChecklistItemRow) => ProjectRole,
  ): Promise<{ item: ChecklistItemRow; task: TaskRow }> => {
    const item = await db
      .selectFrom('checklist_items')
      .selectAll()
      .where('id', '=', itemId)
      .executeTakeFirst();
    if (!item) throw itemNotFound();
    try {
      return { item, task: await requireTask(userId, item.task_id, needed(item)) };
    } catch (error) {
      // An item of a task the caller cannot see is answered as one that does not exist.
      if (error instanceof HttpError && error.statusCode === 404) throw itemNotFound();
      throw error;
    }
  };

  const activity = (
    userId: number,
    taskId: number,
    action: ChecklistAction,
    title: string,
  ): ActivityRecord => ({
    taskId,
    actorId: userId,
    kind: 'checklist_changed',
    data: { action, title },
  });

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
        ...versionBump,
      })
      .where('id', '=', taskId)
      .execute();

  return {
    async list(userId: number, taskId: number): Promise<ChecklistItem[]> {
      await requireTask(userId, taskId, 'viewer');
      return (await itemsOf(db, taskId)).map(toItem);
    },

    /** A new item goes to the bottom of the list. */
    async add(userId: number, taskId: number, title: string): Promise<ChecklistItem> {
      const [item] = await this.addMany(userId, taskId, [title]);
      return item!;
    },

    /**
     * New items at the bottom, in order, all or none (a task holds at most CHECKLIST_LIMITS.itemsMax).
     * `extra` is activity recorded in the same transaction (an applied AI proposal's).
     */
    async addMany(
      userId: number,
      taskId: number,
      titles: string[],
      extra: ActivityRecord[] = [],
    ): Promise<ChecklistItem[]> {
      const task = await requireTask(userId, taskId, 'editor');
      const rows = await db.transaction().execute(async (trx) => {
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
        await recordActivity(trx, [
          ...titles.map((title) => activity(userId, taskId, 'added', title)),
          ...extra,
        ]);
        return inserted;
      });
      await changed(userId, task);
      return rows.sort((a, b) => a.position - b.position).map(toItem);
    },

    /** Ticking or unticking alone is a commenter's; a new title is an editor's. */
    async update(userId: number, itemId: number, input: UpdateChecklistItemBody): Promise<ChecklistItem> {
      const renames = (item: ChecklistItemRow) => input.title !== undefined && input.title !== item.title;
      const { item: current, task } = await requireItem(userId, itemId, (item) =>
        renames(item) ? 'editor' : 'commenter',
      );
      const ticks = input.done !== undefined && input.done !== toBool(current.done);
      if (!renames(current) && !ticks) return toItem(current);
      const row = await db.transaction().execute(async (trx) => {
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
          .executeTakeFirst();
        if (!updated) throw itemNotFound();
        await recount(trx, current.task_id);
        const title = updated.title;
        await recordActivity(trx, [
          ...(renames(current) ? [activity(userId, task.id, 'renamed', title)] : []),
          ...(ticks ? [activity(userId, task.id, input.done ? 'ticked' : 'unticked', title)] : []),
        ]);
        return updated;
      });
      await changed(userId, task);
      return toItem(row);
    },

    async remove(userId: number, itemId: number): Promise<void> {
      const { task } = await requireItem(userId, itemId, () => 'editor');
      await db.transaction().execute(async (trx) => {
        const deleted = await trx
          .deleteFrom('checklist_items')
          .where('id', '=', itemId)
          .returning('title')
          .executeTakeFirst();
        if (!deleted) throw itemNotFound();
        await recount(trx, task.id);
        await recordActivity(trx, [activity(userId, task.id, 'deleted', deleted.title)]);
      });
      await changed(userId, task);
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
      const task = await requireTask(userId, taskId, 'editor');
      const { rows, moved } = await db.transaction().execute(async (trx) => {
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
        const item = movedItem(items, order);
        if (item) await recordActivity(trx, [activity(userId, taskId, 'reordered', item.title)]);
        return { rows: await itemsOf(trx, taskId), moved: item !== undefined };
      });
      // The task's counts are unchanged: only its checklist (and activity) is news.
      if (moved) await changed(userId, task, false);
      return rows.map(toItem);
    },
  };
}

export type ChecklistService = ReturnType<typeof createChecklistService>;
