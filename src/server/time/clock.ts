/**
 * What time it is, asked of one place: reminders, digests, recurrence and due-ness read this, so
 * tests move time instead of waiting for it (issue 22).
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * The machine's time zone (its TZ, else its system setting; UTC when Intl cannot tell): the days
 * of a person who has not set a zone are read in it (issue 28), as the due filters always were.
 */
export const SERVER_TIME_ZONE: string = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
