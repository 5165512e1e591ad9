import { z } from 'zod';

/** The calendar feed (issue 13): a secret address calendar apps subscribe to, without signing in. */

export const CALENDAR_FEED_PATH = '/api/calendar-feed';
/** The feed itself: `${CALENDAR_PATH}/<secret>.ics`. */
export const CALENDAR_PATH = '/api/calendar';
export const CALENDAR_SUFFIX = '.ics';

/** POST /api/calendar-feed: the new address, shown this once (only its secret's hash is kept). */
export const calendarFeedUrlSchema = z.object({
  url: z.string().meta({ description: 'The secret address of your feed: keep it to yourself.' }),
});
export type CalendarFeedUrl = z.infer<typeof calendarFeedUrlSchema>;

/** GET /api/calendar-feed: whether a feed is on, never its address. */
export const calendarFeedStatusSchema = z.object({
  enabled: z.boolean(),
  createdAt: z.string().nullable(),
});
export type CalendarFeedStatus = z.infer<typeof calendarFeedStatusSchema>;

export const calendarFileParamsSchema = z.object({
  file: z.string().max(200).meta({ description: 'The secret of the address, then `.ics`.' }),
});

/** The .ics document: text, not JSON. */
export const icsSchema = z.string().meta({ description: 'An RFC 5545 iCalendar document.' });
