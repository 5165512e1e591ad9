import { SunIcon } from 'lucide-react';
import { useMemo } from 'react';
import { isOverdue } from '../../common/due';
import { useDocumentTitle } from '../lib/document-title';
import { EmptyState, LoadError } from '../tasks/EmptyState';
import { TaskSkeletons } from '../tasks/TaskSkeleton';
import { PageHeading } from '../ui/page-heading';
import { useOnlyAssigned, useTodayTasks } from './api';
import { VIEW_COPY } from './copy';
import { DayTasks } from './DayTasks';
import { OnlyAssignedControl } from './OnlyAssignedControl';
import { compareToday } from './order';

/**
 * Today (issue 23) at `/today`: what is overdue and what is due today, in the caller's Inbox,
 * assigned to them anywhere and (issue 28, unless 'Only tasks assigned to me') assigned to nobody in
 * the projects they can edit, in two groups ('Overdue', 'Today') in Today's order (./order.ts).
 */
export function TodayPage() {
  useDocumentTitle(VIEW_COPY.today);
  const { zone, data: tasks, isPending, isError, refetch } = useTodayTasks();
  const { onlyAssigned } = useOnlyAssigned();
  const groups = useMemo(() => {
    const now = new Date();
    const sorted = [...(tasks ?? [])].sort(compareToday(zone));
    return [
      {
        id: 'overdue',
        heading: VIEW_COPY.overdue,
        tasks: sorted.filter((task) => isOverdue(task, now, zone)),
      },
      { id: 'today', heading: VIEW_COPY.today, tasks: sorted.filter((task) => !isOverdue(task, now, zone)) },
    ].filter((group) => group.tasks.length > 0);
  }, [tasks, zone]);

  return (
    <>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <PageHeading className="text-2xl font-semibold tracking-tight">{VIEW_COPY.today}</PageHeading>
        <OnlyAssignedControl />
      </div>
      <div className="mt-6">
        {isPending ? (
          <TaskSkeletons />
        ) : isError && !tasks ? (
          <LoadError onRetry={() => void refetch()} />
        ) : groups.length === 0 ? (
          <EmptyState
            icon={SunIcon}
            title={VIEW_COPY.todayEmpty}
            hint={VIEW_COPY.todayEmptyHint(onlyAssigned)}
          />
        ) : (
          groups.map((group) => (
            <section key={group.id} aria-labelledby={`today-${group.id}`} className="mb-6">
              <h2 id={`today-${group.id}`} className="mb-3 text-sm font-semibold text-muted-foreground">
                {group.heading} <span className="font-normal tabular-nums">{group.tasks.length}</span>
              </h2>
              <DayTasks droppableId={`today-${group.id}`} tasks={group.tasks} draggable={false} />
            </section>
          ))
        )}
      </div>
    </>
  );
}
