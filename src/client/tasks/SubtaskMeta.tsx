import { useQuery, useQueryClient } from '@tanstack/react-query';
import { CornerLeftUpIcon, ListTreeIcon } from 'lucide-react';
import { Link } from 'wouter';
import type { Task, TaskSummary } from '../../common/tasks';
import { taskHref } from '../notifications/open-task';
import { useProjects } from '../projects/api';
import { Badge } from '../ui/badge';
import { cachedTask, taskKey } from './api';
import { SUBTASK_COPY } from './subtasks';

/** A parent's sub-tasks done and in all ('2/5', issue 29), on the list's and the board's cards. */
export function SubtaskProgress({ task }: { task: Pick<TaskSummary, 'subtasks'> }) {
  const { done, total } = task.subtasks;
  if (total === 0) return null;
  return (
    <Badge variant="outline" className="font-normal text-muted-foreground">
      <ListTreeIcon aria-hidden />
      <span aria-hidden>
        {done}/{total}
      </span>
      <span className="sr-only">{SUBTASK_COPY.progress(done, total)}</span>
    </Badge>
  );
}

/**
 * 'in Plan trip' (issue 29): a sub-task shown away from its parent (the board, Today, Upcoming, or a
 * list without the parent) links to the parent's card. The title comes from a cached list when one
 * holds the parent, else from GET /api/tasks/{id} (once per parent).
 */
export function ParentLink({ task }: { task: Pick<TaskSummary, 'parentId' | 'projectId'> }) {
  const parentId = task.parentId;
  if (parentId === null) return null;
  return <ParentLinkOf parentId={parentId} projectId={task.projectId} />;
}

function ParentLinkOf({ parentId, projectId }: { parentId: number; projectId: number }) {
  const queryClient = useQueryClient();
  const cached = cachedTask(queryClient, parentId);
  const { data: parent } = useQuery<Task>({ queryKey: taskKey(parentId), enabled: cached === undefined });
  const { data: projects } = useProjects();
  const title = cached?.title ?? parent?.title;
  if (!title) return null;
  const inbox = projects?.find((project) => project.id === projectId)?.inbox ?? false;
  return (
    <Link
      href={taskHref(projectId, parentId, inbox)}
      className="inline-flex max-w-full items-center gap-1 rounded-sm text-xs text-muted-foreground underline-offset-2 outline-none hover:text-foreground hover:underline focus-visible:ring-2 focus-visible:ring-ring"
    >
      <CornerLeftUpIcon aria-hidden className="size-3.5 shrink-0" />
      <span className="truncate">{SUBTASK_COPY.parentLink(title)}</span>
    </Link>
  );
}
