import { dueAt, dueDayIn } from '../../common/due';
import type { TaskSummary } from '../../common/tasks';

/**
 * Today's order (issue 23), in this one place: by day (an overdue task's), then timed tasks by
 * their instant before the date-only ones, then the list's own order (position, then id).
 * Priority (being added in parallel) goes between the time and the position.
 */
export function compareToday(timeZone: string) {
  return (a: TaskSummary, b: TaskSummary): number => {
    const dayA = dueDayIn(a, timeZone) ?? '';
    const dayB = dueDayIn(b, timeZone) ?? '';
    if (dayA !== dayB) return dayA < dayB ? -1 : 1;
    const atA = dueAt(a)?.getTime() ?? Number.POSITIVE_INFINITY;
    const atB = dueAt(b)?.getTime() ?? Number.POSITIVE_INFINITY;
    if (atA !== atB) return atA < atB ? -1 : 1;
    return a.position - b.position || a.id - b.id;
  };
}
