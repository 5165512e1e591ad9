import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import {
  ARCHIVED_TASKS_PATH,
  type CreateTaskInput,
  isFiltered,
  TASK_MESSAGES,
  TASKS_PATH,
  type Task,
  type TaskListRouteQuery,
  taskPath,
  type UpdateTaskInput,
} from '../../common/tasks';
import type { DialectName } from '../db';
import type { Database, TaskRow, TaskUpdate } from '../db/schema';
import { nowIso, toBool } from '../db/values';
import type { FileStore } from '../files/store';
import { badRequest, notFound } from '../http/errors';
import type { LiveBus } from '../live/bus';
import { insertTasksOnTop } from './bulk';
import { createListCache, type ListBody, listBody } from './list-cache';
import { createTaskRepository, inTransaction, toTask } from './repository';
import { taskSearchText } from './search';

/** Memory for cached task lists: about 40 lists of 1,000 tasks (fewer when also kept compressed). */
const LIST_CACHE_BYTES = 16 * 1024 * 1024;
/** Lists larger than this (about 2,500 tasks) are not kept (decision 023). */
const LIST_CACHE_ENTRY_BYTES = 1024 * 1024;

export const TASK_ERRORS = {
  archivedReorder: 'Archived tasks cannot be reordered.',
  duplicateInReorder: (id: number) => `taskIds lists task ${id} more than once`,
} as const;

export interface TaskServiceDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  live: LiveBus;
  fileStore: FileStore;
  logger: FastifyBaseLogger;
}

/** Task rules. Every call is scoped to its owner: another user's task does not exist (404). */
export function createTaskService({ db, dialect, live, fileStore, logger }: TaskServiceDeps) {
  const tasks = createTaskRepository(db, dialect);
  const taskNotFound = () => notFound('Task');
  /** Every open stream of the user refetches its lists (and the one task, when given). */
  const changed = (userId: number, ...more: string[]) =>
    live.publish(userId, [TASKS_PATH, ARCHIVED_TASKS_PATH, ...more]);

  const assertOwnAgent = async (userId: number, agentId: number | null | undefined) => {
    if (agentId != null && !(await tasks.agentExists(userId, agentId))) {
      throw badRequest(TASK_MESSAGES.agentNotFound);
    }
  };

  const lists = createListCache(LIST_CACHE_BYTES, LIST_CACHE_ENTRY_BYTES);
  /** The version is read before the rows, so a cached list is never older than its version says. */
  /** The rows as the list's JSON: full tasks, or (`view=summary`) without notes and AI draft. */
  const serialise = (rows: TaskRow[], view: TaskListRouteQuery['view']) =>
    Buffer.from(
      JSON.stringify(
        view === 'summary'
          ? rows.map((row) => {
              const { notes: _notes, aiDraft: _draft, ...summary } = toTask(row);
              return summary;
            })
          : rows.map(toTask),
      ),
    );
  const cachedList = async (
    key: string,
    userId: number,
    view: TaskListRouteQuery['view'],
    read: (userId: number) => Promise<TaskRow[]>,
  ): Promise<ListBody> => {
    const version = await tasks.version(userId);
    const cached = lists.get(`${key}:${view ?? 'full'}`, version);
    if (cached) return cached;
    return lists.set(`${key}:${view ?? 'full'}`, version, serialise(await read(userId), view));
  };
  const filteredList = async (
    userId: number,
    archived: boolean,
    query: TaskListRouteQuery,
  ): Promise<ListBody> => listBody(serialise(await tasks.listFiltered(userId, archived, query), query.view));

  return {
    /**
     * GET /api/tasks as JSON bytes (and compressed, on demand): the user's tasks that are not
     * archived, in list order. The whole list is cached by version; a filtered one is read anew each
     * time, so it is never stale.
     */
    activeList: async (userId: number, query: TaskListRouteQuery = {}): Promise<ListBody> =>
      isFiltered(query)
        ? filteredList(userId, false, query)
        : cachedList(`${userId}:active`, userId, query.view, tasks.listActive),

    /** GET /api/tasks/archived likewise: most recently archived first. */
    archivedList: async (userId: number, query: TaskListRouteQuery = {}): Promise<ListBody> =>
      isFiltered(query)
        ? filteredList(userId, true, query)
        : cachedList(`${userId}:archived`, userId, query.view, tasks.listArchived),

    async get(userId: number, id: number): Promise<Task> {
      const row = await tasks.find(userId, id);
      if (!row) throw taskNotFound();
      return toTask(row);
    },

    /** A new task goes to the top of the active list; the owner is the caller, whatever the body says. */
    async create(userId: number, input: CreateTaskInput): Promise<Task> {
      await assertOwnAgent(userId, input.contextId);
      const row = await tasks.insertAtTop({
        user_id: userId,
        title: input.title,
        description: input.description,
        due_date: input.dueDate,
        completed: input.completed,
        archived: input.archived,
        archived_at: input.archived ? nowIso() : null,
        context_id: input.contextId,
        notes: null,
        ai_draft: null,
        ai_assisted: false,
        search_text: taskSearchText({ title: input.title, description: input.description, notes: null }),
      });
      changed(userId);
      return toTask(row);
    },

    /** New tasks on top of the list in the given order, all or none (an AI agent's split of a task). */
    async createMany(
      userId: number,
      inputs: Array<Pick<CreateTaskInput, 'title' | 'description' | 'dueDate'>>,
    ): Promise<number> {
      const count = await db.transaction().execute((trx) =>
        insertTasksOnTop(
          trx,
          userId,
          inputs.map((input) => ({
            ...input,
            completed: false,
            archived: false,
            contextId: null,
            notes: null,
            aiDraft: null,
            aiAssisted: false,
            checklistItems: [],
          })),
        ),
      );
      changed(userId);
      return count;
    },

    /** Archiving stamps archived_at; restoring clears it and puts the task back on top of the list. */
    async update(userId: number, id: number, input: UpdateTaskInput): Promise<Task> {
      const current = await tasks.find(userId, id);
      if (!current) throw taskNotFound();
      await assertOwnAgent(userId, input.contextId);
      const changes: Omit<TaskUpdate, 'position'> = {
        title: input.title,
        description: input.description,
        notes: input.notes,
        completed: input.completed,
        context_id: input.contextId,
        ai_draft: input.aiDraft,
        ai_assisted: input.aiAssisted,
        due_date: input.dueDate,
      };
      if (input.title !== undefined || input.description !== undefined || input.notes !== undefined) {
        changes.search_text = taskSearchText({
          title: input.title ?? current.title,
          description: input.description !== undefined ? input.description : current.description,
          notes: input.notes !== undefined ? input.notes : current.notes,
        });
      }
      const restoring = input.archived === false && toBool(current.archived);
      if (input.archived !== undefined && input.archived !== toBool(current.archived)) {
        changes.archived = input.archived;
        changes.archived_at = input.archived ? nowIso() : null;
      }
      // Kysely leaves undefined values out of the SET list.
      if (Object.values(changes).every((v) => v === undefined)) return toTask(current);
      const row = await tasks.update(userId, id, changes, restoring);
      if (!row) throw taskNotFound();
      changed(userId, taskPath(id));
      return toTask(row);
    },

    /** Deletes the task, its file rows, then its stored files; a file already gone is fine. */
    async remove(userId: number, id: number): Promise<void> {
      const storageKeys = await inTransaction(db, dialect, async (repository) => {
        const keys = await repository.fileKeys(userId, id);
        if (!(await repository.delete(userId, id))) throw taskNotFound();
        return keys;
      });
      await Promise.all(
        storageKeys.map((key) =>
          fileStore.remove(key).catch((error) => logger.warn({ err: error, key }, 'stored file not removed')),
        ),
      );
      changed(userId);
    },

    /**
     * Moves one active task to just after `afterId` (null: the top), writing that task alone: its
     * position becomes the midpoint of its new neighbours'. Only when two neighbours are too close
     * for a midpoint (after about fifty moves into the same gap) is the whole list renumbered.
     */
    async move(userId: number, id: number, afterId: number | null): Promise<Task> {
      if (afterId === id) throw badRequest(TASK_MESSAGES.moveAfterItself);
      await inTransaction(db, dialect, async (repository) => {
        const refuse = async (missing: number) => {
          if ((await repository.archivedAmong(userId, [missing])).length > 0) {
            throw badRequest(TASK_ERRORS.archivedReorder);
          }
          throw taskNotFound();
        };
        const moving = await repository.activePlace(userId, id);
        if (!moving) return refuse(id);
        const after = afterId === null ? null : await repository.activePlace(userId, afterId);
        if (afterId !== null && !after) return refuse(afterId);
        const next = await repository.nextActive(userId, after ?? null, id);
        const position = !after
          ? (next?.position ?? 0) - 1
          : next
            ? (after.position + next.position) / 2
            : after.position + 1;
        if (!after || !next || (position > after.position && position < next.position)) {
          await repository.setPosition(userId, id, position);
          return;
        }
        const order = (await repository.activeIds(userId)).filter((other) => other !== id);
        order.splice(order.indexOf(after.id) + 1, 0, id);
        await repository.setOrder(userId, order);
      });
      changed(userId, taskPath(id));
      const row = await tasks.find(userId, id);
      if (!row) throw taskNotFound();
      return toTask(row);
    },

    /**
     * Applies a new order of the caller's active tasks in one transaction and returns the full order.
     * Any unknown, foreign, archived or repeated id refuses the whole request and changes nothing.
     * Active tasks left out (the client does not list completed ones) keep their relative order after
     * the listed ones, so a list that is slightly stale still reorders what the person saw.
     */
    async reorder(userId: number, taskIds: number[]): Promise<number[]> {
      const seen = new Set<number>();
      for (const id of taskIds) {
        if (seen.has(id)) throw badRequest(TASK_ERRORS.duplicateInReorder(id));
        seen.add(id);
      }
      const order = await inTransaction(db, dialect, async (repository) => {
        const active = await repository.activeIds(userId);
        const activeSet = new Set(active);
        const notActive = taskIds.filter((id) => !activeSet.has(id));
        if (notActive.length > 0) {
          const archived = await repository.archivedAmong(userId, notActive);
          // A foreign id and an unknown one answer alike, so reorder reveals nothing about others' tasks.
          if (archived.length < notActive.length) throw taskNotFound();
          throw badRequest(TASK_ERRORS.archivedReorder);
        }
        const full = [...taskIds, ...active.filter((id) => !seen.has(id))];
        await repository.setOrder(userId, full);
        return full;
      });
      changed(userId);
      return order;
    },
  };
}

export type TaskService = ReturnType<typeof createTaskService>;
