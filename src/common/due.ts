import { TZDate } from '@date-fns/tz';
import { DEFAULT_TIME_ZONE, isTimeZone } from './time-zone';

export { DEFAULT_TIME_ZONE, isTimeZone };

/**
 * When a task is due (issue 22, decision 032). A due date is a calendar date (YYYY-MM-DD); a due
 * time ('HH:MM') is read in the zone stored with it (the setter's zone when it was set), so it
 * never drifts when someone elsewhere reads it. Pure: the caller passes the clock's now.
 */

/** 'HH:MM', 00:00 to 23:59. */
export const DUE_TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;

export interface DueFields {
  dueDate: string | null;
  dueTime: string | null;
  dueTimeZone: string | null;
}

function dateParts(date: string): [number, number, number] | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return null;
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/**
 * The instant a timed task is due: its date and time read in its zone (UTC when none is stored).
 * Null for a task with no date, or a date without a time (a date-only task is due all that day:
 * see isOverdue). A wall time that a daylight-saving jump skips resolves forward (02:30 on the
 * spring-forward night is 03:30).
 */
export function dueAt(task: DueFields): Date | null {
  if (!task.dueDate || !task.dueTime || !DUE_TIME_PATTERN.test(task.dueTime)) return null;
  return instantInZone(task.dueDate, task.dueTime, task.dueTimeZone);
}

/**
 * The instant a wall clock in `timeZone` (UTC when null or unknown) reads `date` 'YYYY-MM-DD' at
 * `time` 'HH:MM': a due date-time, the daily digest's 08:00. Null for a date that is not one.
 */
export function instantInZone(date: string, time: string, timeZone: string | null): Date | null {
  const parts = dateParts(date);
  if (!parts) return null;
  const [h, min] = time.split(':').map(Number) as [number, number];
  const zone = timeZone && isTimeZone(timeZone) ? timeZone : DEFAULT_TIME_ZONE;
  return new Date(new TZDate(parts[0], parts[1] - 1, parts[2], h, min, 0, zone).getTime());
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The instant `now` as a wall calendar and clock in `timeZone` read it (UTC when unknown). */
function wallClock(now: Date | number, timeZone: string | null): TZDate {
  return new TZDate(
    typeof now === 'number' ? now : now.getTime(),
    timeZone && isTimeZone(timeZone) ? timeZone : DEFAULT_TIME_ZONE,
  );
}

/** YYYY-MM-DD of the instant `now` as a calendar in `timeZone` reads it. */
export function dateInZone(now: Date | number, timeZone: string | null): string {
  const wall = wallClock(now, timeZone);
  return `${wall.getFullYear()}-${pad(wall.getMonth() + 1)}-${pad(wall.getDate())}`;
}

/** 'HH:MM' of the instant `now` in `timeZone`. */
export function timeInZone(now: Date | number, timeZone: string | null): string {
  const wall = wallClock(now, timeZone);
  return `${pad(wall.getHours())}:${pad(wall.getMinutes())}`;
}

/**
 * Overdue: a timed task once its instant has passed; a date-only task once its date is before
 * today in the viewer's zone (it is due all of its day).
 */
export function isOverdue(task: DueFields, now: Date, viewerTimeZone: string): boolean {
  if (!task.dueDate) return false;
  const at = dueAt(task);
  if (at) return at.getTime() < now.getTime();
  return task.dueDate < dateInZone(now, viewerTimeZone);
}

/** The day `days` after 'YYYY-MM-DD' (before, when negative), on the calendar alone. */
export function addDays(date: string, days: number): string {
  const parts = dateParts(date);
  if (!parts) return date;
  return new Date(Date.UTC(parts[0], parts[1] - 1, parts[2] + days)).toISOString().slice(0, 10);
}

/**
 * The day a task is due on as a reader in `timeZone` sees it (issue 23: Today, Upcoming, the
 * calendar): a timed task's instant read in that zone, a date-only task's date as it is. Null
 * without a date.
 */
export function dueDayIn(task: DueFields, timeZone: string | null): string | null {
  const at = dueAt(task);
  return at ? dateInZone(at, timeZone) : task.dueDate;
}

/**
 * How far a timed task's day can move when read in another zone: the zones span UTC-12 to UTC+14,
 * so 23:59 in one is already two days later in another. A query by date widens by this much and
 * then keeps the tasks whose dueDayIn falls in the window.
 */
export const ZONE_DAY_REACH = 2;
