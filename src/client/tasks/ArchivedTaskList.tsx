import { ArchiveIcon } from 'lucide-react';
import { COPY } from '../../common/spec';
import { ArchivedTaskCard } from './ArchivedTaskCard';
import { useArchivedTasks } from './api';
import { EmptyState, LoadError, NoMatches } from './EmptyState';
import { useTaskFilter } from './filters';
import { TaskSkeletons } from './TaskSkeleton';

/** Archived tasks, most recently archived first (the server's order). */
export function ArchivedTaskList() {
  const { filter, filtered, setFilter } = useTaskFilter();
  const { data: tasks, isPending, isError, refetch } = useArchivedTasks(filtered ? filter : undefined);
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
    <div className="grid gap-3">
      {tasks.map((task) => (
        <ArchivedTaskCard key={task.id} task={task} />
      ))}
    </div>
  );
}
