import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { Project } from '../../common/projects';
import { type TaskSummary, taskPath } from '../../common/tasks';
import { errorMessage } from '../lib/api';
import { sendOrKeep } from '../offline/outbox';
import { PROJECT_COPY } from '../projects/copy';
import { errorToast, successToast } from '../ui/toasts';
import { cachedTask, invalidateTask, tasksKey } from './api';
import { showInLists } from './optimistic';

/**
 * Moves a task to another project (issue 21: `PATCH /api/tasks/{id} {projectId}`), from the
 * palette's 'Move task to…' or a card dropped on a project in the sidebar. The task leaves every
 * list at once (the drag library needs the list changed within its drop handler, or the card jumps
 * back), comes back if the server refuses, and the lists and the projects' counts are fetched again
 * either way. Resolves whether it moved; a refusal shows the server's message.
 */
export function useMoveTask() {
  const queryClient = useQueryClient();
  return useCallback(
    async (taskId: number, project: Pick<Project, 'id' | 'name'>): Promise<boolean> => {
      const moved = cachedTask(queryClient, taskId);
      const title = moved?.title;
      const lists = queryClient.getQueriesData<TaskSummary[]>({ queryKey: tasksKey });
      void queryClient.cancelQueries({ queryKey: tasksKey });
      queryClient.setQueriesData<TaskSummary[]>({ queryKey: tasksKey }, (tasks) =>
        tasks?.filter((task) => task.id !== taskId),
      );
      let kept = false;
      try {
        kept = !(await sendOrKeep({
          method: 'PATCH',
          url: taskPath(taskId),
          body: { projectId: project.id },
          task: { id: taskId, title: title ?? '' },
        }));
        // Into the cached lists of the project it went to (at the top, out of any section).
        if (kept && moved) showInLists(queryClient, { ...moved, projectId: project.id, sectionId: null });
      } catch (error) {
        for (const [key, tasks] of lists) queryClient.setQueryData(key, tasks);
        errorToast(errorMessage(error, PROJECT_COPY.moveFailed));
        return false;
      } finally {
        // Issue 31: kept offline, it stays out of the lists until the outbox is sent (and refetches).
        if (!kept) void invalidateTask(queryClient, taskId);
      }
      successToast([PROJECT_COPY.taskMoved, PROJECT_COPY.taskMovedTo(title ?? 'The task', project.name)]);
      return true;
    },
    [queryClient],
  );
}
