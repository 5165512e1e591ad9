import type { ProjectColor } from './projects';

/**
 * Two-way CalDAV sync of tasks (issue 30, decision 052): the paths, limits and words that the
 * server, the Security dialog and the README share. The paths are the contract.
 */

/** RFC 6764 discovery: answers 301 to DAV_ROOT. */
export const CALDAV_WELL_KNOWN = '/.well-known/caldav';
export const DAV_ROOT = '/dav/';
export const davPrincipalPath = (username: string) => `/dav/principals/${encodeURIComponent(username)}/`;
export const davHomePath = (username: string) => `/dav/calendars/${encodeURIComponent(username)}/`;
export const davCollectionPath = (username: string, projectId: number) =>
  `${davHomePath(username)}${projectId}/`;

export const CALDAV_LIMITS = {
  /** A PUT body over this answers 413. */
  maxBodyBytes: 1024 * 1024,
  /** An archived task completed this recently is still a resource, so clients see the completion. */
  completedWindowDays: 30,
  /** Tombstones of deleted resources are kept this long; an older sync token answers 403. */
  tombstoneDays: 90,
} as const;

/** The HTTP Basic realm of every 401. */
export const CALDAV_REALM = 'Tasklane';
/** The Inbox's collection name in every client. */
export const CALDAV_INBOX_NAME = 'Your Tasks';
/** What activity appends to a change made over CalDAV: 'Ana changed the due date (via CalDAV)'. */
export const CALDAV_VIA_TEXT = '(via CalDAV)';

export const CALDAV_MESSAGES = {
  /** 401: Basic credentials missing or wrong (an account password is wrong here too). */
  signIn: 'Sign in with your username and an API token (Security → API tokens → For a CalDAV app).',
  mkcalendar: 'Projects are made in the app: this server cannot create calendars.',
  tooLarge: `A calendar object must be at most ${CALDAV_LIMITS.maxBodyBytes / 1024 / 1024} MB`,
  notCalendar: 'The body is not an iCalendar object (BEGIN:VCALENDAR … END:VCALENDAR)',
  oneTodo: 'The calendar object must hold exactly one VTODO',
  onlyTodos: 'This calendar holds tasks (VTODO) only',
  noUid: 'The VTODO has no UID',
  uidTaken: 'Another task in this calendar has the same UID',
  preconditionFailed: 'The resource changed since you read it (If-Match / If-None-Match)',
  invalidSyncToken: 'The sync token is unknown or too old: sync again from the start',
} as const;

/**
 * The colour each project colour is in clients (Apple's calendar-color, #RRGGBB): Tailwind's 500
 * shades, the dots the app shows.
 */
export const CALDAV_COLORS: Record<ProjectColor, string> = {
  red: '#EF4444',
  orange: '#F97316',
  yellow: '#EAB308',
  green: '#22C55E',
  teal: '#14B8A6',
  cyan: '#06B6D4',
  blue: '#3B82F6',
  indigo: '#6366F1',
  violet: '#8B5CF6',
  pink: '#EC4899',
  brown: '#A16207',
  grey: '#6B7280',
};

/** iCalendar PRIORITY (RFC 5545 3.8.1.9) to Tasklane's 1-4: 1-4 is P1, 5 P2, 6-9 P3, 0 or none P4. */
export function priorityFromIcal(value: number | null | undefined): 1 | 2 | 3 | 4 {
  if (value === null || value === undefined || !Number.isFinite(value) || value <= 0 || value > 9) return 4;
  if (value <= 4) return 1;
  if (value === 5) return 2;
  return 3;
}

/** Tasklane's priority to iCalendar's: P1 1, P2 5, P3 9, P4 none (0). */
export function priorityToIcal(priority: number): number {
  return priority === 1 ? 1 : priority === 2 ? 5 : priority === 3 ? 9 : 0;
}

/** The Security dialog's words for an app password (Security → API tokens → For a CalDAV app). */
export const CALDAV_COPY = {
  choice: 'For a CalDAV app',
  choiceHint:
    'An app password for a task app on your phone or desktop (DAVx5, Apple Reminders, Thunderbird).',
  server: 'Server address',
  username: 'Username',
  password: 'Password (the token)',
  defaultName: 'CalDAV app',
  created: (name: string) =>
    `Set up your app with these. The password is your new token '${name}': copy it now, it is not shown again.`,
  /** RFC 6764: most apps need only the origin. */
  discovery: (origin: string) =>
    `Most apps need only ${origin}: they find the rest through ${CALDAV_WELL_KNOWN}.`,
} as const;
