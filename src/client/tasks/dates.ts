import { dueAt } from '../../common/due';

/**
 * A due date (YYYY-MM-DD) in the reader's locale. It is read as a local calendar date: parsed as UTC
 * midnight it would show the day before anywhere west of Greenwich.
 */
export function formatDueDate(dueDate: string): string {
  const [y, m, d] = dueDate.split('-').map(Number);
  if (!y || !m || !d) return dueDate;
  return new Date(y, m - 1, d).toLocaleDateString();
}

/** YYYY-MM-DD of a day in the reader's own time zone. */
export function localIsoDate(day: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

/** Whether a due date has passed or is today, in the reader's calendar; null otherwise. */
export function dueUrgency(dueDate: string, today: Date = new Date()): 'overdue' | 'today' | null {
  const todayIso = localIsoDate(today);
  if (dueDate < todayIso) return 'overdue';
  return dueDate === todayIso ? 'today' : null;
}

/** A due time ('HH:MM') as written: 24-hour '14:30', the same everywhere (issue 22). */
export function formatDueTime(dueTime: string): string {
  return dueTime;
}

/**
 * Whether a task's due date-time has passed or falls today, for the card (issue 22): a timed task
 * is overdue once its instant has passed (in the zone stored with its time); a date-only one once
 * its date is before today in the reader's calendar.
 */
export function taskUrgency(
  task: { dueDate: string | null; dueTime?: string | null; dueTimeZone?: string | null },
  now: Date = new Date(),
): 'overdue' | 'today' | null {
  if (!task.dueDate) return null;
  const at = dueAt({
    dueDate: task.dueDate,
    dueTime: task.dueTime ?? null,
    dueTimeZone: task.dueTimeZone ?? null,
  });
  if (at) {
    if (at.getTime() < now.getTime()) return 'overdue';
    return localIsoDate(at) === localIsoDate(now) ? 'today' : null;
  }
  return dueUrgency(task.dueDate, now);
}
