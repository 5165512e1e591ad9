import type { QueryClient } from '@tanstack/react-query';
import { LABELS_PATH, type Label } from '../../common/labels';
import { OUTBOX_COPY } from '../../common/offline';
import { projectSectionsPath, type Section } from '../../common/sections';
import { ARCHIVED_TASKS_PATH, TASKS_PATH, type Task, taskPath } from '../../common/tasks';
import { PRIORITY_TEXT } from '../labels/copy';

/**
 * What the outbox does to the screen's caches (issue 31): a task made offline takes its real id, a
 * refused change is taken back, a value is named in a toast. The keys are the URLs (spec §7).
 */

type Listed = { id: number; parentId?: number | null };

/** Every cached query about a task: its lists, the archive, its own query and those under it (checklist, comments). */
const aboutTask = (id: number) => (key: readonly unknown[]) =>
  typeof key[0] === 'string' && (key[0] === taskPath(id) || key[0].startsWith(`${taskPath(id)}/`));

/**
 * The task made offline as `tempId` was created as `task`: the lists show it under its real id (the
 * screen's copy, which may carry edits still waiting, with the server's id and version), sub-tasks
 * name their parent by it, and its own queries move to the real key.
 */
export function replaceTempTask(queryClient: QueryClient, tempId: number, task: Task): void {
  const swap = <T extends Listed>(tasks: T[] | undefined) =>
    tasks?.map((listed) => {
      if (listed.id === tempId) return { ...listed, id: task.id, version: task.version } as T;
      return listed.parentId === tempId ? { ...listed, parentId: task.id } : listed;
    });
  queryClient.setQueriesData<Listed[]>({ queryKey: [TASKS_PATH] }, (data) =>
    Array.isArray(data) ? swap(data) : data,
  );
  queryClient.setQueriesData<Listed[]>({ queryKey: [ARCHIVED_TASKS_PATH] }, (data) =>
    Array.isArray(data) ? swap(data) : data,
  );
  for (const query of queryClient
    .getQueryCache()
    .findAll({ predicate: (q) => aboutTask(tempId)(q.queryKey) })) {
    const [url, ...rest] = query.queryKey as [string, ...unknown[]];
    const realKey = [taskPath(task.id) + url.slice(taskPath(tempId).length), ...rest];
    const data =
      url === taskPath(tempId) ? { ...(query.state.data as object), id: task.id } : query.state.data;
    if (data !== undefined) queryClient.setQueryData(realKey, data);
    queryClient.removeQueries({ queryKey: query.queryKey, exact: true });
  }
}

/** A refused change leaves the screen: everything about the task is fetched again (or dropped, for one made offline). */
export function takeBack(queryClient: QueryClient, taskId: number): void {
  if (taskId < 0) {
    const without = (data: unknown) =>
      Array.isArray(data) ? (data as Listed[]).filter((listed) => listed.id !== taskId) : data;
    queryClient.setQueriesData({ queryKey: [TASKS_PATH] }, without);
    queryClient.setQueriesData({ queryKey: [ARCHIVED_TASKS_PATH] }, without);
    queryClient.removeQueries({ predicate: (query) => aboutTask(taskId)(query.queryKey) });
  }
  void queryClient.invalidateQueries({ queryKey: [TASKS_PATH] });
  void queryClient.invalidateQueries({ queryKey: [ARCHIVED_TASKS_PATH] });
  if (taskId >= 0)
    void queryClient.invalidateQueries({ predicate: (query) => aboutTask(taskId)(query.queryKey) });
}

/** The person's own labels, when cached: the only ones a PATCH's labelIds set (and a merge compares). */
export function ownLabelIds(queryClient: QueryClient): ReadonlySet<number> | undefined {
  const labels = queryClient.getQueryData<Label[]>([LABELS_PATH]);
  return labels ? new Set(labels.map((label) => label.id)) : undefined;
}

/** How the conflict's toast shows the person's value of `field`: label and section names, the priority's words. */
export function describeValue(
  queryClient: QueryClient,
  field: string,
  value: unknown,
  projectId: number,
): string {
  if (value === null || value === undefined || value === '') return OUTBOX_COPY.none;
  if (field === 'labelIds' && Array.isArray(value)) {
    if (value.length === 0) return OUTBOX_COPY.none;
    const labels = queryClient.getQueryData<Label[]>([LABELS_PATH]) ?? [];
    return value.map((id) => labels.find((label) => label.id === id)?.name ?? String(id)).join(', ');
  }
  if (field === 'sectionId') {
    const sections = queryClient.getQueryData<Section[]>([projectSectionsPath(projectId)]) ?? [];
    return sections.find((section) => section.id === value)?.name ?? String(value);
  }
  if (field === 'priority' && typeof value === 'number' && value in PRIORITY_TEXT)
    return PRIORITY_TEXT[value as keyof typeof PRIORITY_TEXT].long;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
