import crypto from 'node:crypto';
import ical from 'ical-generator';
import { CALENDAR_PATH, CALENDAR_SUFFIX, type CalendarFeedStatus } from '../../common/calendar';
import { hashToken } from '../auth/tokens';
import { nowIso, toIso } from '../db/values';
import { notFound } from '../http/errors';
import type { createCalendarRepository } from './repository';

/** 192 random bits, base64url (32 characters): the brief asks for at least 128. */
const SECRET_BYTES = 24;
const SECRET_PATTERN = /^[A-Za-z0-9_-]{16,100}$/;

export interface CalendarServiceDeps {
  feeds: ReturnType<typeof createCalendarRepository>;
  appUrl: string;
}

/** The day after a YYYY-MM-DD date: an all-day event ends (exclusively) there (RFC 5545 §3.6.1). */
const nextDay = (date: string): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
};

/**
 * The calendar feed (issue 13, docs/decisions/018): one secret address per person, readable without
 * signing in by calendar apps. Only the secret's SHA-256 is stored, so the address is shown once.
 */
export function createCalendarService({ feeds, appUrl }: CalendarServiceDeps) {
  const host = new URL(appUrl).host;
  const feedNotFound = () => notFound('Calendar feed');

  return {
    async status(userId: number): Promise<CalendarFeedStatus> {
      const feed = await feeds.find(userId);
      return { enabled: feed !== undefined, createdAt: feed ? toIso(feed.created_at) : null };
    },

    /** A new address; the old one, if any, stops working at once. */
    async create(userId: number): Promise<{ url: string }> {
      const secret = crypto.randomBytes(SECRET_BYTES).toString('base64url');
      await feeds.replace(userId, hashToken(secret), nowIso());
      return { url: `${appUrl}${CALENDAR_PATH}/${secret}${CALENDAR_SUFFIX}` };
    },

    async turnOff(userId: number): Promise<void> {
      await feeds.remove(userId);
    },

    /**
     * The iCalendar document of `<secret>.ics`: an all-day event per active task with a due date.
     * A wrong, revoked or malformed secret is a 404, alike.
     */
    async ics(file: string): Promise<string> {
      if (!file.endsWith(CALENDAR_SUFFIX)) throw feedNotFound();
      const secret = file.slice(0, -CALENDAR_SUFFIX.length);
      if (!SECRET_PATTERN.test(secret)) throw feedNotFound();
      const userId = await feeds.ownerOf(hashToken(secret));
      if (userId === undefined) throw feedNotFound();
      const calendar = ical({
        name: 'Tasklane',
        prodId: { company: 'Tasklane', product: 'Tasklane', language: 'EN' },
      });
      for (const task of await feeds.dueTasks(userId)) {
        const due = task.due_date!;
        calendar.createEvent({
          // The same task is the same event at every fetch, so calendar apps update it in place.
          id: `task-${task.id}@${host}`,
          allDay: true,
          start: due,
          end: nextDay(due),
          // The last change, so a client that compares DTSTAMP sees edits.
          stamp: toIso(task.updated_at),
          summary: task.title,
          description: task.description,
          url: `${appUrl}/?task=${task.id}`,
        });
      }
      return calendar.toString();
    },
  };
}

export type CalendarService = ReturnType<typeof createCalendarService>;
