import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';
import { LIMITS } from '../../common/spec';
import { TASKS_PATH, type Task, type TaskSummary, taskMovePath, taskPath } from '../../common/tasks';
import { apiRequest } from '../lib/api';
import { sendOrKeep } from '../offline/outbox';
import { cachedTask, invalidateTask, listKey, type TaskScope, tasksKey } from './api';

/**
 * Sub-tasks in the browser (issue 29): the list's tree, built from the one list request; which
 * parents are collapsed (remembered per task); the list's announcements; and the moves that nest a
 * card under another or bring it out, written into the cached list at once as the other moves are.
 */

export const SUBTASK_COPY = {
  addSubtask: 'Add sub-task',
  subtaskTitle: 'Sub-task title',
  collapse: (title: string) => `Collapse sub-tasks of "${title}"`,
  expand: (title: string) => `Expand sub-tasks of "${title}"`,
  done: (count: number) => `${count} done`,
  progress: (done: number, total: number) => `${done} of ${total} sub-tasks done`,
  parentLink: (title: string) => `in ${title}`,
  nested: (title: string, parent: string) => `${title} is now a sub-task of ${parent}`,
  topLevel: (title: string) => `${title} is no longer a sub-task`,
  noCardAbove: (title: string) => `${title} has no task above it at its level to go under`,
  alreadyTopLevel: (title: string) => `${title} is not a sub-task`,
  added: (title: string, parent: string) => `Added ${title} under ${parent}`,
  nestFailed: 'Could not move the task. Please try again.',
  addFailed: 'Could not add the sub-task. Please try again.',
} as const;

/** How far a sub-task's card is indented (margin-inline-start): by its depth, narrower on a phone. */
export const indentOf = (depth: number) =>
  depth === 0 ? undefined : `calc(${depth} * clamp(0.75rem, 4vw, 1.75rem))`;

/** The '3 done' row under a parent: its completed sub-tasks, shown when open. */
export type DoneRow = { id: string; doneOf: number; count: number; open: boolean; depth: number };
export const isDoneRow = (row: object): row is DoneRow => 'doneOf' in row;

/** Where a card sits in the tree: its depth (0 top-level), its sub-tasks, whether they are hidden. */
export type TreeInfo = { depth: number; children: number; collapsed: boolean };

/** A task's parent when that parent is among `byId`; otherwise the task shows top-level. */
const shownParent = (task: TaskSummary, byId: ReadonlyMap<number, TaskSummary>) =>
  task.parentId !== null && byId.has(task.parentId) ? task.parentId : null;

/**
 * The tasks (in the list's order, which is their order among siblings) arranged as a tree: each
 * parent followed by its open sub-tasks, then a DoneRow for its completed ones, then those (when the
 * row is open). Collapsed parents hide everything below them. A completed task whose parent is not
 * in the list is left out (it belongs to a parent filtered away). `info` receives each card's place.
 */
export function arrangeTree(
  tasks: readonly TaskSummary[],
  collapsed: ReadonlySet<number>,
  doneOpen: ReadonlySet<number>,
  info: Map<number, TreeInfo>,
): (TaskSummary | DoneRow)[] {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const children = new Map<number, TaskSummary[]>();
  const roots: TaskSummary[] = [];
  for (const task of tasks) {
    const parent = shownParent(task, byId);
    if (parent === null) {
      if (!(task.completed && task.parentId !== null)) roots.push(task);
    } else {
      const siblings = children.get(parent);
      if (siblings) siblings.push(task);
      else children.set(parent, [task]);
    }
  }
  const rows: (TaskSummary | DoneRow)[] = [];
  const seen = new Set<number>();
  const visit = (task: TaskSummary, depth: number) => {
    if (seen.has(task.id)) return;
    seen.add(task.id);
    rows.push(task);
    const kids = children.get(task.id) ?? [];
    const hidden = collapsed.has(task.id) && kids.length > 0;
    info.set(task.id, { depth, children: kids.length, collapsed: hidden });
    if (hidden) return;
    const done = kids.filter((kid) => kid.completed);
    for (const kid of kids) if (!kid.completed) visit(kid, depth + 1);
    if (done.length === 0) return;
    const open = doneOpen.has(task.id);
    rows.push({ id: `done:${task.id}`, doneOf: task.id, count: done.length, open, depth: depth + 1 });
    if (open) for (const kid of done) visit(kid, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return rows;
}

/** Task `id` and everything below it, in the list's order. */
export function subtreeIds(tasks: readonly TaskSummary[], id: number): Set<number> {
  const ids = new Set([id]);
  // Parents come before their sub-tasks in most lists, not in all: go round until nothing is added.
  let grew = true;
  while (grew) {
    grew = false;
    for (const task of tasks) {
      if (task.parentId !== null && ids.has(task.parentId) && !ids.has(task.id)) {
        ids.add(task.id);
        grew = true;
      }
    }
  }
  return ids;
}

/** Where a move puts a task: under `parentId` (null: top-level), just after its sibling `afterId`
 * (null: first; 'last': after its last sibling), in `sectionId` when given. */
export type TreePlace = {
  parentId: number | null;
  afterId: number | null | 'last';
  sectionId?: number | null;
};

const withCounts = (task: TaskSummary, total: number, done: number): TaskSummary =>
  total === 0 && done === 0
    ? task
    : { ...task, subtasks: { total: task.subtasks.total + total, done: task.subtasks.done + done } };

/** The list `tasks` with task `id` and its subtree taken out and put at `place` (the order a move leaves). */
export function placeInTree(tasks: readonly TaskSummary[], id: number, place: TreePlace): TaskSummary[] {
  const moved = tasks.find((task) => task.id === id);
  if (!moved) return [...tasks];
  const block = subtreeIds(tasks, id);
  const sectionId = place.sectionId === undefined ? moved.sectionId : place.sectionId;
  const oldParent = moved.parentId;
  const doneDelta = moved.completed ? 1 : 0;
  const rest: TaskSummary[] = [];
  const taken: TaskSummary[] = [];
  for (const task of tasks) {
    if (!block.has(task.id)) {
      let next = task;
      if (oldParent !== place.parentId) {
        if (task.id === oldParent) next = withCounts(next, -1, -doneDelta);
        if (task.id === place.parentId) next = withCounts(next, 1, doneDelta);
      }
      rest.push(next);
    } else if (task.id === id) taken.push({ ...task, parentId: place.parentId, sectionId });
    else taken.push(task.sectionId === sectionId ? task : { ...task, sectionId });
  }
  const endOfSubtree = (rootId: number) => {
    const ids = subtreeIds(rest, rootId);
    let end = -1;
    rest.forEach((task, index) => {
      if (ids.has(task.id)) end = index;
    });
    return end + 1;
  };
  let at: number;
  if (place.afterId === 'last') {
    const siblings = rest.filter((task) => task.parentId === place.parentId && task.sectionId === sectionId);
    const last = siblings.at(-1);
    at = last ? endOfSubtree(last.id) : place.parentId === null ? rest.length : endOfSubtree(place.parentId);
  } else if (place.afterId !== null) {
    at = endOfSubtree(place.afterId);
    if (at === 0) at = rest.length;
  } else if (place.parentId !== null) {
    at = rest.findIndex((task) => task.id === place.parentId) + 1;
  } else {
    const first = rest.findIndex((task) => task.parentId === null && task.sectionId === sectionId);
    at = first === -1 ? rest.length : first;
  }
  rest.splice(at, 0, ...taken);
  return rest;
}

/**
 * Where a card dropped at `index` of the list's rows (itself taken out) goes: among its siblings
 * after the card above (or that card's ancestor that is its sibling); below another parent's
 * sub-tasks, a sibling of the card above. Null: no change (dropped among its own sub-tasks).
 */
export function dropPlace(
  rows: readonly { id: number | string }[],
  tasks: readonly TaskSummary[],
  id: number,
  index: number,
): (TreePlace & { afterId: number | null }) | null {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const moved = byId.get(id);
  if (!moved) return null;
  const others = rows.filter((row) => row.id !== id);
  let above: TaskSummary | undefined;
  let sectionId: number | null | undefined;
  for (let i = index - 1; i >= 0; i--) {
    const row = others[i]!;
    if ('section' in row) {
      sectionId = (row as unknown as { section: { id: number } }).section.id;
      break;
    }
    const task = typeof row.id === 'number' ? byId.get(row.id) : undefined;
    if (!task || task.completed) continue;
    above = task;
    break;
  }
  const parentOf = (task: TaskSummary) => shownParent(task, byId);
  const ownParent = parentOf(moved);
  if (!above) {
    return { parentId: null, afterId: null, sectionId: sectionId ?? (others.length > 0 ? null : undefined) };
  }
  if (subtreeIds(tasks, id).has(above.id)) return null;
  for (let node: TaskSummary | undefined = above; node; ) {
    if (node.id === ownParent) return { parentId: ownParent, afterId: null };
    if (parentOf(node) === ownParent)
      return { parentId: ownParent, afterId: node.id, sectionId: node.sectionId };
    const parent = parentOf(node);
    node = parent === null ? undefined : byId.get(parent);
  }
  return { parentId: parentOf(above), afterId: above.id, sectionId: above.sectionId };
}

/** The open sibling just above task `id` at its level (Ctrl+] nests it there), if any. */
export function siblingAbove(tasks: readonly TaskSummary[], id: number): TaskSummary | undefined {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const moved = byId.get(id);
  if (!moved) return undefined;
  const parent = shownParent(moved, byId);
  let candidate: TaskSummary | undefined;
  for (const task of tasks) {
    if (task.id === id) return candidate;
    if (!task.completed && task.sectionId === moved.sectionId && shownParent(task, byId) === parent)
      candidate = task;
  }
  return undefined;
}

// Which parents are collapsed: remembered per task in localStorage.
const COLLAPSED_KEY = 'tasklane:collapsed-subtasks';
const collapseListeners = new Set<() => void>();
let collapsedIds: ReadonlySet<number> = readCollapsed();
function readCollapsed(): ReadonlySet<number> {
  try {
    const stored = JSON.parse(localStorage.getItem(COLLAPSED_KEY) ?? '[]') as unknown;
    return new Set(Array.isArray(stored) ? stored.filter((id): id is number => typeof id === 'number') : []);
  } catch {
    return new Set();
  }
}
export function setSubtasksCollapsed(id: number, collapsed: boolean): void {
  if (collapsedIds.has(id) === collapsed) return;
  const next = new Set(collapsedIds);
  if (collapsed) next.add(id);
  else next.delete(id);
  collapsedIds = next;
  try {
    localStorage.setItem(COLLAPSED_KEY, JSON.stringify([...next]));
  } catch {
    // Private mode or a full storage: it is remembered until the page reloads.
  }
  for (const listener of collapseListeners) listener();
}
export function useCollapsedSubtasks(): ReadonlySet<number> {
  return useSyncExternalStore(
    (listener) => {
      collapseListeners.add(listener);
      return () => collapseListeners.delete(listener);
    },
    () => collapsedIds,
  );
}

// The list's live announcements: the drag library's live region, which the list already speaks through.
let fallbackRegion: HTMLElement | null = null;
export function announce(text: string): void {
  let region = document.querySelector<HTMLElement>('[id^="rfd-announcement"]');
  if (!region) {
    if (!fallbackRegion?.isConnected) {
      fallbackRegion = document.createElement('div');
      fallbackRegion.setAttribute('role', 'status');
      fallbackRegion.className = 'sr-only';
      document.body.append(fallbackRegion);
    }
    region = fallbackRegion;
  }
  region.textContent = text;
}

/** What the list answers to a focused card's Ctrl+] and Ctrl+[ (registered while it is mounted). */
type TreeKeys = { nest(id: number): void; unnest(id: number): void };
let treeKeys: TreeKeys | null = null;
export function registerTreeKeys(next: TreeKeys): () => void {
  treeKeys = next;
  return () => {
    if (treeKeys === next) treeKeys = null;
  };
}
export const listTreeKeys = () => treeKeys;

// The palette's 'Add sub-task': the card it names opens its sub-task field.
const addListeners = new Set<() => void>();
let addingFor: number | null = null;
export function requestAddSubtask(id: number | null): void {
  addingFor = id;
  for (const listener of addListeners) listener();
}
export function useAddSubtaskRequested(id: number): boolean {
  return useSyncExternalStore(
    (listener) => {
      addListeners.add(listener);
      return () => addListeners.delete(listener);
    },
    () => addingFor === id,
  );
}

function moveInCache(queryClient: QueryClient, scope: TaskScope, id: number, place: TreePlace) {
  const key = listKey(TASKS_PATH, scope);
  // A refetch landing after the optimistic write would put the old tree back.
  void queryClient.cancelQueries({ queryKey: tasksKey });
  const previous = queryClient.getQueryData<TaskSummary[]>(key);
  if (previous) queryClient.setQueryData<TaskSummary[]>(key, placeInTree(previous, id, place));
  return () => queryClient.setQueryData(key, previous);
}

/**
 * Moves task `id` to `place` in the tree: PATCH {parentId} when its parent changes, then POST /move
 * {afterId} (and the section, top-level) to put it among its siblings. Optimistic: the cached list
 * shows the move at once and gets its old order back if the server refuses (the call rejects).
 * `orderOptional`: the parent's change is what counts; a refused placing keeps it. Issue 31: both go
 * through the outbox; kept offline, the list keeps showing the move until the outbox is sent.
 */
export function useTreeMove(scope: TaskScope) {
  const queryClient = useQueryClient();
  return useCallback(
    async (
      id: number,
      place: TreePlace,
      {
        reparent,
        reorder,
        orderOptional = false,
      }: { reparent: boolean; reorder: boolean; orderOptional?: boolean },
    ) => {
      const task = { id, title: cachedTask(queryClient, id)?.title ?? '' };
      const undo = moveInCache(queryClient, scope, id, place);
      let kept = false;
      try {
        if (reparent) {
          const body = { parentId: place.parentId };
          kept = !(await sendOrKeep({ method: 'PATCH', url: taskPath(id), body, task }));
        }
        if (reorder && place.afterId !== 'last') {
          const body =
            place.sectionId !== undefined && place.parentId === null
              ? { afterId: place.afterId, sectionId: place.sectionId }
              : { afterId: place.afterId };
          await sendOrKeep({ method: 'POST', url: taskMovePath(id), body, task }).then(
            (res) => {
              if (!res) kept = true;
            },
            (error: unknown) => {
              if (!orderOptional) throw error;
            },
          );
        }
      } catch (error) {
        undo();
        throw error;
      } finally {
        // Kept: the outbox refetches once it is sent; a refetch now would show the old place.
        if (!kept) void invalidateTask(queryClient, id);
      }
    },
    [queryClient, scope],
  );
}

/** Creates a sub-task of `parent` (POST /api/tasks {title, parentId}); the list shows it at once. */
export function useAddSubtask() {
  const queryClient = useQueryClient();
  return useCallback(
    async (parent: TaskSummary, title: string): Promise<Task> => {
      const res = await apiRequest('POST', TASKS_PATH, {
        userId: LIMITS.clientTaskUserId,
        title,
        description: null,
        dueDate: null,
        contextId: null,
        completed: false,
        archived: false,
        position: LIMITS.initialTaskPosition,
        projectId: parent.projectId,
        parentId: parent.id,
      });
      const task = (await res.json()) as Task;
      // Into every cached list that holds the parent: after its last sub-task.
      for (const [key, tasks] of queryClient.getQueriesData<TaskSummary[]>({ queryKey: tasksKey })) {
        if (!tasks?.some((candidate) => candidate.id === parent.id)) continue;
        const withParent = tasks.map((candidate) =>
          candidate.id === parent.id ? withCounts(candidate, 1, 0) : candidate,
        );
        const placed = placeInTree([...withParent, task], task.id, { parentId: parent.id, afterId: 'last' });
        queryClient.setQueryData(key, placed);
      }
      void invalidateTask(queryClient, parent.id);
      return task;
    },
    [queryClient],
  );
}
