import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { MEDIA, noContentSchema } from '../../common/api';
import {
  CALENDAR_FEED_PATH,
  CALENDAR_PATH,
  calendarFeedStatusSchema,
  calendarFeedUrlSchema,
  calendarFileParamsSchema,
  icsSchema,
} from '../../common/calendar';
import type { Access } from '../access';
import type { Database } from '../db/schema';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import { createCalendarRepository } from './repository';
import { createCalendarService } from './service';

/** A URL as logs may keep it: the feed's secret replaced. */
export const withoutFeedSecret = (url: string): string =>
  url.startsWith(`${CALENDAR_PATH}/`) ? `${CALENDAR_PATH}/[secret]` : url;

export interface CalendarFeatureDeps {
  db: Kysely<Database>;
  access: Access;
  appUrl: string;
}

/**
 * The calendar feed (issue 13). Managed with a session or an API token (requireUser): a token can
 * read your tasks anyway, and the feed shows no more than that. The feed itself is public: its
 * secret address is the credential, since calendar apps cannot sign in.
 */
export async function calendarRoutes(fastify: FastifyInstance, { db, access, appUrl }: CalendarFeatureDeps) {
  const calendar = createCalendarService({ feeds: createCalendarRepository(db), access, appUrl });
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    CALENDAR_FEED_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Whether your calendar feed is on',
        description: 'Never its address: only a hash of its secret is kept.',
        tags: ['Calendar'],
        operationId: 'getCalendarFeed',
        response: { 200: calendarFeedStatusSchema },
      },
    },
    async (request) => calendar.status(currentUser(request).id),
  );

  app.post(
    CALENDAR_FEED_PATH,
    {
      onRequest: requireUser,
      // Shown this once: never kept for a repeated Idempotency-Key.
      config: { showsSecret: true },
      schema: {
        summary: 'Make a new calendar feed address',
        description:
          'The address is in this answer once: give it to your calendar app. Any earlier address stops working.',
        tags: ['Calendar'],
        operationId: 'createCalendarFeed',
        response: { 201: calendarFeedUrlSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await calendar.create(currentUser(request).id)),
  );

  app.delete(
    CALENDAR_FEED_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Turn the calendar feed off',
        description: 'Its address stops working at once.',
        tags: ['Calendar'],
        operationId: 'deleteCalendarFeed',
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await calendar.turnOff(currentUser(request).id);
      return reply.code(204).send();
    },
  );

  app.get(
    `${CALENDAR_PATH}/:file`,
    {
      schema: {
        summary: 'Your tasks as a calendar (iCalendar)',
        description:
          'The secret address from `POST /api/calendar-feed`; no sign-in. One all-day event per active task with a due date that is in your Inbox or assigned to you, in a project you are a member of. A wrong or revoked address answers 404.',
        tags: ['Calendar'],
        operationId: 'getCalendar',
        security: [],
        params: calendarFileParamsSchema,
        response: { 200: { content: { [MEDIA.calendar]: { schema: icsSchema } } } },
      },
    },
    async (request, reply) =>
      reply
        .type(`${MEDIA.calendar}; charset=utf-8`)
        .header('Cache-Control', 'private, no-cache')
        .header('X-Robots-Tag', 'noindex')
        .send(await calendar.ics(request.params.file)),
  );
}
