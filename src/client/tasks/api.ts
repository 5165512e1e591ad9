import {
  keepPreviousData,
  type QueryClient,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { LABELS_PATH, type Label } from '../../common/labels';
import { LIMITS } from '../../common/spec';
import {
  ALL_PROJECTS,
  ARCHIVED_TASKS_PATH,
  type AssigneeFilter,
  type CreateTaskBody,
  TASKS_PATH,
  type Task,
  type TaskSummary,
  taskCompletePath,
  taskPath,
  type UpdateTaskBody,
} from '../../common/tasks';
import { apiRequest } from '../lib/api';
import { searchParams } from '../lib/search-params';
import { bodyFieldsOf } from '../offline/entries';
import { sendOrKeep } from '../offline/outbox';
import { ownLabelIds } from '../offline/screen';
import { invalidateProjects } from '../projects/api';
import { filterParams, type TaskFilter } from './filters';
import { cachedInboxId, draftTask, isTempTaskId, showNewTask, tempTaskId } from './optimistic';

/** Query keys are the URLs the default query function GETs (spec §7). */
export const tasksKey = [TASKS_PATH] as const;
export const archivedTasksKey = [ARCHIVED_TASKS_PATH] as const;
export const taskKey = (id: number) => [taskPath(id)] as const;

export type TaskUpdates = UpdateTaskBody;
export type NewTask = Pick<CreateTaskBody, 'title' | 'description' | 'dueDate' | 'contextId'> &
  Partial<
    Pick<CreateTaskBody, 'dueTime' | 'recurrence' | 'recurrenceFrom' | 'priority' | 'labelIds' | 'sectionId'>
  >;

/** A reminder to add to a task (issue 22): an ISO instant, or minutes before its due date-time. */
export type NewReminder = { at: string } | { relativeMinutes: number };
export const taskRemindersPath = (taskId: number) => `${TASKS_PATH}/${taskId}/reminders`;

/**
 * POST /api/tasks/{id}/reminders (the reminders API of issue 22), through the outbox: quick add's
 * reminders follow a task made offline, named by its temporary id.
 */
export async function addReminder(task: Pick<Task, 'id' | 'title'>, reminder: NewReminder): Promise<void> {
  await sendOrKeep({
    method: 'POST',
    url: taskRemindersPath(task.id),
    body: reminder,
    task: { id: task.id, title: task.title },
  });
}

/** POST /api/tasks/{id}/complete: a recurring task moves on to its next date; `final` ends it. */
export async function completeTask(id: number, final = false): Promise<Task> {
  const res = await apiRequest('POST', taskCompletePath(id), final ? { final: true } : {});
  return (await res.json()) as Task;
}

export function isActive(task: Pick<Task, 'completed' | 'archived'>): boolean {
  return !task.completed && !task.archived;
}

/**
 * Which tasks a list shows (issue 21): the caller's Inbox (the spec's list, asked for with no
 * parameter), one project's, those assigned to the caller in any project, or (issue 23, Today and
 * Upcoming) everything of the caller's: their Inbox and what is assigned to them, and (issue 28)
 * unless `onlyAssigned`, what is assigned to nobody in the projects they can edit.
 */
export type TaskScope =
  | { kind: 'inbox' }
  | { kind: 'project'; projectId: number }
  | { kind: 'assigned' }
  | { kind: 'mine'; onlyAssigned?: boolean };
export const INBOX_SCOPE: TaskScope = { kind: 'inbox' };

function scopeParams(scope: TaskScope): Record<string, string> {
  if (scope.kind === 'project') return { projectId: String(scope.projectId) };
  if (scope.kind === 'mine')
    return {
      projectId: ALL_PROJECTS,
      assignee: (scope.onlyAssigned ? 'me' : 'me_or_unassigned') satisfies AssigneeFilter,
    };
  return scope.kind === 'assigned' ? { assignee: 'me' } : {};
}

/**
 * A list's query key: the URL alone for the Inbox's whole list, the URL and its parameters (the
 * project, the filter) for any other. All start with the URL, so invalidating the list (an edit, a
 * live event) also refetches every project's list and every filtered view.
 */
export const listKey = (path: string, scope: TaskScope, filter?: TaskFilter) => {
  const params = { ...scopeParams(scope), ...(filter ? filterParams(filter) : null) };
  return Object.keys(params).length > 0 ? ([path, params] as const) : ([path] as const);
};

/**
 * The active list's tasks as summaries (issue 15: no notes, no AI draft; an expanded card reads
 * those with useTaskDetails), under the same keys as the full list, so every write and live update
 * that reaches the list reaches it.
 */
async function fetchSummaries({ queryKey, signal }: { queryKey: readonly unknown[]; signal: AbortSignal }) {
  const [url, params] = queryKey as [string, Record<string, string | string[]> | undefined];
  const query = searchParams({ ...params, view: 'summary' });
  return (await (await apiRequest('GET', `${url}?${query}`, undefined, { signal })).json()) as TaskSummary[];
}

/** The active list: the server sends tasks by position; anything completed or archived is left out (spec §2). */
export function useActiveTasks(scope: TaskScope = INBOX_SCOPE, filter?: TaskFilter) {
  return useQuery<TaskSummary[], Error, TaskSummary[]>({
    queryKey: listKey(TASKS_PATH, scope, filter),
    queryFn: fetchSummaries,
    select: selectActive,
    // While the person types, the last answer stays on screen until the next arrives.
    placeholderData: keepPreviousData,
  });
}

/**
 * The list's tasks (issue 29): the active ones, and the completed sub-tasks that stay under their
 * open parent, struck through; the list builds its tree of sub-tasks from them.
 */
export function useListTasks(scope: TaskScope = INBOX_SCOPE, filter?: TaskFilter) {
  return useQuery<TaskSummary[], Error, TaskSummary[]>({
    queryKey: listKey(TASKS_PATH, scope, filter),
    queryFn: fetchSummaries,
    select: selectListed,
    placeholderData: keepPreviousData,
  });
}
function selectListed(tasks: TaskSummary[]): TaskSummary[] {
  return tasks.filter((task) => !task.archived && (!task.completed || task.parentId !== null));
}

/** Days 'YYYY-MM-DD', both included (issue 23: GET /api/tasks?dueFrom=&dueTo=). */
export type DueWindow = { dueFrom?: string; dueTo?: string };

/**
 * The active tasks of `scope` due in `window` (Today, Upcoming, the calendar), under a key that
 * starts with the list's URL like every list's, so every write and live update reaches it.
 */
export function useDueTasks(scope: TaskScope, window: DueWindow, enabled = true) {
  const params = { ...scopeParams(scope), ...window };
  return useQuery<TaskSummary[], Error, TaskSummary[]>({
    queryKey: [TASKS_PATH, params],
    enabled,
    queryFn: fetchSummaries,
    select: selectActive,
    placeholderData: keepPreviousData,
  });
}

/** One task in full, for an expanded card: its notes and AI draft are not in the list. */
export const useTaskDetails = (id: number, enabled: boolean) =>
  useQuery<Task>({ queryKey: taskKey(id), enabled });

// Module-level so the selector keeps its identity and TanStack Query memoizes the result.
function selectActive<T extends TaskSummary>(tasks: T[]): T[] {
  return tasks.filter(isActive);
}

export function useArchivedTasks(scope: TaskScope = INBOX_SCOPE, filter?: TaskFilter) {
  return useQuery<Task[]>({
    queryKey: listKey(ARCHIVED_TASKS_PATH, scope, filter),
    placeholderData: keepPreviousData,
  });
}

/** The project a new task goes to in `scope`, when not the Inbox (a project's screen). */
const projectOf = (scope: TaskScope): number | undefined =>
  scope.kind === 'project' ? scope.projectId : undefined;

/**
 * Creates a task in the Inbox, or in the project of `scope` (issue 21: `projectId` in the body).
 * Issue 31: sent through the outbox; kept offline, it shows at once under a temporary (negative) id
 * the outbox swaps for the real one once it is created, and the draft is what this resolves with.
 */
export async function createTask(
  queryClient: QueryClient,
  task: NewTask,
  scope: TaskScope = INBOX_SCOPE,
): Promise<Task> {
  const projectId = projectOf(scope);
  const tempId = tempTaskId();
  // Spec §7 fixes the body: the server takes the owner from the session, so userId is a constant.
  const res = await sendOrKeep({
    method: 'POST',
    url: TASKS_PATH,
    body: {
      userId: LIMITS.clientTaskUserId,
      ...task,
      completed: false,
      archived: false,
      position: LIMITS.initialTaskPosition,
      ...(projectId === undefined ? {} : { projectId }),
    },
    task: { id: tempId, title: task.title },
    createsTaskId: tempId,
  });
  if (res) return (await res.json()) as Task;
  const draft = draftTask(queryClient, tempId, {
    ...task,
    projectId: projectId ?? cachedInboxId(queryClient) ?? 0,
  });
  showNewTask(queryClient, draft);
  return draft;
}

export async function updateTask(id: number, updates: TaskUpdates): Promise<Task> {
  const res = await apiRequest('PATCH', taskPath(id), updates);
  return (await res.json()) as Task;
}

/** The task as the screen has it now: its own query (in full) or any cached list's copy. */
export function screenTask(queryClient: QueryClient, id: number): TaskSummary | undefined {
  const own = queryClient.getQueryData<Task>(taskKey(id));
  if (own) return own;
  const listed = cachedTask(queryClient, id);
  if (listed) return listed;
  for (const [, tasks] of queryClient.getQueriesData<Task[]>({ queryKey: archivedTasksKey })) {
    const task = Array.isArray(tasks) ? tasks.find((candidate) => candidate.id === id) : undefined;
    if (task) return task;
  }
  return undefined;
}

/**
 * A PATCH body as the task shows it: the caller's `labelIds` become their labels (others' stay), and
 * what the server clears with a field (no date: no time, no repeat) is cleared.
 */
export function shownPatch(
  queryClient: QueryClient,
  task: Pick<Task, 'labels'> | undefined,
  updates: TaskUpdates,
): Partial<Task> {
  const { labelIds, ...rest } = updates;
  const patch = { ...rest } as Partial<Task>;
  if (labelIds) {
    const mine = queryClient.getQueryData<Label[]>([LABELS_PATH]) ?? [];
    const mineIds = new Set(mine.map((label) => label.id));
    const others = (task?.labels ?? []).filter((label) => !mineIds.has(label.id));
    const chosen = mine.filter((label) => labelIds.includes(label.id));
    patch.labels = [...others, ...chosen.map(({ id, name, color }) => ({ id, name, color }))];
  }
  if (updates.dueDate === null) {
    patch.dueTime = null;
    patch.recurrence = null;
  }
  if (updates.dueTime === null) patch.dueTimeZone = null;
  return patch;
}

/** Writes `patch` into every cached copy of task `id`: its lists, the archive and its own query. */
export function patchCachedTask(queryClient: QueryClient, id: number, patch: Partial<Task>): void {
  const apply = <T extends TaskSummary>(tasks: T[] | undefined) =>
    Array.isArray(tasks) ? tasks.map((t) => (t.id === id ? { ...t, ...patch } : t)) : tasks;
  queryClient.setQueriesData<Task[]>({ queryKey: tasksKey }, apply);
  queryClient.setQueriesData<Task[]>({ queryKey: archivedTasksKey }, apply);
  queryClient.setQueryData<Task>(taskKey(id), (task) => task && { ...task, ...patch });
}

/**
 * Edits one task (issue 31): sent at once when the server can be reached and nothing waits; else kept
 * in the outbox with the version it was made on and the edited fields' values before it (to merge a
 * 412), and shown at once in every cached copy. Resolves with the server's task, or with the screen's.
 * A refusal of a direct send rejects as before (the editors show it).
 */
export async function saveTaskEdit(
  queryClient: QueryClient,
  id: number,
  updates: TaskUpdates,
): Promise<Task> {
  const current = screenTask(queryClient, id);
  const res = await sendOrKeep({
    method: 'PATCH',
    url: taskPath(id),
    body: updates,
    task: { id, title: updates.title ?? current?.title ?? '' },
    baseVersion: current?.version,
    before: current ? bodyFieldsOf(current, Object.keys(updates), ownLabelIds(queryClient)) : undefined,
  });
  if (res) {
    const task = (await res.json()) as Task;
    writeTask(queryClient, task);
    void invalidateTask(queryClient, id);
    if (task.dueTime === null) void queryClient.invalidateQueries({ queryKey: [taskRemindersPath(id)] });
    return task;
  }
  // Kept: a fetch on its way would put the old values back.
  void queryClient.cancelQueries({ queryKey: tasksKey });
  const patch = shownPatch(queryClient, current, updates);
  patchCachedTask(queryClient, id, patch);
  return { ...current, ...patch, id } as Task;
}

export async function deleteTask(id: number): Promise<void> {
  await apiRequest('DELETE', taskPath(id));
}

/** A task as the cached active lists have it (any list, any project), if one does. */
export function cachedTask(queryClient: QueryClient, id: number): TaskSummary | undefined {
  for (const [, tasks] of queryClient.getQueriesData<TaskSummary[]>({ queryKey: tasksKey })) {
    const task = tasks?.find((candidate) => candidate.id === id);
    if (task) return task;
  }
  return undefined;
}

/** Everything a change to one task can show up in (spec §7), the projects' task counts too (issue 21). */
export function invalidateTask(queryClient: QueryClient, id?: number): Promise<void> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: tasksKey }),
    queryClient.invalidateQueries({ queryKey: archivedTasksKey }),
    id === undefined ? undefined : queryClient.invalidateQueries({ queryKey: taskKey(id) }),
    invalidateProjects(queryClient),
  ]).then(() => undefined);
}

/**
 * Puts the server's answer into the cached lists at once, so an edit shows without waiting for the
 * refetch; the other tasks keep their identity and their memoized cards do not re-render.
 */
function writeTask(queryClient: QueryClient, task: Task): void {
  const replace = (tasks: Task[] | undefined) => tasks?.map((t) => (t.id === task.id ? task : t));
  // Every view of the lists, filtered ones included (their keys start with the list's URL).
  queryClient.setQueriesData<Task[]>({ queryKey: tasksKey }, replace);
  queryClient.setQueriesData<Task[]>({ queryKey: archivedTasksKey }, replace);
  queryClient.setQueryData<Task>(taskKey(task.id), task);
}

/** PATCHes one task; callers add their own toasts through mutate's callbacks. */
export function useUpdateTask(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    // Issue 31: offline too; TanStack's default ('online') would pause it before sendOrKeep could keep it.
    networkMode: 'always',
    // The cache is written by saveTaskEdit: the server's answer (then every view is fetched again, not
    // awaited, so callers toast as soon as the server has answered; without a due time the server
    // removed the task's relative reminders), or the kept edit.
    mutationFn: (updates: TaskUpdates) => saveTaskEdit(queryClient, id, updates),
  });
}

/** Completes one task through POST /api/tasks/{id}/complete (Complete forever with `final`). */
export function useCompleteTask(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (final: boolean) => completeTask(id, final),
    onSuccess: (task) => {
      writeTask(queryClient, task);
      void invalidateTask(queryClient, id);
    },
  });
}

export function useDeleteTask(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => deleteTask(id),
    onSuccess: () => {
      const without = (tasks: Task[] | undefined) => tasks?.filter((t) => t.id !== id);
      queryClient.setQueriesData<Task[]>({ queryKey: tasksKey }, without);
      queryClient.setQueriesData<Task[]>({ queryKey: archivedTasksKey }, without);
      queryClient.removeQueries({ queryKey: taskKey(id) });
      void invalidateTask(queryClient);
    },
  });
}

export function useCreateTask(scope: TaskScope = INBOX_SCOPE) {
  const queryClient = useQueryClient();
  return useMutation({
    // Offline too: the outbox keeps it (TanStack's default would pause the mutation instead).
    networkMode: 'always',
    mutationFn: (task: NewTask) => createTask(queryClient, task, scope),
    // A kept task is already in the lists; the outbox refetches them once it is sent.
    onSuccess: (task) => (isTempTaskId(task.id) ? undefined : void invalidateTask(queryClient)),
  });
}
