import { ArchiveIcon } from 'lucide-react';
import { COPY } from '../../common/spec';
import type { Task } from '../../common/tasks';
import { ListProjectContext } from '../projects/ProjectChip';
import { useScopeProjectId } from '../sections/api';
import { ArchivedTaskCard } from './ArchivedTaskCard';
import { INBOX_SCOPE, type TaskScope, useArchivedTasks } from './api';
import { EmptyState, LoadError, NoMatches } from './EmptyState';
import { useTaskFilter } from './filters';
import { TaskSkeletons } from './TaskSkeleton';
import { useWindowRows } from './window-rows';

/** An archived card with a one-line title. */
const ESTIMATED_CARD_PX = 90;

/**
 * The archive grows with every completed task, so it is virtualized like the active list (issue 15):
 * only the cards near the screen are mounted, plus the one that holds focus.
 */
function ArchivedRows({ tasks }: { tasks: Task[] }) {
  const { containerRef, style, rows, virtualizer } = useWindowRows(tasks, {
    estimatedCardPx: ESTIMATED_CARD_PX,
  });
  return (
    <div ref={containerRef} style={style}>
      {rows.map(({ task, index, top }) => (
        <ArchivedTaskCard
          key={task.id}
          task={task}
          index={index}
          top={top}
          measure={virtualizer.measureElement}
        />
      ))}
    </div>
  );
}

/** Archived tasks, most recently archived first (the server's order): the Inbox's or a project's. */
export function ArchivedTaskList({ scope = INBOX_SCOPE }: { scope?: TaskScope }) {
  const { filter, filtered, setFilter } = useTaskFilter();
  const { data: tasks, isPending, isError, refetch } = useArchivedTasks(scope, filtered ? filter : undefined);
  const projectId = useScopeProjectId(scope);
  if (isPending) return <TaskSkeletons />;
  // A failed refetch keeps the list on screen; only a list that never loaded shows the error.
  if (isError && !tasks) return <LoadError onRetry={() => void refetch()} />;
  if (tasks.length === 0) {
    return filtered ? (
      <NoMatches onClear={() => setFilter({})} />
    ) : (
      <EmptyState icon={ArchiveIcon} title={COPY.noArchivedTasks} />
    );
  }
  return (
    <ListProjectContext value={projectId}>
      <ArchivedRows tasks={tasks} />
    </ListProjectContext>
  );
}
