import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { projectSectionsPath, type Section, sectionMovePath, sectionPath } from '../../common/sections';
import { TASKS_PATH, type TaskSummary, taskMovePath } from '../../common/tasks';
import { apiRequest } from '../lib/api';
import { sendOrKeep } from '../offline/outbox';
import { useProjects } from '../projects/api';
import { cachedTask, invalidateTask, listKey, type TaskScope, tasksKey } from '../tasks/api';
import { needsSections, placeTask, type TaskPlace } from './grouping';

/**
 * The browser's side of sections (issue 23). The query key is the URL the server's live events
 * name when a project's sections change (`projectSectionsPath`), so another browser's change shows.
 */
export const sectionsKey = (projectId: number) => [projectSectionsPath(projectId)] as const;

/** The project whose sections a list of `scope` groups by: the Inbox's own, a project's; none across projects. */
export function useScopeProjectId(scope: TaskScope): number | undefined {
  const inboxId = useProjects().data?.find((project) => project.inbox)?.id;
  if (scope.kind === 'project') return scope.projectId;
  return scope.kind === 'inbox' ? inboxId : undefined;
}

const NO_SECTIONS: Section[] = [];

const useSectionsQuery = (projectId: number | undefined) =>
  useQuery<Section[]>({ queryKey: sectionsKey(projectId ?? 0), enabled: projectId !== undefined });

/**
 * The sections the list of `scope` groups by, and whether the list must wait for them (rather than
 * jump from ungrouped to grouped): only while `tasks` has one in a section (needsSections), so the
 * sections' request, which follows the projects' for the Inbox, is off the first paint's path. The
 * Inbox's list still waits for the projects.
 */
export function useScopeSections(
  scope: TaskScope,
  tasks: readonly TaskSummary[] | undefined,
): { sections: Section[]; pending: boolean } {
  const projects = useProjects();
  const projectId = useScopeProjectId(scope);
  const query = useSectionsQuery(projectId);
  // The projects say which is the Inbox, and so whether its remembered view is the Board: waited for.
  const pending =
    (scope.kind === 'inbox' && projects.isPending) ||
    (projectId !== undefined && query.isPending && (tasks === undefined || needsSections(tasks)));
  return { sections: query.data ?? NO_SECTIONS, pending };
}

/**
 * Moves one task within or between sections (`POST /api/tasks/{id}/move {afterId, sectionId}`).
 * Optimistic, like a reorder: the list of `scope` takes the new place within the drop handler (the
 * drag library needs it there), comes back on a refusal, and is fetched again either way.
 */
export function useMoveTaskToPlace(scope: TaskScope) {
  const queryClient = useQueryClient();
  return useCallback(
    async (id: number, place: TaskPlace) => {
      const key = listKey(TASKS_PATH, scope);
      void queryClient.cancelQueries({ queryKey: tasksKey });
      const previous = queryClient.getQueryData<TaskSummary[]>(key);
      if (previous) queryClient.setQueryData<TaskSummary[]>(key, placeTask(previous, id, place));
      let kept = false;
      try {
        const task = { id, title: cachedTask(queryClient, id)?.title ?? '' };
        kept = !(await sendOrKeep({ method: 'POST', url: taskMovePath(id), body: place, task }));
      } catch (error) {
        queryClient.setQueryData(key, previous);
        throw error;
      } finally {
        // Issue 31: kept offline, the list shows the new place until the outbox is sent (and refetches).
        if (!kept) void invalidateTask(queryClient, id);
      }
    },
    [queryClient, scope],
  );
}

const invalidateSections = (queryClient: QueryClient, projectId: number) =>
  queryClient.invalidateQueries({ queryKey: sectionsKey(projectId) });

/** Adds, renames, moves and deletes a project's sections; each refreshes the sections (and, deleting, the tasks). */
export function useSectionActions(projectId: number) {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: async (name: string) =>
      (await (await apiRequest('POST', projectSectionsPath(projectId), { name })).json()) as Section,
    onSuccess: (section) => {
      queryClient.setQueryData<Section[]>(
        sectionsKey(projectId),
        (sections) => sections && [...sections, section],
      );
      void invalidateSections(queryClient, projectId);
    },
  });
  const rename = useMutation({
    mutationFn: async ({ id, name }: { id: number; name: string }) =>
      (await (await apiRequest('PATCH', sectionPath(id), { name })).json()) as Section,
    onSuccess: (section) => {
      queryClient.setQueryData<Section[]>(sectionsKey(projectId), (sections) =>
        sections?.map((candidate) => (candidate.id === section.id ? section : candidate)),
      );
      void invalidateSections(queryClient, projectId);
    },
  });
  const remove = useMutation({
    mutationFn: async (id: number) => {
      await apiRequest('DELETE', sectionPath(id));
    },
    onSuccess: () => Promise.all([invalidateSections(queryClient, projectId), invalidateTask(queryClient)]),
  });
  /** Optimistic (a dragged column lands at once); back on a refusal. */
  const move = useCallback(
    async (id: number, afterId: number | null) => {
      const key = sectionsKey(projectId);
      void queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<Section[]>(key);
      if (previous) {
        const rest = previous.filter((section) => section.id !== id);
        const moved = previous.find((section) => section.id === id)!;
        rest.splice(afterId === null ? 0 : rest.findIndex((s) => s.id === afterId) + 1, 0, moved);
        queryClient.setQueryData<Section[]>(key, rest);
      }
      try {
        await apiRequest('POST', sectionMovePath(id), { afterId });
      } catch (error) {
        queryClient.setQueryData(key, previous);
        throw error;
      } finally {
        void invalidateSections(queryClient, projectId);
      }
    },
    [queryClient, projectId],
  );
  return { create, rename, remove, move };
}
