import { describe, expect, it } from 'vitest';
import { dueAt, isOverdue } from './due';
import {
  completedNextText,
  findRecurrencePhrase,
  firstDueDate,
  nextDueDate,
  normalizeRecurrence,
  parseRecurrencePhrase,
  RECURRENCE_MESSAGES,
  recurrenceText,
} from './recurrence';

describe('normalizeRecurrence', () => {
  it('accepts a rule, with or without its prefix, and writes it one way', () => {
    expect(normalizeRecurrence('RRULE:FREQ=WEEKLY;BYDAY=MO,WE')).toEqual({
      ok: true,
      rule: 'FREQ=WEEKLY;BYDAY=MO,WE',
    });
    expect(normalizeRecurrence('freq=monthly;bymonthday=31')).toEqual({
      ok: true,
      rule: 'FREQ=MONTHLY;BYMONTHDAY=31',
    });
  });

  it('refuses what is not a rule the app can follow', () => {
    for (const bad of [
      '',
      'weekly',
      'FREQ=FOO',
      'BYDAY=MO',
      'FREQ=WEEKLY;BYDAY=XX',
      'FREQ=HOURLY',
      'FREQ=DAILY;DTSTART=20260101',
    ]) {
      expect(normalizeRecurrence(bad).ok, bad).toBe(false);
    }
    expect(normalizeRecurrence('FREQ=DAILY;COUNT=3')).toEqual({
      ok: false,
      message: RECURRENCE_MESSAGES.count,
    });
    expect(normalizeRecurrence('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30')).toEqual({
      ok: false,
      message: RECURRENCE_MESSAGES.never,
    });
  });
});

describe('nextDueDate', () => {
  it("'due' counts from the old due date and skips dates already past", () => {
    // Weekly on Monday, due Mon 30 Nov 2026.
    expect(nextDueDate('FREQ=WEEKLY;BYDAY=MO', '2026-11-30', 'due', '2026-11-30')).toBe('2026-12-07');
    // Completed early: still the occurrence after the due date.
    expect(nextDueDate('FREQ=WEEKLY;BYDAY=MO', '2026-11-30', 'due', '2026-11-25')).toBe('2026-12-07');
    // Three weeks late: the next Monday after today, not one already past.
    expect(nextDueDate('FREQ=WEEKLY;BYDAY=MO', '2026-11-30', 'due', '2026-12-22')).toBe('2026-12-28');
    // Every 2 weeks keeps its rhythm from the due date.
    expect(nextDueDate('FREQ=WEEKLY;INTERVAL=2', '2026-11-30', 'due', '2026-12-16')).toBe('2026-12-28');
  });

  it("'completion' counts from the day it was completed", () => {
    expect(nextDueDate('FREQ=DAILY;INTERVAL=3', '2026-11-30', 'completion', '2026-12-05')).toBe('2026-12-08');
    expect(nextDueDate('FREQ=DAILY;INTERVAL=3', '2026-11-30', 'completion', '2026-11-28')).toBe('2026-12-01');
  });

  it('month ends: BYMONTHDAY=31 skips months without a 31st; BYMONTHDAY=-1 is the last day', () => {
    expect(nextDueDate('FREQ=MONTHLY;BYMONTHDAY=31', '2027-01-31', 'due', '2027-01-31')).toBe('2027-03-31');
    expect(nextDueDate('FREQ=MONTHLY;BYMONTHDAY=31', '2027-03-31', 'due', '2027-03-31')).toBe('2027-05-31');
    expect(nextDueDate('FREQ=MONTHLY;BYMONTHDAY=-1', '2027-01-31', 'due', '2027-01-31')).toBe('2027-02-28');
    expect(nextDueDate('FREQ=MONTHLY;BYMONTHDAY=-1', '2028-01-31', 'due', '2028-01-31')).toBe('2028-02-29');
  });

  it('weekly on several days, weekdays, yearly', () => {
    expect(nextDueDate('FREQ=WEEKLY;BYDAY=MO,WE', '2026-11-30', 'due', '2026-11-30')).toBe('2026-12-02');
    expect(nextDueDate('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', '2026-12-04', 'due', '2026-12-04')).toBe(
      '2026-12-07',
    );
    expect(nextDueDate('FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3', '2026-03-03', 'due', '2026-03-03')).toBe(
      '2027-03-03',
    );
  });

  it('a series past its UNTIL has no next date', () => {
    expect(nextDueDate('FREQ=DAILY;UNTIL=20261201T000000Z', '2026-12-01', 'due', '2026-12-01')).toBeNull();
  });

  it('keeps 09:00 local across a daylight-saving change', () => {
    // Berlin leaves summer time on 25 Oct 2026; New York on 1 Nov 2026.
    const berlin = nextDueDate('FREQ=WEEKLY', '2026-10-22', 'due', '2026-10-22')!;
    expect(berlin).toBe('2026-10-29');
    expect(
      dueAt({ dueDate: '2026-10-22', dueTime: '09:00', dueTimeZone: 'Europe/Berlin' })?.toISOString(),
    ).toBe('2026-10-22T07:00:00.000Z');
    expect(dueAt({ dueDate: berlin, dueTime: '09:00', dueTimeZone: 'Europe/Berlin' })?.toISOString()).toBe(
      '2026-10-29T08:00:00.000Z',
    );
    const ny = nextDueDate('FREQ=DAILY', '2026-10-31', 'due', '2026-10-31')!;
    expect(
      dueAt({ dueDate: '2026-10-31', dueTime: '09:00', dueTimeZone: 'America/New_York' })?.toISOString(),
    ).toBe('2026-10-31T13:00:00.000Z');
    expect(dueAt({ dueDate: ny, dueTime: '09:00', dueTimeZone: 'America/New_York' })?.toISOString()).toBe(
      '2026-11-01T14:00:00.000Z',
    );
    // Spring forward: 8 Mar 2026 in New York, 29 Mar 2026 in Berlin.
    expect(
      dueAt({ dueDate: '2026-03-08', dueTime: '09:00', dueTimeZone: 'America/New_York' })?.toISOString(),
    ).toBe('2026-03-08T13:00:00.000Z');
    expect(
      dueAt({ dueDate: '2026-03-29', dueTime: '09:00', dueTimeZone: 'Europe/Berlin' })?.toISOString(),
    ).toBe('2026-03-29T07:00:00.000Z');
  });

  it('firstDueDate is the first occurrence on or after today', () => {
    expect(firstDueDate('FREQ=WEEKLY;BYDAY=MO', '2026-11-25')).toBe('2026-11-30');
    expect(firstDueDate('FREQ=MONTHLY;BYMONTHDAY=15', '2026-11-25')).toBe('2026-12-15');
    expect(firstDueDate('FREQ=DAILY', '2026-11-25')).toBe('2026-11-25');
  });

  it("firstDueDate skips today's occurrence once its time of day has come", () => {
    const weekdays = 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR';
    // Thursday 26 November 2026.
    expect(firstDueDate(weekdays, '2026-11-26', { time: '09:00', now: '20:25' })).toBe('2026-11-27');
    expect(firstDueDate(weekdays, '2026-11-26', { time: '09:00', now: '09:00' })).toBe('2026-11-27');
    expect(firstDueDate(weekdays, '2026-11-26', { time: '09:00', now: '08:59' })).toBe('2026-11-26');
    expect(firstDueDate(weekdays, '2026-11-26', { time: null, now: '20:25' })).toBe('2026-11-26');
    // Friday evening: the next weekday is Monday.
    expect(firstDueDate(weekdays, '2026-11-27', { time: '09:00', now: '20:25' })).toBe('2026-11-30');
    // Today is no occurrence: the time does not matter.
    expect(firstDueDate('FREQ=WEEKLY;BYDAY=MO', '2026-11-26', { time: '09:00', now: '20:25' })).toBe(
      '2026-11-30',
    );
    // A rule whose last date is today, already past: none left.
    expect(firstDueDate('FREQ=DAILY;COUNT=1', '2026-11-26', { time: '09:00', now: '20:25' })).toBeNull();
  });
});

describe('words', () => {
  it('reads a rule in words', () => {
    expect(recurrenceText('FREQ=WEEKLY;BYDAY=MO')).toBe('Every Monday');
    expect(recurrenceText('FREQ=WEEKLY;INTERVAL=2')).toBe('Every 2 weeks');
    expect(recurrenceText('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR')).toBe('Every weekday');
    expect(recurrenceText('FREQ=MONTHLY;BYMONTHDAY=15')).toBe('Every month on the 15th');
  });

  it("names the next date as 'Mon 7 Dec'", () => {
    expect(completedNextText('2026-12-07')).toBe('completed (next: Mon 7 Dec)');
  });
});

describe('phrases', () => {
  const cases: [string, string, 'due' | 'completion', string | null][] = [
    ['every monday', 'FREQ=WEEKLY;BYDAY=MO', 'due', null],
    ['every weekday', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', 'due', null],
    ['every 2 weeks', 'FREQ=WEEKLY;INTERVAL=2', 'due', null],
    ['every month on the 15th', 'FREQ=MONTHLY;BYMONTHDAY=15', 'due', null],
    ['every year on 3 March', 'FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3', 'due', null],
    ['every day at 9am', 'FREQ=DAILY', 'due', '09:00'],
    ['every! 3 days', 'FREQ=DAILY;INTERVAL=3', 'completion', null],
    ['every 1st', 'FREQ=MONTHLY;BYMONTHDAY=1', 'due', null],
    ['every weekday at 9am', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', 'due', '09:00'],
    ['every mon, wed and fri at 14:30', 'FREQ=WEEKLY;BYDAY=MO,WE,FR', 'due', '14:30'],
    ['every month on the 31st', 'FREQ=MONTHLY;BYMONTHDAY=31', 'due', null],
    ['every last day', 'FREQ=MONTHLY;BYMONTHDAY=-1', 'due', null],
    ['every other week', 'FREQ=WEEKLY;INTERVAL=2', 'due', null],
    ['daily', 'FREQ=DAILY', 'due', null],
  ];
  for (const [text, rule, from, time] of cases) {
    it(`reads '${text}'`, () => {
      expect(parseRecurrencePhrase(text)).toMatchObject({ rule, from, time });
    });
  }

  it('finds a phrase inside a task line and says where', () => {
    const found = findRecurrencePhrase('Team standup every monday at 9am please');
    expect(found).toMatchObject({ rule: 'FREQ=WEEKLY;BYDAY=MO', time: '09:00', text: 'every monday at 9am' });
    expect(found?.index).toBe('Team standup '.length);
  });

  it('reads nothing from words that are not a rule', () => {
    expect(parseRecurrencePhrase('every other thing')).toBeNull();
    expect(parseRecurrencePhrase('every 3rd tuesday of the month in spring')).toBeNull();
    expect(findRecurrencePhrase('Read everything')).toBeNull();
  });
});

describe('isOverdue', () => {
  it('a timed task once its instant has passed; a date-only task from the next day in the viewer zone', () => {
    const task = { dueDate: '2026-11-26', dueTime: '14:30', dueTimeZone: 'Europe/Berlin' };
    expect(isOverdue(task, new Date('2026-11-26T13:29:00Z'), 'UTC')).toBe(false);
    expect(isOverdue(task, new Date('2026-11-26T13:31:00Z'), 'UTC')).toBe(true);
    const dateOnly = { dueDate: '2026-11-26', dueTime: null, dueTimeZone: null };
    expect(isOverdue(dateOnly, new Date('2026-11-26T23:30:00Z'), 'UTC')).toBe(false);
    expect(isOverdue(dateOnly, new Date('2026-11-26T23:30:00Z'), 'Europe/Berlin')).toBe(true);
  });
});
