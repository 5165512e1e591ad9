import * as rruleModule from 'rrule';

/**
 * Recurring tasks (issue 22, decision 032): an RFC 5545 RRULE (without the 'RRULE:' prefix, no
 * DTSTART: the task's due date is the start), read, checked and expanded with the `rrule` package.
 *
 * Occurrences are calendar dates. The rule is expanded in floating time (every date as UTC
 * midnight, no zone), and the task's due time is laid on the date afterwards in the zone stored
 * with it: a 09:00 task stays 09:00 local across a daylight-saving change, and a date never shifts
 * by a zone's offset. The calendar feed writes the same rule with DTSTART;TZID, which a calendar
 * expands the same way.
 */

// rrule ships CommonJS for Node and ESM for bundlers: the server (Node) sees its exports on
// `default`, Vite and Vitest see them as named exports.
type RRuleModule = typeof import('rrule');
const rrule: RRuleModule =
  (rruleModule as unknown as { RRule?: unknown }).RRule !== undefined
    ? (rruleModule as RRuleModule)
    : (rruleModule as unknown as { default: RRuleModule }).default;
const { RRule, Frequency } = rrule;

export const RECURRENCE_FROM = ['due', 'completion'] as const;
export type RecurrenceFrom = (typeof RECURRENCE_FROM)[number];

export const RECURRENCE_LIMITS = { ruleMax: 500 } as const;

export const RECURRENCE_MESSAGES = {
  invalid: 'recurrence must be an RRULE such as FREQ=WEEKLY;BYDAY=MO',
  tooLong: `recurrence must be at most ${RECURRENCE_LIMITS.ruleMax} characters`,
  frequency: 'recurrence must repeat daily, weekly, monthly or yearly',
  count: 'recurrence: COUNT is not supported; end the series with UNTIL or Complete forever',
  never: 'recurrence never falls on a date',
  needsDueDate: 'recurrence needs a dueDate',
} as const;

/** The parts of a rule the app accepts (DTSTART comes from the task; COUNT cannot follow a moving start). */
const ALLOWED_PARTS = new Set([
  'FREQ',
  'INTERVAL',
  'BYDAY',
  'BYMONTHDAY',
  'BYMONTH',
  'BYSETPOS',
  'BYYEARDAY',
  'BYWEEKNO',
  'WKST',
  'UNTIL',
]);
const DAY_FREQUENCIES = new Set<number>([
  Frequency.YEARLY,
  Frequency.MONTHLY,
  Frequency.WEEKLY,
  Frequency.DAILY,
]);

type Parsed = { ok: true; rule: string } | { ok: false; message: string };

/** Checks a rule and writes it one way ('RRULE:' prefix dropped, parts in rrule's order). */
export function normalizeRecurrence(input: string): Parsed {
  const text = input.trim().replace(/^RRULE:/i, '');
  if (text.length > RECURRENCE_LIMITS.ruleMax) return { ok: false, message: RECURRENCE_MESSAGES.tooLong };
  const parts = text.split(';').filter(Boolean);
  if (parts.length === 0) return { ok: false, message: RECURRENCE_MESSAGES.invalid };
  for (const part of parts) {
    const match = /^([A-Za-z]+)=([A-Za-z0-9,+\-:]+)$/.exec(part);
    if (!match) return { ok: false, message: RECURRENCE_MESSAGES.invalid };
    const key = match[1]!.toUpperCase();
    if (key === 'COUNT') return { ok: false, message: RECURRENCE_MESSAGES.count };
    if (!ALLOWED_PARTS.has(key)) return { ok: false, message: RECURRENCE_MESSAGES.invalid };
  }
  let options: ReturnType<typeof RRule.parseString>;
  try {
    options = RRule.parseString(text.toUpperCase());
  } catch {
    return { ok: false, message: RECURRENCE_MESSAGES.invalid };
  }
  if (options.freq === undefined || options.freq === null) {
    return { ok: false, message: RECURRENCE_MESSAGES.invalid };
  }
  if (!DAY_FREQUENCIES.has(options.freq)) return { ok: false, message: RECURRENCE_MESSAGES.frequency };
  const values = Object.values(options).flatMap((value): unknown[] =>
    Array.isArray(value) ? value : [value],
  );
  if (values.some((value) => value === undefined || (typeof value === 'number' && !Number.isFinite(value)))) {
    return { ok: false, message: RECURRENCE_MESSAGES.invalid };
  }
  if (options.until instanceof Date && Number.isNaN(options.until.getTime())) {
    return { ok: false, message: RECURRENCE_MESSAGES.invalid };
  }
  if (options.interval !== undefined && (options.interval < 1 || options.interval > 1000)) {
    return { ok: false, message: RECURRENCE_MESSAGES.invalid };
  }
  let rule: string;
  try {
    rule = RRule.optionsToString(options).replace(/^RRULE:/, '');
    // A rule that can never fall on a date (BYMONTH=2;BYMONTHDAY=30) is refused, not stored.
    const probe = new RRule({ ...RRule.parseString(rule), until: null, dtstart: utcDate('2000-01-01') });
    if (!probe.after(utcDate('2000-01-01'), true) || !probe.after(utcDate('2030-01-01'), true)) {
      return { ok: false, message: RECURRENCE_MESSAGES.never };
    }
  } catch {
    return { ok: false, message: RECURRENCE_MESSAGES.invalid };
  }
  return { ok: true, rule };
}

/** YYYY-MM-DD as UTC midnight: the floating dates rrule expands. */
function utcDate(date: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d));
}
const isoDate = (date: Date) => date.toISOString().slice(0, 10);

function ruleFrom(rule: string, start: string) {
  return new RRule({ ...RRule.parseString(rule), dtstart: utcDate(start) });
}

/**
 * The next due date of a series, or null when it has ended (UNTIL passed).
 * - 'due': the rule counts from the old due date; dates already past are skipped, so the next
 *   date is the first occurrence after both the old due date and today (the completion day).
 * - 'completion': the rule counts from the completion day: the first occurrence after it.
 * `today` is the completion day (YYYY-MM-DD) in the task's zone.
 */
export function nextDueDate(
  rule: string,
  dueDate: string,
  from: RecurrenceFrom,
  today: string,
): string | null {
  const start = from === 'completion' ? today : dueDate;
  const after = from === 'completion' || today > dueDate ? today : dueDate;
  const next = ruleFrom(rule, start).after(utcDate(after), false);
  return next ? isoDate(next) : null;
}

/**
 * The first date of a new series on or after `today` (quick add's 'every monday' with no date, the
 * Todoist import's repeating dates). With a time of day, today's occurrence counts only while its
 * `time` ('HH:MM') is still to come by the clock's `now` ('HH:MM', both read in the task's zone):
 * 'every weekday at 9am' written at 20:25 starts tomorrow, not overdue.
 */
export function firstDueDate(
  rule: string,
  today: string,
  clock?: { time: string | null; now: string },
): string | null {
  const first = ruleFrom(rule, today).after(utcDate(today), true);
  if (!first) return null;
  const date = isoDate(first);
  if (date === today && clock?.time && clock.time <= clock.now) {
    const next = ruleFrom(rule, today).after(utcDate(today), false);
    return next ? isoDate(next) : null;
  }
  return date;
}

/** The rule in words, as the chip and the card show it: 'Every Monday', 'Every 2 weeks'. */
export function recurrenceText(rule: string): string {
  try {
    const text = RRule.fromString(rule)
      .toText()
      .replace(/^every week on /, 'every ');
    return text.charAt(0).toUpperCase() + text.slice(1);
  } catch {
    return rule;
  }
}

const WEEKDAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** 'Mon 7 Dec': how a completed occurrence's activity names the next date. */
export function shortDate(date: string): string {
  const day = utcDate(date);
  return `${WEEKDAY_NAMES[day.getUTCDay()]} ${day.getUTCDate()} ${MONTH_NAMES[day.getUTCMonth()]}`;
}

/** The activity entry's words for a completed occurrence: 'completed (next: Mon 7 Dec)'. */
export const completedNextText = (next: string) => `completed (next: ${shortDate(next)})`;

// ---------------------------------------------------------------------------------------------
// Phrases: 'every monday', 'every! 3 days', 'every month on the 15th', 'every weekday at 9am'.
// Shared by quick add and the Todoist import (decision 032: a closed grammar, so written here;
// rrule's own fromText reads neither 'every 1st' nor 'every!' nor '3 March').

export interface RecurrencePhrase {
  /** The RRULE, normalised. */
  rule: string;
  from: RecurrenceFrom;
  /** 'HH:MM' when the phrase names a time ('every day at 9am'), else null. */
  time: string | null;
  /** Where the phrase sits in the text, and its words as typed. */
  index: number;
  text: string;
}

const DAYS: Record<string, string> = {
  mon: 'MO',
  monday: 'MO',
  mondays: 'MO',
  tue: 'TU',
  tues: 'TU',
  tuesday: 'TU',
  tuesdays: 'TU',
  wed: 'WE',
  wednesday: 'WE',
  wednesdays: 'WE',
  thu: 'TH',
  thur: 'TH',
  thurs: 'TH',
  thursday: 'TH',
  thursdays: 'TH',
  fri: 'FR',
  friday: 'FR',
  fridays: 'FR',
  sat: 'SA',
  saturday: 'SA',
  saturdays: 'SA',
  sun: 'SU',
  sunday: 'SU',
  sundays: 'SU',
};
const MONTHS: Record<string, number> = {
  jan: 1,
  january: 1,
  feb: 2,
  february: 2,
  mar: 3,
  march: 3,
  apr: 4,
  april: 4,
  may: 5,
  jun: 6,
  june: 6,
  jul: 7,
  july: 7,
  aug: 8,
  august: 8,
  sep: 9,
  sept: 9,
  september: 9,
  oct: 10,
  october: 10,
  nov: 11,
  november: 11,
  dec: 12,
  december: 12,
};
const UNITS: Record<string, string> = {
  day: 'DAILY',
  days: 'DAILY',
  week: 'WEEKLY',
  weeks: 'WEEKLY',
  month: 'MONTHLY',
  months: 'MONTHLY',
  year: 'YEARLY',
  years: 'YEARLY',
};

const DAY_WORD = `(?:${Object.keys(DAYS)
  .sort((a, b) => b.length - a.length)
  .join('|')})`;
const MONTH_WORD = `(?:${Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join('|')})`;
const ORDINAL = '(\\d{1,2})(?:st|nd|rd|th)?';
/** A time of day: '9am', '9:30 pm', '14:30', 'noon'. */
export const TIME_WORDS = '(?:(\\d{1,2})(?::(\\d{2}))?\\s*(am|pm)|(\\d{1,2}):(\\d{2})|(noon|midnight))';

/** 'HH:MM' of a time matched by TIME_WORDS (its groups from `offset`), or null when out of range. */
export function timeFromGroups(groups: (string | undefined)[], offset = 0): string | null {
  const [h12, m12, ampm, h24, m24, word] = groups.slice(offset, offset + 6);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (word) return word.toLowerCase() === 'noon' ? '12:00' : '00:00';
  if (h12 !== undefined && ampm) {
    const h = Number(h12);
    const m = Number(m12 ?? 0);
    if (h < 1 || h > 12 || m > 59) return null;
    const hours = (h % 12) + (ampm.toLowerCase() === 'pm' ? 12 : 0);
    return `${pad(hours)}:${pad(m)}`;
  }
  if (h24 !== undefined) {
    const h = Number(h24);
    const m = Number(m24);
    if (h > 23 || m > 59) return null;
    return `${pad(h)}:${pad(m)}`;
  }
  return null;
}

/** The body of a phrase after 'every' (or 'every!'): the RRULE parts, or null. */
function bodyRule(body: string): string | null {
  const words = body.toLowerCase().trim().replace(/\s+/g, ' ');
  let m: RegExpExecArray | null;
  if (/^(?:day|daily)$/.test(words)) return 'FREQ=DAILY';
  if (/^(?:weekday|workday|week ?day|work ?day)s?$/.test(words)) return 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR';
  if (/^weekends?$/.test(words)) return 'FREQ=WEEKLY;BYDAY=SA,SU';
  if (/^other (day|week|month|year)$/.test(words)) {
    return `FREQ=${UNITS[words.split(' ')[1]!]};INTERVAL=2`;
  }
  m = /^(\d{1,3}) (days?|weeks?|months?|years?)$/.exec(words);
  if (m) {
    const n = Number(m[1]);
    if (n < 1) return null;
    return n === 1 ? `FREQ=${UNITS[m[2]!]}` : `FREQ=${UNITS[m[2]!]};INTERVAL=${n}`;
  }
  m = /^(week|month|year)$/.exec(words);
  if (m) return `FREQ=${UNITS[m[1]!]}`;
  // every monday / every mon, wed and fri / every week on monday
  m = new RegExp(
    `^(?:(\\d{1,2}|other) weeks? on |week on )?(${DAY_WORD}(?:(?:, ?| and |,? and | & )${DAY_WORD})*)$`,
  ).exec(words);
  if (m) {
    const days = [...new Set(m[2]!.split(/, ?| and | & /).map((d) => DAYS[d.replace(/^and /, '').trim()]))];
    if (days.some((d) => !d)) return null;
    const every = words.match(/^(\d{1,2}|other) weeks? on /)?.[1];
    const interval = every === 'other' ? 2 : every ? Number(every) : 1;
    return `FREQ=WEEKLY;${interval > 1 ? `INTERVAL=${interval};` : ''}BYDAY=${days.join(',')}`;
  }
  // every month on the 15th / every 15th / every month on the last day / every last day
  m = new RegExp(
    `^(?:(\\d{1,2}) months? on |month on )?(?:the )?${ORDINAL}(?: day)?(?: of the month)?$`,
  ).exec(words);
  if (m) {
    const n = Number(m[2]);
    if (n < 1 || n > 31) return null;
    const interval = m[1] ? Number(m[1]) : 1;
    return `FREQ=MONTHLY;${interval > 1 ? `INTERVAL=${interval};` : ''}BYMONTHDAY=${n}`;
  }
  if (/^(?:month on )?(?:the )?last(?: day)?(?: of the month)?$/.test(words))
    return 'FREQ=MONTHLY;BYMONTHDAY=-1';
  // every year on 3 March / every 3 march / every march 3rd / every year on march 3
  m = new RegExp(`^(?:year on |year )?(?:the )?${ORDINAL}(?: of)? (${MONTH_WORD})$`).exec(words);
  if (m) return yearly(Number(m[1]), MONTHS[m[2]!]!);
  m = new RegExp(`^(?:year on |year )?(${MONTH_WORD}) (?:the )?${ORDINAL}$`).exec(words);
  if (m) return yearly(Number(m[2]), MONTHS[m[1]!]!);
  return null;
}

function yearly(day: number, month: number): string | null {
  if (day < 1 || day > 31) return null;
  return `FREQ=YEARLY;BYMONTH=${month};BYMONTHDAY=${day}`;
}

const PHRASE_START = /(?:^|\s)(every!?|daily|weekly|monthly|yearly)(?=\s|$)/gi;

/**
 * Finds a recurrence phrase in a line of text: 'every' (or 'every!', counting from completion)
 * followed by the longest run of words that reads as a rule, optionally 'at <time>'; with
 * `adverbs`, also 'daily', 'weekly', 'monthly', 'yearly'. Null when there is none that reads.
 */
export function findRecurrencePhrase(line: string, { adverbs = false } = {}): RecurrencePhrase | null {
  PHRASE_START.lastIndex = 0;
  for (let start = PHRASE_START.exec(line); start; start = PHRASE_START.exec(line)) {
    const keyword = start[1]!.toLowerCase();
    // 'daily' alone is a rule only where the whole text is a date (Todoist's DATE): in a title
    // ('Write the weekly report') it is a word.
    if (!adverbs && !keyword.startsWith('every')) continue;
    const index = start.index + start[0].length - start[1]!.length;
    const from: RecurrenceFrom = keyword === 'every!' ? 'completion' : 'due';
    const rest = line.slice(index + keyword.length);
    const found = keyword.startsWith('every') ? longestBody(rest) : adverb(keyword, rest);
    if (!found) continue;
    const normal = normalizeRecurrence(found.rule);
    if (!normal.ok) continue;
    return {
      rule: normal.rule,
      from,
      time: found.time,
      index,
      text: line.slice(index, index + keyword.length + found.length).trim(),
    };
  }
  return null;
}

function adverb(keyword: string, rest: string) {
  const rule = { daily: 'FREQ=DAILY', weekly: 'FREQ=WEEKLY', monthly: 'FREQ=MONTHLY', yearly: 'FREQ=YEARLY' }[
    keyword
  ];
  if (!rule) return null;
  const time = trailingTime(rest);
  return { rule, time: time?.time ?? null, length: time?.length ?? 0 };
}

/** ' at 9am' (or ' 9am') right at the start of `text`. */
function trailingTime(text: string): { time: string; length: number } | null {
  const m = new RegExp(`^\\s+(?:at\\s+)?${TIME_WORDS}(?=\\s|$|[,.;])`, 'i').exec(text);
  if (!m) return null;
  const time = timeFromGroups([...m], 1);
  return time ? { time, length: m[0].length } : null;
}

/** The longest run of words after 'every' that reads as a rule, then an optional time. */
function longestBody(rest: string): { rule: string; time: string | null; length: number } | null {
  const tokens = [...rest.matchAll(/\S+/g)];
  for (let count = Math.min(tokens.length, 8); count > 0; count--) {
    const last = tokens[count - 1]!;
    const end = last.index + last[0].length;
    const body = rest.slice(0, end).replace(/[,.;]+$/, '');
    const rule = bodyRule(body);
    if (!rule) continue;
    const time = trailingTime(rest.slice(end));
    return { rule, time: time?.time ?? null, length: end + (time?.length ?? 0) };
  }
  return null;
}

/** A whole text that is one recurrence phrase (a Todoist date string), or null. */
export function parseRecurrencePhrase(text: string): RecurrencePhrase | null {
  const line = text.trim().replace(/\s+/g, ' ');
  const found = findRecurrencePhrase(line, { adverbs: true });
  if (found?.index !== 0 || found.text.length !== line.replace(/[.]$/, '').length) return null;
  return found;
}
