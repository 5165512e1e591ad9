import { addDays, dateInZone } from '../../common/due';
import { VIEW_COPY } from './copy';

/**
 * Days as Today, Upcoming and the calendar show them (issue 23). A day is 'YYYY-MM-DD' in the
 * caller's time zone (the account's, the browser's until it has one): the server reads a due
 * window's days in the same zone.
 */

/** Today in `timeZone`. */
export const todayIn = (timeZone: string, now: Date = new Date()) => dateInZone(now, timeZone);

const dateOf = (day: string) => new Date(`${day}T00:00:00Z`);

/** 'Thursday 3 December' (read on the calendar alone: no zone moves it). */
const longDay = new Intl.DateTimeFormat('en-GB', {
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  timeZone: 'UTC',
});

/** 'Thursday 3 December'. */
export const longDayHeading = (day: string) => longDay.format(dateOf(day));

/** A day's heading: 'Today', 'Tomorrow', else 'Thursday 3 December'. */
export function dayHeading(day: string, today: string) {
  if (day === today) return VIEW_COPY.today;
  if (day === addDays(today, 1)) return VIEW_COPY.tomorrow;
  return longDayHeading(day);
}

/** The `count` days from `first` on. */
export const daysFrom = (first: string, count: number): string[] =>
  Array.from({ length: count }, (_, i) => addDays(first, i));

/** Days between two days (b minus a). */
export const daysBetween = (a: string, b: string) =>
  Math.round((dateOf(b).getTime() - dateOf(a).getTime()) / 86_400_000);

/** 0 Sunday .. 6 Saturday. */
export const weekday = (day: string) => dateOf(day).getUTCDay();

type WeekInfo = { firstDay: number };
/**
 * The first day of the week in the reader's locale (0 Sunday .. 6 Saturday): Intl.Locale's week
 * information where the browser has it (getWeekInfo, or the older weekInfo), Monday otherwise.
 */
export function firstDayOfWeek(locale: string = navigator.language): number {
  try {
    const info = new Intl.Locale(locale) as Intl.Locale & {
      getWeekInfo?: () => WeekInfo;
      weekInfo?: WeekInfo;
    };
    const firstDay = info.getWeekInfo?.().firstDay ?? info.weekInfo?.firstDay;
    // Intl numbers the days 1 Monday .. 7 Sunday.
    return firstDay === undefined ? 1 : firstDay % 7;
  } catch {
    return 1;
  }
}

/** 'YYYY-MM' of a day. */
export const monthOf = (day: string) => day.slice(0, 7);

/** The month after (or before, -1) 'YYYY-MM'. */
export function shiftMonth(month: string, by: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const date = new Date(Date.UTC(y, m - 1 + by, 1));
  return date.toISOString().slice(0, 7);
}

/** 'December 2026'. */
export const monthHeading = (month: string) =>
  new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    dateOf(`${month}-01`),
  );

/** The weekdays' short names from `firstDay` on ('Mon', 'Tue', ...) with their long ones. */
export function weekdayNames(firstDay: number): { short: string; long: string }[] {
  // 2026-11-01 is a Sunday.
  return Array.from({ length: 7 }, (_, i) => {
    const date = dateOf(addDays('2026-11-01', (firstDay + i) % 7));
    return {
      short: new Intl.DateTimeFormat('en-GB', { weekday: 'short', timeZone: 'UTC' }).format(date),
      long: new Intl.DateTimeFormat('en-GB', { weekday: 'long', timeZone: 'UTC' }).format(date),
    };
  });
}

/** A month's grid: whole weeks from the week holding the 1st to the week holding the last day. */
export function monthGrid(month: string, firstDay: number): string[][] {
  const first = `${month}-01`;
  const start = addDays(first, -((weekday(first) - firstDay + 7) % 7));
  const last = addDays(`${shiftMonth(month, 1)}-01`, -1);
  const weeks: string[][] = [];
  for (let day = start; day <= last; day = addDays(day, 7)) weeks.push(daysFrom(day, 7));
  return weeks;
}

/**
 * Where a key moves the focused day (the APG's date grid): arrows a day or a week, Home and End the
 * week's ends, Page Up and Page Down the same day a month before or after (the month's last, when
 * shorter). Null for any other key.
 */
export function dayAfterKey(day: string, key: string, firstDay: number): string | null {
  const by = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 }[key];
  if (by !== undefined) return addDays(day, by);
  const weekStart = addDays(day, -((weekday(day) - firstDay + 7) % 7));
  if (key === 'Home') return weekStart;
  if (key === 'End') return addDays(weekStart, 6);
  if (key !== 'PageUp' && key !== 'PageDown') return null;
  const month = shiftMonth(monthOf(day), key === 'PageUp' ? -1 : 1);
  const last = addDays(`${shiftMonth(month, 1)}-01`, -1);
  const same = `${month}-${day.slice(8)}`;
  return same > last ? last : same;
}
