import { type KeyboardEvent, useMemo } from 'react';
import { addDays } from '../../common/due';
import { useDocumentTitle } from '../lib/document-title';
import { shortcutFor } from '../lib/shortcuts';
import { focusedCard, revealCard } from '../tasks/card-focus';
import { LoadError } from '../tasks/EmptyState';
import { TaskSkeletons } from '../tasks/TaskSkeleton';
import { PageHeading } from '../ui/page-heading';
import { AddDayTask } from './AddDayTask';
import { UPCOMING_DAYS, useReschedule, useUpcomingTasks } from './api';
import { VIEW_COPY } from './copy';
import { DayTasks, dayDroppableId, tasksByDay, useDayDrop } from './DayTasks';
import { dayHeading, daysFrom } from './days';
import { OnlyAssignedControl } from './OnlyAssignedControl';

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
  const reschedule = useReschedule();
  const days = daysFrom(today, UPCOMING_DAYS);

  // Alt+Down / Alt+Up on a focused card (lib/shortcuts): the keyboard's drag to the next or the
  // previous day, within the 14 shown; focus follows the card to its new day.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const shortcut = shortcutFor(event.nativeEvent);
    if (shortcut !== 'next-day' && shortcut !== 'previous-day') return;
    const card = event.target instanceof HTMLElement ? event.target : null;
    const id = card?.matches('article[data-task-id]') ? Number(card.dataset.taskId) : null;
    const from = card?.closest<HTMLElement>('section[data-day]')?.dataset.day;
    const task = from ? byDay.get(from)?.find((candidate) => candidate.id === id) : undefined;
    if (!task || !from) return;
    event.preventDefault();
    const to = addDays(from, shortcut === 'next-day' ? 1 : -1);
    if (!days.includes(to)) return;
    // The card moves to another day's list, a new element: focus goes to it there once drawn; if
    // the change failed and the card went back, to wherever it is.
    const until = performance.now() + 2000;
    const focusMoved = () => {
      const moved = document.querySelector<HTMLElement>(
        `section[data-day="${to}"] article[data-task-id="${task.id}"]`,
      );
      if (moved) {
        moved.scrollIntoView({ block: 'nearest' });
        moved.focus({ preventScroll: true });
      } else if (performance.now() < until) requestAnimationFrame(focusMoved);
    };
    focusMoved();
    void reschedule(task, from, to).then(() => {
      if (!focusedCard()) void revealCard(task.id);
    });
  };

  return (
    <>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <PageHeading className="text-2xl font-semibold tracking-tight">{VIEW_COPY.upcoming}</PageHeading>
        <OnlyAssignedControl />
      </div>
      <p className="mt-1 text-sm text-muted-foreground">{VIEW_COPY.upcomingHint}</p>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the cards inside take the keys; this hears them bubble */}
      <div className="mt-6" onKeyDown={onKeyDown}>
        {isPending ? (
          <TaskSkeletons />
        ) : isError && !tasks ? (
          <LoadError onRetry={() => void refetch()} />
        ) : (
          days.map((day) => {
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
