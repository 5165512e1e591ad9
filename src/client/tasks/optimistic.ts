import type { QueryClient } from '@tanstack/react-query';
import { LABELS_PATH, type Label } from '../../common/labels';
import { PROJECTS_PATH, type Project } from '../../common/projects';
import {
  ALL_PROJECTS,
  ARCHIVED_TASKS_PATH,
  DEFAULT_PRIORITY,
  TASKS_PATH,
  type Task,
  type TaskSummary,
} from '../../common/tasks';
import { getSession } from '../lib/session';

/**
 * What a task write kept in the outbox (issue 31) shows until the outbox is sent: the cached lists
 * (persisted with the rest of the cache) changed as the server would change them. Once the outbox is
 * sent it refetches what is shown, and a refused change goes back with that refetch, so nothing here
 * needs undoing; only a write the server refuses at once (online) is taken back by its caller.
 */

let lastTempId = 0;
/**
 * A temporary id for a task made offline: negative (no real task has one) and unique across reloads
 * (the outbox keeps its entries through them), one a call.
 */
export function tempTaskId(): number {
  const next = -Date.now() * 1000;
  lastTempId = next < lastTempId ? next : lastTempId - 1;
  return lastTempId;
}

export const isTempTaskId = (id: number): boolean => id < 0;

/** The person's Inbox, as the cached projects say. */
export function cachedInboxId(queryClient: QueryClient): number | undefined {
  return queryClient.getQueryData<Project[]>([PROJECTS_PATH])?.find((project) => project.inbox)?.id;
}

export type DraftFields = Pick<Task, 'title' | 'projectId'> &
  Partial<
    Pick<Task, 'description' | 'dueDate' | 'dueTime' | 'recurrence' | 'sectionId' | 'priority' | 'parentId'>
  > & { labelIds?: number[]; recurrenceFrom?: Task['recurrenceFrom']; contextId?: number | '' | null };

/** The task as the server would answer it, under the temporary id `id`. */
export function draftTask(queryClient: QueryClient, id: number, fields: DraftFields): Task {
  const now = new Date().toISOString();
  const labels = queryClient.getQueryData<Label[]>([LABELS_PATH]) ?? [];
  return {
    id,
    userId: getSession()?.user.id ?? 0,
    title: fields.title,
    description: fields.description || null,
    dueDate: fields.dueDate || null,
    completed: false,
    archived: false,
    position: 0,
    contextId: typeof fields.contextId === 'number' ? fields.contextId : null,
    notes: null,
    aiDraft: null,
    aiAssisted: false,
    createdAt: now,
    updatedAt: now,
    archivedAt: null,
    checklist: { done: 0, total: 0 },
    projectId: fields.projectId,
    assigneeIds: [],
    commentCount: 0,
    dueTime: fields.dueTime ?? null,
    dueTimeZone: fields.dueTime ? Intl.DateTimeFormat().resolvedOptions().timeZone : null,
    recurrence: fields.recurrence ?? null,
    recurrenceFrom: fields.recurrenceFrom ?? 'due',
    sectionId: fields.sectionId ?? null,
    priority: fields.priority ?? DEFAULT_PRIORITY,
    labels: labels
      .filter((label) => fields.labelIds?.includes(label.id))
      .map(({ id: labelId, name, color }) => ({ id: labelId, name, color })),
    parentId: fields.parentId ?? null,
    subtasks: { done: 0, total: 0 },
    blockedBy: 0,
    // What the server gives a new task: a later edit made offline names it as its If-Match.
    version: 1,
  };
}

type ListParams = Record<string, string | string[]> | undefined;
const SCOPE_PARAMS = new Set(['projectId', 'assignee', 'dueFrom', 'dueTo']);

/**
 * Whether the cached list under `params` (a list key's second element) shows `task` once made: the
 * Inbox's, its project's, and the person's Today/Upcoming/calendar windows its due date falls in. A
 * filtered or sorted list is left to the refetch.
 */
function listShows(params: ListParams, task: TaskSummary, inboxId: number | undefined): boolean {
  if (!params) return task.projectId === inboxId;
  if (Object.keys(params).some((name) => !SCOPE_PARAMS.has(name))) return false;
  const { projectId, dueFrom, dueTo } = params as Record<string, string | undefined>;
  if (dueFrom === undefined && dueTo === undefined) {
    return params.assignee === undefined && projectId === String(task.projectId);
  }
  if (projectId !== ALL_PROJECTS || !task.dueDate) return false;
  return (dueFrom === undefined || task.dueDate >= dueFrom) && (dueTo === undefined || task.dueDate <= dueTo);
}

/** Puts `task` at the top of every cached list that would show it and does not yet. */
export function showInLists(queryClient: QueryClient, task: TaskSummary): void {
  const inboxId = cachedInboxId(queryClient);
  for (const [key, tasks] of queryClient.getQueriesData<TaskSummary[]>({ queryKey: [TASKS_PATH] })) {
    if (!tasks || key[0] !== TASKS_PATH || key.length > 2 || tasks.some((t) => t.id === task.id)) continue;
    if (!listShows(key[1] as ListParams, task, inboxId)) continue;
    queryClient.setQueryData<TaskSummary[]>(key, [task, ...tasks]);
  }
}

/** Shows a task made offline at the top of every cached list that would show it. */
export function showNewTask(queryClient: QueryClient, task: Task): void {
  const { notes: _notes, aiDraft: _aiDraft, ...summary } = task;
  showInLists(queryClient, summary);
}

/**
 * Shows a restored task (completed and archived no more) at once: out of the archive's lists and
 * back at the top of the active lists that would show it. The edit itself is merged by useUpdateTask.
 */
export function showRestored(queryClient: QueryClient, task: TaskSummary): void {
  queryClient.setQueriesData<TaskSummary[]>({ queryKey: [ARCHIVED_TASKS_PATH] }, (tasks) =>
    Array.isArray(tasks) ? tasks.filter((t) => t.id !== task.id) : tasks,
  );
  showInLists(queryClient, { ...task, completed: false, archived: false });
}
