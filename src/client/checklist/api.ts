import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { CHECKLIST_ITEMS_PATH, type ChecklistItem, checklistPath } from '../../common/checklist';
import type { Task } from '../../common/tasks';
import { apiRequest } from '../lib/api';
import { type OutboxChange, sendOrKeep } from '../offline/outbox';
import { archivedTasksKey, cachedTask, invalidateTask, tasksKey } from '../tasks/api';

/**
 * The query key is exactly the URL the server's live updates name (`/api/tasks/<id>/checklist`), so a
 * change made in another tab refetches this list.
 */
export const checklistKey = (taskId: number) => [checklistPath(taskId)] as const;

/** Fetched only while the card is expanded (the panel mounts then): a long list makes no extra calls. */
export function useChecklist(taskId: number) {
  return useQuery<ChecklistItem[]>({ queryKey: checklistKey(taskId) });
}

export const CHECKLIST_ERRORS = {
  add: 'Could not add the checklist item',
  update: 'Could not update the checklist item',
  remove: 'Could not delete the checklist item',
  reorder: 'Could not reorder the checklist',
} as const;

type Snapshot = ChecklistItem[] | undefined;

/**
 * Writes the items into the cache at once and brings the task's '2/5' in the cached lists along, so
 * the card agrees with the panel before the server answers. Only the one task changes identity.
 */
function writeItems(queryClient: QueryClient, taskId: number, items: ChecklistItem[]): void {
  queryClient.setQueryData<ChecklistItem[]>(checklistKey(taskId), items);
  const checklist = { done: items.filter((item) => item.done).length, total: items.length };
  const replace = (tasks: Task[] | undefined) =>
    tasks?.map((task) => (task.id === taskId ? { ...task, checklist } : task));
  queryClient.setQueriesData<Task[]>({ queryKey: tasksKey }, replace);
  queryClient.setQueriesData<Task[]>({ queryKey: archivedTasksKey }, replace);
}

/**
 * One optimistic mutation: `apply` gives the new items from the cached ones, `call` makes the request.
 * A failure puts the old items back; either way the checklist and the task lists are refetched.
 */
function useChecklistMutation<V>(
  taskId: number,
  apply: (items: ChecklistItem[], variables: V) => ChecklistItem[],
  request: (variables: V) => Pick<OutboxChange, 'method' | 'url' | 'body'>,
) {
  const queryClient = useQueryClient();
  const mutationKey = checklistKey(taskId);
  return useMutation<Response | undefined, Error, V, { previous: Snapshot }>({
    mutationKey,
    // One task's changes reach the server one at a time, in the order they were made: two quick
    // moves sent side by side could land in the other order and leave the first one's order.
    scope: { id: `checklist:${taskId}` },
    // Issue 31: through the outbox, offline too (TanStack's default would pause it instead); kept,
    // the optimistic items are what the panel shows until the outbox is sent.
    networkMode: 'always',
    mutationFn: (variables) =>
      sendOrKeep({
        ...request(variables),
        task: { id: taskId, title: cachedTask(queryClient, taskId)?.title ?? '' },
      }),
    onMutate: async (variables) => {
      // A refetch landing after the optimistic write would put the old state back.
      await queryClient.cancelQueries({ queryKey: checklistKey(taskId) });
      const previous = queryClient.getQueryData<ChecklistItem[]>(checklistKey(taskId));
      if (previous) writeItems(queryClient, taskId, apply(previous, variables));
      return { previous };
    },
    onError: (_error, _variables, context) => {
      if (context?.previous) writeItems(queryClient, taskId, context.previous);
    },
    // Refetched once the last of them is done: a refetch between two would show the older order.
    // Kept: the outbox refetches once it is sent; a refetch now would show the old items.
    onSettled: (response, error) =>
      queryClient.isMutating({ mutationKey }) > 1 || (!error && !response)
        ? undefined
        : Promise.all([
            queryClient.invalidateQueries({ queryKey: checklistKey(taskId) }),
            invalidateTask(queryClient, taskId),
          ]),
  });
}

const itemPath = (itemId: number) => `${CHECKLIST_ITEMS_PATH}/${itemId}`;

/** Not optimistic: the new item's id comes from the server, and a stand-in would remount under focus. */
export function useAddChecklistItem(taskId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (title: string) => {
      const res = await apiRequest('POST', checklistPath(taskId), { title });
      return (await res.json()) as ChecklistItem;
    },
    onSuccess: (item) => {
      const items = queryClient.getQueryData<ChecklistItem[]>(checklistKey(taskId)) ?? [];
      if (!items.some((i) => i.id === item.id)) writeItems(queryClient, taskId, [...items, item]);
    },
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: checklistKey(taskId) }),
        invalidateTask(queryClient, taskId),
      ]),
  });
}

export type ItemChange = { id: number; title?: string; done?: boolean };

export function useUpdateChecklistItem(taskId: number) {
  return useChecklistMutation<ItemChange>(
    taskId,
    (items, { id, ...change }) => items.map((item) => (item.id === id ? { ...item, ...change } : item)),
    ({ id, ...change }) => ({ method: 'PATCH', url: itemPath(id), body: change }),
  );
}

export function useDeleteChecklistItem(taskId: number) {
  return useChecklistMutation<number>(
    taskId,
    (items, id) => items.filter((item) => item.id !== id),
    (id) => ({ method: 'DELETE', url: itemPath(id) }),
  );
}

/** Takes the whole new order. */
export function useReorderChecklist(taskId: number) {
  return useChecklistMutation<number[]>(
    taskId,
    (items, itemIds) => {
      const byId = new Map(items.map((item) => [item.id, item]));
      const ordered = itemIds.flatMap((id) => byId.get(id) ?? []);
      return [...ordered, ...items.filter((item) => !itemIds.includes(item.id))].map((item, position) => ({
        ...item,
        position,
      }));
    },
    (itemIds) => ({ method: 'POST', url: `${checklistPath(taskId)}/reorder`, body: { itemIds } }),
  );
}
