import crypto from 'node:crypto';
import { TZDate } from '@date-fns/tz';
import ical, { ICalAlarm, ICalAlarmType } from 'ical-generator';
import { CALENDAR_PATH, CALENDAR_SUFFIX, type CalendarFeedStatus } from '../../common/calendar';
import { DEFAULT_TIME_ZONE, dueAt, isTimeZone } from '../../common/due';
import type { Access } from '../access';
import { hashToken } from '../auth/tokens';
import { nowIso, toIso } from '../db/values';
import { notFound } from '../http/errors';
import type { createCalendarRepository } from './repository';
import { vtimezone } from './time-zones';

/** 192 random bits, base64url (32 characters): the brief asks for at least 128. */
const SECRET_BYTES = 24;
const SECRET_PATTERN = /^[A-Za-z0-9_-]{16,100}$/;

export interface CalendarServiceDeps {
  feeds: ReturnType<typeof createCalendarRepository>;
  access: Access;
  appUrl: string;
}

/**
 * Issue 29: ical-generator writes no RELATED-TO, only X- properties; this one, as long as
 * 'RELATED-TO;RELTYPE=PARENT' so the line's folding stays right, is renamed in the finished document.
 */
const PARENT_PLACEHOLDER = 'X-TASKLANE-RELATED-PARENT';
const PARENT_PROPERTY = 'RELATED-TO;RELTYPE=PARENT';

/** The day after a YYYY-MM-DD date: an all-day event ends (exclusively) there (RFC 5545 §3.6.1). */
const nextDay = (date: string): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
};

/**
 * The calendar feed (issue 13, docs/decisions/018): one secret address per person, readable without
 * signing in by calendar apps. Only the secret's SHA-256 is stored, so the address is shown once.
 */
export function createCalendarService({ feeds, access, appUrl }: CalendarServiceDeps) {
  const host = new URL(appUrl).host;
  const feedNotFound = () => notFound('Calendar feed');

  return {
    async status(userId: number): Promise<CalendarFeedStatus> {
      const feed = await feeds.find(userId);
      return { enabled: feed !== undefined, createdAt: feed ? toIso(feed.created_at) : null };
    },

    /** A new address; the old one, if any, stops working at once. */
    async create(userId: number): Promise<{ url: string }> {
      // The feed shows every project, to anyone with its address: not for a token limited to some.
      access.requireAllProjects(userId);
      const secret = crypto.randomBytes(SECRET_BYTES).toString('base64url');
      await feeds.replace(userId, hashToken(secret), nowIso());
      return { url: `${appUrl}${CALENDAR_PATH}/${secret}${CALENDAR_SUFFIX}` };
    },

    async turnOff(userId: number): Promise<void> {
      await feeds.remove(userId);
    },

    /**
     * The iCalendar document of `<secret>.ics`: an all-day event per active task with a due date
     * that the person can see (the projects they are a member of now, asked of the access module at
     * every fetch) and that is in their Inbox or assigned to them. A wrong, revoked or malformed
     * secret is a 404, alike.
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
        // One VTIMEZONE per zone the events name (ical-generator asks once per zone). No calendar
        // zone of its own (name null): the feed keeps no X-WR-TIMEZONE, as before.
        timezone: { name: null, generator: vtimezone },
      });
      // Only its zone (none: UTC) is asked of it; it is written nowhere.
      const utcEvent = ical().createEvent({ start: new Date(0) });
      /** The same task is the same event at every fetch, so calendar apps update it in place. */
      const uid = (taskId: number) => `task-${taskId}@${host}`;
      const defined = new Map<string, boolean>();
      const zoneDefined = (zone: string): boolean => {
        if (!defined.has(zone)) defined.set(zone, vtimezone(zone) !== null);
        return defined.get(zone)!;
      };
      const [inbox, memberships] = await Promise.all([
        access.listScope(userId, undefined),
        access.memberships(userId),
      ]);
      const tasks = inbox
        ? await feeds.dueTasks({
            projectIds: [...memberships.keys()],
            inboxId: inbox.projectId,
            assigneeId: userId,
          })
        : [];
      const alarms = new Map<number, Array<{ at: Date | string | null; relative_minutes: number | null }>>();
      for (const reminder of await feeds.remindersOf(tasks.map((task) => task.id))) {
        alarms.set(reminder.task_id, [...(alarms.get(reminder.task_id) ?? []), reminder]);
      }
      for (const task of tasks) {
        const due = task.due_date!;
        // Issue 22: a task with a due time is a timed event in the zone stored with the time (a
        // TZDate, which ical-generator writes as DTSTART;TZID=<zone>:<local time>); a date-only
        // task stays an all-day event, as before. A recurring task is one event with its RRULE,
        // starting at its current due date (decision 032).
        // A zone with no VTIMEZONE to define it is written in UTC (the same instant, no TZID).
        const zone =
          task.due_time_zone && isTimeZone(task.due_time_zone) ? task.due_time_zone : DEFAULT_TIME_ZONE;
        const at = dueAt({ dueDate: due, dueTime: task.due_time, dueTimeZone: zone });
        const when = !at
          ? { allDay: true, start: due, end: nextDay(due) }
          : zoneDefined(zone)
            ? { start: new TZDate(at.getTime(), zone), timezone: zone }
            : { start: at, timezone: 'UTC' };
        const event = calendar.createEvent({
          id: uid(task.id),
          ...when,
          ...(task.recurrence ? { repeating: `RRULE:${task.recurrence}` } : {}),
          // The last change, so a client that compares DTSTAMP sees edits.
          stamp: toIso(task.updated_at),
          summary: task.title,
          description: task.description,
          url: `${appUrl}/?task=${task.id}`,
          // A sub-task names its parent's event (RFC 5545 §3.8.4.5), whether or not the parent is in the feed.
          ...(task.parent_id === null
            ? {}
            : { x: [[PARENT_PLACEHOLDER, uid(task.parent_id)]] as [string, string][] }),
        });
        // Reminders as VALARMs (issue 22): a relative one before each occurrence's start (timed
        // events only: it needs a due time), a fixed one at its moment.
        for (const reminder of alarms.get(task.id) ?? []) {
          if (reminder.at !== null) {
            // A fixed trigger is a UTC moment (RFC 5545 3.8.6.3), but ical-generator writes it in
            // its event's zone and without the Z: the alarm is built against an event in UTC.
            event.createAlarm(
              new ICalAlarm(
                {
                  type: ICalAlarmType.display,
                  trigger: new Date(toIso(reminder.at)),
                  description: task.title,
                },
                utcEvent,
              ),
            );
          } else if (at && reminder.relative_minutes !== null) {
            event.createAlarm({
              type: ICalAlarmType.display,
              triggerBefore: reminder.relative_minutes * 60,
              description: task.title,
            });
          }
        }
      }
      // ical-generator ends the last line without the CRLF RFC 5545 §3.1 puts after every line.
      return calendar
        .toString()
        .replaceAll(`\r\n${PARENT_PLACEHOLDER}:`, `\r\n${PARENT_PROPERTY}:`)
        .replace(/(\r\n)?$/, '\r\n');
    },
  };
}

export type CalendarService = ReturnType<typeof createCalendarService>;
