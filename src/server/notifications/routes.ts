import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  markReadBodySchema,
  markReadResultSchema,
  NOTIFICATION_SETTINGS_PATH,
  NOTIFICATIONS_PATH,
  NOTIFICATIONS_READ_PATH,
  notificationListQuerySchema,
  notificationSchema,
  notificationSettingsSchema,
} from '../../common/notifications';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { NotificationService } from './service';

/** The caller's notifications and channels (issue 22): each person sees only their own. */
export async function notificationRoutes(
  fastify: FastifyInstance,
  { notifications }: { notifications: NotificationService },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Notifications'];

  app.get(
    NOTIFICATIONS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your notifications',
        description:
          "Newest first; `unread=1` for unread ones only; `limit` 1 to 200 (50). Kinds: `reminder`, `assigned`, `mentioned`, `commented`, `shared`, `due_today` (the daily digest). The unread count also arrives live on GET /api/events as `{type: 'notifications', unread}`.",
        tags,
        operationId: 'listNotifications',
        querystring: notificationListQuerySchema,
        response: { 200: z.array(notificationSchema) },
      },
    },
    async (request) => notifications.list(currentUser(request).id, request.query),
  );

  app.post(
    NOTIFICATIONS_READ_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Mark notifications read',
        description: '`{ids}` marks those of yours, `{all: true}` every one; answers the unread count left.',
        tags,
        operationId: 'markNotificationsRead',
        body: markReadBodySchema,
        response: { 200: markReadResultSchema },
      },
    },
    async (request) => notifications.markRead(currentUser(request).id, request.body),
  );

  app.get(
    NOTIFICATION_SETTINGS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Your notification channels',
        description:
          'What goes by e-mail and what as push (to devices you subscribed). Defaults: e-mail for reminders, assignments, mentions and shares; push for all; the daily digest (08:00 in your time zone) off.',
        tags,
        operationId: 'getNotificationSettings',
        response: { 200: notificationSettingsSchema },
      },
    },
    async (request) => notifications.settings(currentUser(request).id),
  );

  app.put(
    NOTIFICATION_SETTINGS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Set your notification channels',
        description: 'The whole object: every value true or false (400 naming the field otherwise).',
        tags,
        operationId: 'putNotificationSettings',
        body: notificationSettingsSchema,
        response: { 200: notificationSettingsSchema },
      },
    },
    async (request) => notifications.saveSettings(currentUser(request).id, request.body),
  );
}
