import { useIsFetching, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { addDays } from '../../common/due';
import type { TaskSummary } from '../../common/tasks';
import { browserTimeZone } from '../auth/api';
import { useSession } from '../lib/session';
import {
  type DueWindow,
  invalidateTask,
  type TaskScope,
  tasksKey,
  updateTask,
  useDueTasks,
} from '../tasks/api';
import { errorToast } from '../ui/toasts';
import { VIEW_COPY } from './copy';
import { daysBetween, todayIn } from './days';

/**
 * 'Only tasks assigned to me' (issue 28), remembered per person in this browser: off (the default),
 * Today, Upcoming and the calendar also list the tasks assigned to nobody in the projects the
 * person can edit; on, their Inbox and what is assigned to them alone.
 */
const onlyAssignedKey = (userId: number) => `tasklane.only-assigned.${userId}`;
const onlyAssignedListeners = new Set<() => void>();

function subscribeOnlyAssigned(listener: () => void) {
  onlyAssignedListeners.add(listener);
  // Another tab's choice too.
  window.addEventListener('storage', listener);
  return () => {
    onlyAssignedListeners.delete(listener);
    window.removeEventListener('storage', listener);
  };
}

/** The person's choice and a way to change it (every screen that reads it follows at once). */
export function useOnlyAssigned() {
  const userId = useSession()?.user.id;
  const onlyAssigned = useSyncExternalStore(
    subscribeOnlyAssigned,
    () => userId !== undefined && localStorage.getItem(onlyAssignedKey(userId)) === 'true',
  );
  const setOnlyAssigned = useCallback(
    (next: boolean) => {
      if (userId === undefined) return;
      if (next) localStorage.setItem(onlyAssignedKey(userId), 'true');
      else localStorage.removeItem(onlyAssignedKey(userId));
      for (const listener of onlyAssignedListeners) listener();
    },
    [userId],
  );
  return { onlyAssigned, setOnlyAssigned };
}

/**
 * Everything of the caller's, Today's, Upcoming's and the calendar's scope: their Inbox, what is
 * assigned to them and, unless they chose 'Only tasks assigned to me', what is assigned to nobody
 * in the projects they can edit.
 */
export function useMineScope(): TaskScope {
  const { onlyAssigned } = useOnlyAssigned();
  return useMemo(() => ({ kind: 'mine', onlyAssigned }), [onlyAssigned]);
}

/** How many days Upcoming shows, today first. */
export const UPCOMING_DAYS = 14;

/** The zone the views read days in: the account's, the browser's until it has one (as the server does). */
export function useViewZone(): string {
  return useSession()?.user.timeZone ?? browserTimeZone();
}

/** Today's window: everything due up to today (the overdue ones and today's). */
export const todayWindow = (today: string): DueWindow => ({ dueTo: today });
/** Upcoming's: today and the 13 days after. */
export const upcomingWindow = (today: string): DueWindow => ({
  dueFrom: today,
  dueTo: addDays(today, UPCOMING_DAYS - 1),
});

/**
 * Today's tasks (the page and the sidebar's count ask the same query). `enabled: false` asks
 * nothing but still reads what another screen's query brought.
 */
export function useTodayTasks(enabled = true) {
  const zone = useViewZone();
  const today = todayIn(zone);
  const scope = useMineScope();
  return { zone, today, ...useDueTasks(scope, todayWindow(today), enabled) };
}

/** Upcoming's tasks. */
export function useUpcomingTasks(enabled = true) {
  const zone = useViewZone();
  const today = todayIn(zone);
  const scope = useMineScope();
  return { zone, today, ...useDueTasks(scope, upcomingWindow(today), enabled) };
}

/**
 * True once the screen's own task lists have arrived, and from then on: the sidebar's counts wait
 * for them, rather than have the server read two more lists while the person waits for theirs.
 */
export function useListsSettled(): boolean {
  const fetching = useIsFetching({ queryKey: tasksKey });
  const [settled, setSettled] = useState(false);
  useEffect(() => {
    if (settled || fetching > 0) return;
    // A frame later: the screen's own list has had its turn to start.
    const frame = requestAnimationFrame(() => setSettled(true));
    return () => cancelAnimationFrame(frame);
  }, [fetching, settled]);
  return settled;
}

/**
 * Moves a task from the day it shows on to another (a drag between days): PATCH of its dueDate by
 * as many days, its time kept. Written into the cached lists first, so the card lands where it was
 * dropped; a refusal puts the lists back as the server has them.
 */
export function useReschedule() {
  const queryClient = useQueryClient();
  return useCallback(
    async (task: TaskSummary, fromDay: string, toDay: string) => {
      if (!task.dueDate || fromDay === toDay) return;
      const dueDate = addDays(task.dueDate, daysBetween(fromDay, toDay));
      void queryClient.cancelQueries({ queryKey: tasksKey });
      queryClient.setQueriesData<TaskSummary[]>({ queryKey: tasksKey }, (tasks) =>
        tasks?.map((t) => (t.id === task.id ? { ...t, dueDate } : t)),
      );
      try {
        await updateTask(task.id, { dueDate });
      } catch {
        errorToast(VIEW_COPY.rescheduleFailed);
      } finally {
        void invalidateTask(queryClient, task.id);
      }
    },
    [queryClient],
  );
}
