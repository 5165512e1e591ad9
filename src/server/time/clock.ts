/**
 * What time it is, asked of one place: reminders, digests, recurrence and due-ness read this, so
 * tests move time instead of waiting for it (issue 22).
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
