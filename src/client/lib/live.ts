import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { LIVE_EVENTS_PATH, type LiveEvent } from '../../common/live';
import { NOTIFICATIONS_PATH } from '../../common/notifications';
import { whenReconnected } from './connection';
import { useSession } from './session';

/** Back-off for a stream the browser gave up on, doubling up to the maximum. */
const RETRY_MIN_MS = 2000;
const RETRY_MAX_MS = 60_000;

/** The query keys an event names; the notifications' count event (issue 22) names their lists. */
function parseEvent(data: unknown): LiveEvent | null {
  try {
    const event: unknown = JSON.parse(String(data));
    if (!event || typeof event !== 'object') return null;
    if (Array.isArray((event as LiveEvent).invalidate)) return event as LiveEvent;
    if ((event as { type?: unknown }).type === 'notifications') return { invalidate: [NOTIFICATIONS_PATH] };
    return null;
  } catch {
    return null;
  }
}

/**
 * While signed in, listens to the server's live updates and refetches the queries they name, so a
 * change made in another tab or on another device shows here too. Mount once, inside the query client.
 */
export function useLiveUpdates(): void {
  const sessionId = useSession()?.sessionId;
  const queryClient = useQueryClient();

  useEffect(() => {
    if (!sessionId || typeof EventSource === 'undefined') return;
    let source: EventSource | undefined;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let retryDelay = RETRY_MIN_MS;
    let missedEvents = false;

    const connect = () => {
      // EventSource cannot send headers: the session cookie set at sign-in authenticates it.
      source = new EventSource(LIVE_EVENTS_PATH, { withCredentials: true });
      source.onopen = () => {
        retryDelay = RETRY_MIN_MS;
        // Changes made while the stream was down were never announced: refetch what is shown.
        if (missedEvents) void queryClient.invalidateQueries();
        missedEvents = false;
      };
      source.onmessage = (message) => {
        for (const key of parseEvent(message.data)?.invalidate ?? []) {
          // This tab's own changes to it are still being saved (a checklist's moves): their mutation
          // reads it again once the last is done. Read now, it would show the server's state from
          // before them, undo the screen's optimistic order for a moment and take focus off a moved row.
          if (queryClient.isMutating({ mutationKey: [key] }) > 0) continue;
          void queryClient.invalidateQueries({ queryKey: [key] });
        }
      };
      source.onerror = () => {
        missedEvents = true;
        // The browser reconnects a dropped stream by itself, but not one refused with an error status.
        if (source?.readyState !== EventSource.CLOSED) return;
        source.close();
        retryTimer = setTimeout(connect, retryDelay);
        retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
      };
    };

    connect();
    // The server answers again after an outage: a stream waiting out its back-off starts now.
    const stopWatching = whenReconnected(() => {
      if (source?.readyState !== EventSource.CLOSED) return;
      clearTimeout(retryTimer);
      retryDelay = RETRY_MIN_MS;
      connect();
    });
    return () => {
      stopWatching();
      clearTimeout(retryTimer);
      source?.close();
    };
  }, [sessionId, queryClient]);
}
