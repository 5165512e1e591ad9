import { z } from 'zod';

/** Live updates (server-sent events): the stream's URL and the one message it carries. */
export const LIVE_EVENTS_PATH = '/api/events';

/** The data of each event: query keys whose data changed; the client invalidates each. */
export const liveEventSchema = z.object({ invalidate: z.array(z.string()) });
export type LiveEvent = z.infer<typeof liveEventSchema>;
