import * as chrono from 'chrono-node';
import { dateInZone, instantInZone } from '../../common/due';
import {
  findRecurrencePhrase,
  firstDueDate,
  type RecurrenceFrom,
  TIME_WORDS,
  timeFromGroups,
} from '../../common/recurrence';
import { localIsoDate } from './dates';

/** A reminder read from the text: an instant, or minutes before the due date-time (issue 22). */
export type QuickAddReminder = { at: string } | { relativeMinutes: number };

export type QuickAdd = {
  /** The title to save when the date is kept: the text without the date words. */
  title: string;
  /** The due date read from the text, YYYY-MM-DD in local time, or null. */
  dueDate: string | null;
  /** The words that gave the date, as typed (for the chip); null without a date. */
  dateText: string | null;
  /** 'HH:MM' read from the text ('at 14:30', '5pm', 'every day at 9am'); absent without one. */
  dueTime?: string;
  /** A repeating date ('every monday', 'every! 3 days'): the RRULE, where it counts from, the words. */
  recurrence?: { rule: string; from: RecurrenceFrom; text: string };
  /** 'remind me at 5pm', 'remind me 30 min before'; absent without one. */
  reminders?: QuickAddReminder[];
  /** The reminders' words, as typed (for the chip, and the title when its chip is taken off). */
  reminderText?: string;
  /**
   * The title to save when the date's chip is taken off: the date and repeat words stay in it, the
   * reminders' words do not (issue 28). Absent without reminders: the text as typed, then.
   */
  undated?: string;
};

/** 'remind me at 5pm' / 'remind me 30 min before' (also 'remind me 1 hour before'). */
const REMINDER_AT = new RegExp(`(?:^|\\s)remind me (?:at )?${TIME_WORDS}(?=\\s|$|[,.;])`, 'i');
const REMINDER_BEFORE =
  /(?:^|\s)remind me (\d{1,4}) ?(m|min|mins|minutes?|h|hrs?|hours?) (?:before|earlier)(?=\s|$|[,.;])/i;
/** A time of day alone: 'at 14:30', 'at 5pm', '5pm', '9:30 am' (not 'at 5': that may be anything). */
const TIME_ALONE = new RegExp(`(?:^|\\s)(?:at )?${TIME_WORDS}(?=\\s|$|[,.;])`, 'i');

const cut = (line: string, index: number, length: number) =>
  `${line.slice(0, index)} ${line.slice(index + length)}`.replace(/\s+/g, ' ').trim();
const pad = (n: number) => String(n).padStart(2, '0');
const hhmm = (date: Date) => `${pad(date.getHours())}:${pad(date.getMinutes())}`;

/** A word that links a title to its date ('Report due Friday') and leaves the title with it. */
const LINKING_WORD = /(?:^|\s)(?:due|on|by)$/i;
const TRAILING_PUNCTUATION = /[\s,;:–—-]+$/;

/**
 * Reads a due date out of a one-line task (issue 13): 'Pay rent tomorrow', 'Call Ana next fri',
 * 'Report due 2027-03-01'. Dates are read forward from `now`, as chrono does. A time alone ('at 5')
 * is not a due date. A text that is only a date keeps its words as the title. 'remind me at 5pm'
 * is 17:00 in `timeZone` (the person's; the browser's by default), on the due date or today there.
 */
export function parseQuickAdd(
  text: string,
  now: Date = new Date(),
  timeZone: string = Intl.DateTimeFormat().resolvedOptions().timeZone,
): QuickAdd {
  let line = text.trim().replace(/\s+/g, ' ');
  const extras: Omit<QuickAdd, 'title' | 'dueDate' | 'dateText'> = {};
  // Reminders first: their times are not the task's, and their words leave the title (issue 28).
  const reminders: QuickAddReminder[] = [];
  const reminderWords: string[] = [];
  let reminderAt: string | null = null;
  for (let found = REMINDER_BEFORE.exec(line); found; found = REMINDER_BEFORE.exec(line)) {
    const minutes = Number(found[1]) * (found[2]!.toLowerCase().startsWith('h') ? 60 : 1);
    if (minutes > 0) reminders.push({ relativeMinutes: minutes });
    reminderWords.push(found[0].trim());
    line = cut(line, found.index, found[0].length);
  }
  const at = REMINDER_AT.exec(line);
  if (at) {
    reminderAt = timeFromGroups([...at], 1);
    reminderWords.unshift(at[0].trim());
    line = cut(line, at.index, at[0].length);
  }
  const undated = line;
  // A repeating date: 'every monday at 9am' gives the rule, its first date and the time.
  const phrase = findRecurrencePhrase(line);
  let repeatDate: string | null = null;
  if (phrase) {
    line = cut(line, phrase.index, phrase.text.length);
    extras.recurrence = { rule: phrase.rule, from: phrase.from, text: phrase.text };
    if (phrase.time) extras.dueTime = phrase.time;
    const today = localIsoDate(now);
    // Today's occurrence whose time has already passed gives way to the next one.
    repeatDate = firstDueDate(phrase.rule, today, { time: phrase.time, now: hhmm(now) });
  }
  const result = readDate(line, now, extras);
  if (phrase && !result.dueDate && repeatDate) {
    result.dueDate = repeatDate;
    result.dateText = phrase.text;
  }
  if (reminderAt) {
    const day = result.dueDate ?? dateInZone(now, timeZone);
    const instant = instantInZone(day, reminderAt, timeZone);
    if (instant) reminders.unshift({ at: instant.toISOString() });
  }
  if (reminders.length > 0) result.reminders = reminders;
  if (reminderWords.length > 0) {
    result.reminderText = reminderWords.join(' ');
    result.undated = undated;
  }
  return result;
}

/** The date (and a time of day) in what is left of the line. */
function readDate(
  line: string,
  now: Date,
  extras: Omit<QuickAdd, 'title' | 'dueDate' | 'dateText'>,
): QuickAdd {
  const found = chrono
    .parse(line, now, { forwardDate: true })
    .filter(({ start }) => start.isCertain('day') || start.isCertain('weekday') || start.isCertain('month'));
  // The last date named is the one a person adds at the end: 'Plan March 3 party by Friday'.
  const result = found.at(-1);
  if (!result) {
    // A time of day without a date ('Call Ana at 5pm') is today at that time.
    const time = TIME_ALONE.exec(line);
    const dueTime = time ? timeFromGroups([...time], 1) : null;
    if (time && dueTime) {
      const rest = cut(line, time.index, time[0].length);
      return {
        title: rest || line,
        dueDate: extras.recurrence ? null : localIsoDate(now),
        dateText: extras.recurrence ? null : time[0].trim(),
        ...extras,
        dueTime,
      };
    }
    return { title: line, dueDate: null, dateText: null, ...extras };
  }
  if (result.start.isCertain('hour')) {
    extras.dueTime = `${pad(result.start.get('hour') ?? 0)}:${pad(result.start.get('minute') ?? 0)}`;
  }

  let before = line.slice(0, result.index).trimEnd();
  let dateText = result.text;
  const linking = before.match(LINKING_WORD);
  if (linking) {
    const word = linking[0].trim();
    before = before.slice(0, before.length - linking[0].length);
    dateText = `${word} ${dateText}`;
  }
  before = before.replace(TRAILING_PUNCTUATION, '');
  const after = line.slice(result.index + result.text.length).trim();
  const title = [before, after].filter(Boolean).join(' ');
  return { title: title || line, dueDate: localIsoDate(result.start.date()), dateText, ...extras };
}
