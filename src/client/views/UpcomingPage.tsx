import { useMemo } from 'react';
import { useDocumentTitle } from '../lib/document-title';
import { LoadError } from '../tasks/EmptyState';
import { TaskSkeletons } from '../tasks/TaskSkeleton';
import { PageHeading } from '../ui/page-heading';
import { AddDayTask } from './AddDayTask';
import { UPCOMING_DAYS, useUpcomingTasks } from './api';
import { VIEW_COPY } from './copy';
import { DayTasks, dayDroppableId, tasksByDay, useDayDrop } from './DayTasks';
import { dayHeading, daysFrom } from './days';

/**
 * Upcoming (issue 23) at `/upcoming`: the next 14 days of the caller's tasks, a heading per day
 * ('Today', 'Tomorrow', 'Thursday 3 December'), 'Add a task' under each, and a card dragged to
 * another day is due that day (its time kept).
 */
export function UpcomingPage() {
  useDocumentTitle(VIEW_COPY.upcoming);
  const { zone, today, data: tasks, isPending, isError, refetch } = useUpcomingTasks();
  const byDay = useMemo(() => tasksByDay(tasks ?? [], zone), [tasks, zone]);
  useDayDrop(byDay);

  return (
    <>
      <PageHeading className="text-2xl font-semibold tracking-tight">{VIEW_COPY.upcoming}</PageHeading>
      <p className="mt-1 text-sm text-muted-foreground">{VIEW_COPY.upcomingHint}</p>
      <div className="mt-6">
        {isPending ? (
          <TaskSkeletons />
        ) : isError && !tasks ? (
          <LoadError onRetry={() => void refetch()} />
        ) : (
          daysFrom(today, UPCOMING_DAYS).map((day) => {
            const heading = dayHeading(day, today);
            const dayTasks = byDay.get(day) ?? [];
            return (
              <section key={day} aria-labelledby={`day-${day}`} data-day={day} className="mb-5 border-t pt-3">
                <h2 id={`day-${day}`} className="mb-2 text-sm font-semibold">
                  {heading}
                </h2>
                <DayTasks droppableId={dayDroppableId(day)} tasks={dayTasks} draggable />
                <AddDayTask day={day} dayLabel={heading} />
              </section>
            );
          })
        )}
      </div>
    </>
  );
}
