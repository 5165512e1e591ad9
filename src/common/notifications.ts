import { z } from 'zod';
import { idParam } from './ids';
import { TASKS_PATH } from './tasks';

/**
 * Reminders, notifications and their channels (issue 22): the API contract, shared by the client,
 * the server and the OpenAPI document.
 */

export const REMINDERS_PATH = '/api/reminders';
export const taskRemindersPath = (taskId: number) => `${TASKS_PATH}/${taskId}/reminders`;
export const NOTIFICATIONS_PATH = '/api/notifications';
export const NOTIFICATIONS_READ_PATH = '/api/notifications/read';
export const NOTIFICATION_SETTINGS_PATH = '/api/notification-settings';

export const REMINDER_LIMITS = {
  perTask: 10,
  /** A relative reminder comes at most four weeks before the due date-time. */
  relativeMinutesMax: 4 * 7 * 24 * 60,
} as const;

export const NOTIFICATION_LIMITS = { listDefault: 50, listMax: 200, readIdsMax: 500 } as const;

/** The words of every refusal about reminders and notifications, in one place. */
export const REMINDER_MESSAGES = {
  oneOf: 'Give either at (an ISO date-time) or relativeMinutes',
  atInvalid: 'at must be an ISO date-time with a time zone, e.g. 2026-03-02T09:00:00Z',
  relativeInvalid: `relativeMinutes must be a whole number from 0 to ${REMINDER_LIMITS.relativeMinutesMax}`,
  needsDueTime: 'relativeMinutes needs the task to have a dueTime',
  tooMany: `reminders: a task has at most ${REMINDER_LIMITS.perTask}`,
} as const;

export const NOTIFICATION_MESSAGES = {
  readOneOf: 'Give either ids (a list of notification ids) or all: true',
  idsInvalid: 'ids must be a list of notification ids',
  settingInvalid: (field: string) => `${field} must be true or false`,
  settingUnknown: (field: string) => `${field} is not a setting`,
} as const;

/** GET /api/tasks/{id}/reminders: `at` for a fixed moment, `relativeMinutes` before each due date-time. */
export const reminderSchema = z.object({
  id: z.number(),
  /** ISO date-time (UTC) of a fixed reminder; null for a relative one. */
  at: z.string().nullable(),
  /** Minutes before the task's due date-time (each occurrence's, for a recurring task); null for a fixed one. */
  relativeMinutes: z.number().nullable(),
  /** When it last fired; null before it has. */
  firedAt: z.string().nullable(),
});
export type Reminder = z.infer<typeof reminderSchema>;

/** An ISO 8601 date-time ending in Z or an offset: 2026-03-02T09:00Z, 2026-03-02T10:00:00.5+01:00. */
const ZONED_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

const isoDateTime = z
  .string({ error: REMINDER_MESSAGES.atInvalid })
  .max(40, REMINDER_MESSAGES.atInvalid)
  // The zone is required: without one, Date would read the moment in the server's zone.
  .refine((value) => ZONED_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)), {
    message: REMINDER_MESSAGES.atInvalid,
  })
  .transform((value) => new Date(value).toISOString());

/** POST /api/tasks/{id}/reminders: `{at}` or `{relativeMinutes}`, never both. */
export const createReminderBodySchema = z
  .strictObject({
    at: isoDateTime.optional(),
    relativeMinutes: z
      .number({ error: REMINDER_MESSAGES.relativeInvalid })
      .int(REMINDER_MESSAGES.relativeInvalid)
      .min(0, REMINDER_MESSAGES.relativeInvalid)
      .max(REMINDER_LIMITS.relativeMinutesMax, REMINDER_MESSAGES.relativeInvalid)
      .optional(),
  })
  .refine((body) => (body.at === undefined) !== (body.relativeMinutes === undefined), {
    message: REMINDER_MESSAGES.oneOf,
  })
  .meta({ examples: [{ at: '2026-03-02T16:00:00Z' }, { relativeMinutes: 30 }] });
export type CreateReminderBody = z.infer<typeof createReminderBodySchema>;

export const reminderIdParamsSchema = z.object({ id: idParam() });

/** Exactly these kinds; `due_today` is the daily digest's. */
export const NOTIFICATION_KINDS = [
  'reminder',
  'assigned',
  'mentioned',
  'commented',
  'shared',
  'due_today',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** GET /api/notifications: one record per person and event, newest first. */
export const notificationSchema = z.object({
  id: z.number(),
  kind: z.enum(NOTIFICATION_KINDS),
  taskId: z.number().nullable(),
  projectId: z.number().nullable(),
  /** Whose action it was (first name); null for reminders and the digest. */
  actorName: z.string().nullable(),
  title: z.string(),
  body: z.string(),
  createdAt: z.string(),
  readAt: z.string().nullable(),
});
export type Notification = z.infer<typeof notificationSchema>;

export const notificationListQuerySchema = z.object({
  unread: z
    .enum(['0', '1', 'true', 'false'], { error: 'unread must be 1 or 0' })
    .optional()
    .transform((value) => value === '1' || value === 'true'),
  limit: z.coerce
    .number({ error: `limit must be a whole number from 1 to ${NOTIFICATION_LIMITS.listMax}` })
    .int(`limit must be a whole number from 1 to ${NOTIFICATION_LIMITS.listMax}`)
    .min(1, `limit must be a whole number from 1 to ${NOTIFICATION_LIMITS.listMax}`)
    .max(NOTIFICATION_LIMITS.listMax, `limit must be a whole number from 1 to ${NOTIFICATION_LIMITS.listMax}`)
    .optional()
    .transform((value) => value ?? NOTIFICATION_LIMITS.listDefault),
});

/** POST /api/notifications/read: these, or all of the caller's. */
export const markReadBodySchema = z
  .strictObject({
    ids: z
      .array(z.number().int().positive().max(2_147_483_647), { error: NOTIFICATION_MESSAGES.idsInvalid })
      .max(NOTIFICATION_LIMITS.readIdsMax, NOTIFICATION_MESSAGES.idsInvalid)
      .optional(),
    all: z.literal(true, { error: NOTIFICATION_MESSAGES.readOneOf }).optional(),
  })
  .refine((body) => (body.ids === undefined) !== (body.all === undefined), {
    message: NOTIFICATION_MESSAGES.readOneOf,
  })
  .meta({ examples: [{ ids: [12, 13] }, { all: true }] });
export type MarkReadBody = z.infer<typeof markReadBodySchema>;

export const markReadResultSchema = z.object({ unread: z.number() });

/** The per-person channels: what goes by e-mail, and what as push to a subscribed device. */
export const EMAIL_SETTINGS = ['reminder', 'assigned', 'mentioned', 'commented', 'shared', 'digest'] as const;
export const PUSH_SETTINGS = ['reminder', 'assigned', 'mentioned', 'commented', 'shared'] as const;
export type Channel = 'email' | 'push';

const flag = (field: string) =>
  z.boolean({
    error: (issue) =>
      issue.input === undefined ? `${field} is required` : NOTIFICATION_MESSAGES.settingInvalid(field),
  });
const flags = <K extends string>(channel: string, keys: readonly K[]) =>
  z.strictObject(
    Object.fromEntries(keys.map((key) => [key, flag(`${channel}.${key}`)])) as Record<
      K,
      ReturnType<typeof flag>
    >,
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? NOTIFICATION_MESSAGES.settingUnknown(`${channel}.${issue.keys[0]}`)
          : `${channel} must be an object of true/false values`,
    },
  );

export const notificationSettingsSchema = z
  .strictObject(
    { email: flags('email', EMAIL_SETTINGS), push: flags('push', PUSH_SETTINGS) },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? NOTIFICATION_MESSAGES.settingUnknown(String(issue.keys[0]))
          : 'Send {email: {...}, push: {...}}',
    },
  )
  .meta({
    example: {
      email: {
        reminder: true,
        assigned: true,
        mentioned: true,
        commented: false,
        shared: true,
        digest: false,
      },
      push: { reminder: true, assigned: true, mentioned: true, commented: true, shared: true },
    },
  });
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;

/** Issue 22's defaults: e-mail for reminders, assignments, mentions and shares; push for all; no digest. */
export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  email: { reminder: true, assigned: true, mentioned: true, commented: false, shared: true, digest: false },
  push: { reminder: true, assigned: true, mentioned: true, commented: true, shared: true },
};

/** The daily digest comes at this local hour (the person's time zone; UTC when they have none). */
export const DIGEST_LOCAL_TIME = '08:00';

/**
 * On the live event stream (GET /api/events), besides `{invalidate}`: the caller's unread count,
 * sent whenever it changes (a new notification, or some read).
 */
export const notificationsLiveEventSchema = z.object({
  type: z.literal('notifications'),
  unread: z.number(),
});
export type NotificationsLiveEvent = z.infer<typeof notificationsLiveEventSchema>;
