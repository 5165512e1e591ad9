/** Live updates (server-sent events): the stream's URL and the one message it carries. */
export const LIVE_EVENTS_PATH = '/api/events';

/** Query keys whose data changed; the client invalidates each. */
export interface LiveEvent {
  invalidate: string[];
}
