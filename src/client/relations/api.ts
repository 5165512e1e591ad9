import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { type CreateRelationBody, type Relation, relationPath, relationsPath } from '../../common/relations';
import { ALL_PROJECTS, TASKS_PATH, type TaskSummary } from '../../common/tasks';
import { apiRequest } from '../lib/api';
import { invalidateTask } from '../tasks/api';

/**
 * The query key is exactly the URL the server's live updates name (`/api/tasks/<id>/relations`), so a
 * relation added or removed elsewhere (another tab, another person, the other task's side) refetches it.
 */
export const relationsKey = (taskId: number) => [relationsPath(taskId)] as const;

export const RELATION_ERRORS = {
  load: 'Could not load the dependencies.',
  add: 'Could not add the dependency',
  remove: 'Could not remove the dependency',
  search: 'Could not search the tasks.',
} as const;

/**
 * Fetched only while the card is expanded (the section mounts then). `blockedBy` is the task's count
 * of open blockers: when it moves (a blocker completed or reopened), the other tasks' states are read anew.
 */
export function useRelations(taskId: number, blockedBy: number) {
  const queryClient = useQueryClient();
  const seen = useRef(blockedBy);
  useEffect(() => {
    if (seen.current === blockedBy) return;
    seen.current = blockedBy;
    void queryClient.invalidateQueries({ queryKey: relationsKey(taskId) });
  }, [queryClient, taskId, blockedBy]);
  // Read again each time the section opens: the other tasks change (done, renamed) without this
  // one's list telling (only a blocker's completion moves blockedBy).
  return useQuery<Relation[]>({ queryKey: relationsKey(taskId), refetchOnMount: 'always' });
}

/** Both tasks' relations, and every list (the blocked task's `blockedBy`, its 'Blocked' badge). */
const refresh = (queryClient: ReturnType<typeof useQueryClient>, taskId: number, otherTaskId: number) =>
  Promise.all([
    queryClient.invalidateQueries({ queryKey: relationsKey(taskId) }),
    queryClient.invalidateQueries({ queryKey: relationsKey(otherTaskId) }),
    invalidateTask(queryClient, taskId),
  ]);

export function useAddRelation(taskId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: CreateRelationBody) =>
      (await (await apiRequest('POST', relationsPath(taskId), body)).json()) as Relation,
    onSuccess: (relation) => {
      queryClient.setQueryData<Relation[]>(relationsKey(taskId), (relations) =>
        relations && !relations.some((r) => r.id === relation.id) ? [...relations, relation] : relations,
      );
    },
    onSettled: (_relation, _error, body) => refresh(queryClient, taskId, body.taskId),
  });
}

export function useRemoveRelation(taskId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (relation: Relation) => {
      await apiRequest('DELETE', relationPath(taskId, relation.id));
    },
    onMutate: async (relation) => {
      await queryClient.cancelQueries({ queryKey: relationsKey(taskId) });
      const previous = queryClient.getQueryData<Relation[]>(relationsKey(taskId));
      queryClient.setQueryData<Relation[]>(relationsKey(taskId), (relations) =>
        relations?.filter((r) => r.id !== relation.id),
      );
      return { previous };
    },
    onError: (_error, _relation, context) => {
      if (context?.previous) queryClient.setQueryData(relationsKey(taskId), context.previous);
    },
    onSettled: (_result, _error, relation) => refresh(queryClient, taskId, relation.otherTaskId),
  });
}

/**
 * Tasks whose title (or text) has every word of `q`, in every project the caller belongs to: what the
 * add control offers. Nothing is asked until a word is typed.
 */
export function useTaskSearch(q: string) {
  const query = q.trim();
  return useQuery<TaskSummary[]>({
    queryKey: [TASKS_PATH, { projectId: ALL_PROJECTS, q: query, view: 'summary' }],
    enabled: query.length > 0,
    placeholderData: keepPreviousData,
    // A search is a moment's: it is not kept, nor refreshed by the lists' live updates once closed.
    gcTime: 30_000,
  });
}
