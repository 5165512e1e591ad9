import { describe, expect, it } from 'vitest';
import type { TaskSummary } from '../../common/tasks';
import { dayAfterKey, dayHeading, firstDayOfWeek, monthGrid, shiftMonth, weekdayNames } from './days';
import { compareToday } from './order';

describe('the days of Today, Upcoming and the calendar', () => {
  it("heads a day 'Today', 'Tomorrow', else with its weekday, day and month", () => {
    expect(dayHeading('2026-12-01', '2026-12-01')).toBe('Today');
    expect(dayHeading('2026-12-02', '2026-12-01')).toBe('Tomorrow');
    expect(dayHeading('2026-12-03', '2026-12-01')).toBe('Thursday 3 December');
    expect(dayHeading('2027-01-01', '2026-12-31')).toBe('Tomorrow');
  });

  it("lays a month out in whole weeks from the locale's first day", () => {
    expect(firstDayOfWeek('en-GB')).toBe(1);
    expect(firstDayOfWeek('en-US')).toBe(0);
    // December 2026 starts on a Tuesday and ends on a Thursday.
    const monday = monthGrid('2026-12', 1);
    expect(monday[0]![0]).toBe('2026-11-30');
    expect(monday.at(-1)!.at(-1)).toBe('2027-01-03');
    expect(monday).toHaveLength(5);
    const sunday = monthGrid('2026-12', 0);
    expect(sunday[0]![0]).toBe('2026-11-29');
    expect(sunday.at(-1)!.at(-1)).toBe('2027-01-02');
    expect(weekdayNames(0)[0]).toEqual({ short: 'Sun', long: 'Sunday' });
    expect(shiftMonth('2026-12', 1)).toBe('2027-01');
    expect(shiftMonth('2026-01', -1)).toBe('2025-12');
  });

  it('orders Today by day, then timed tasks by time before the others, then list order', () => {
    const task = (id: number, dueDate: string, dueTime: string | null, position: number) =>
      ({ id, dueDate, dueTime, dueTimeZone: dueTime ? 'Europe/Berlin' : null, position }) as TaskSummary;
    const tasks = [
      task(1, '2026-12-01', null, 5),
      task(2, '2026-12-01', '18:00', 9),
      task(3, '2026-11-30', null, 0),
      task(4, '2026-12-01', '09:00', 9),
      task(5, '2026-12-01', null, 2),
    ];
    expect([...tasks].sort(compareToday('Europe/Berlin')).map((t) => t.id)).toEqual([3, 4, 2, 5, 1]);
  });

  it("moves the calendar's focused day as the APG date grid does", () => {
    expect(dayAfterKey('2026-12-03', 'ArrowRight', 1)).toBe('2026-12-04');
    expect(dayAfterKey('2026-12-03', 'ArrowUp', 1)).toBe('2026-11-26');
    // Thursday 3 December: its week runs Monday 30 November to Sunday 6 December.
    expect(dayAfterKey('2026-12-03', 'Home', 1)).toBe('2026-11-30');
    expect(dayAfterKey('2026-12-03', 'End', 1)).toBe('2026-12-06');
    expect(dayAfterKey('2026-12-03', 'Home', 0)).toBe('2026-11-29');
    expect(dayAfterKey('2026-12-31', 'PageUp', 1)).toBe('2026-11-30');
    expect(dayAfterKey('2027-01-31', 'PageDown', 1)).toBe('2027-02-28');
    expect(dayAfterKey('2026-12-03', 'a', 1)).toBeNull();
  });
});
