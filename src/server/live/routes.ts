import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MEDIA } from '../../common/api';
import { LIVE_EVENTS_PATH, type LiveEvent, liveEventSchema } from '../../common/live';
import { notificationsLiveEventSchema } from '../../common/notifications';
import type { Access } from '../access';
import { hijackKeepingHeaders } from '../http/security';
import { currentUser, requireUser } from '../http/session';
import type { LiveBus } from './bus';

/** A comment line every 25 s keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 25_000;
/** How long the browser waits before reconnecting a dropped stream. */
const RETRY_MS = 3000;

/**
 * GET /api/events: a server-sent event stream of `{invalidate: [queryKey, ...]}` for the signed-in
 * user. EventSource cannot send headers, so the browser is authenticated by the session cookie.
 */
export async function liveRoutes(
  app: FastifyInstance,
  { live, access }: { live: LiveBus; access: Pick<Access, 'reachesLater'> },
) {
  const openStreams = new Set<() => void>();
  // Open streams never finish on their own, so they would hold up a graceful shutdown.
  app.addHook('preClose', async () => {
    for (const end of openStreams) end();
  });

  const schema = {
    summary: 'Live updates',
    description:
      "Server-sent events while the stream is open: each names the data that changed (query keys, which are also the URLs to GET again), or, as `{type: 'notifications', unread}`, the caller's unread notification count whenever it changes.",
    tags: ['Live'],
    operationId: 'streamEvents',
    response: {
      200: {
        content: {
          [MEDIA.eventStream]: { schema: z.union([liveEventSchema, notificationsLiveEventSchema]) },
        },
      },
    },
  };
  app.get(LIVE_EVENTS_PATH, { onRequest: requireUser, schema }, async (request, reply) => {
    const userId = currentUser(request).id;
    const credential = request.session;
    // A token limited to some projects hears nothing of the others (issue 24).
    const reachable = access.reachesLater(userId);
    const reaches = (projectIds: readonly number[] | undefined) => !projectIds || projectIds.some(reachable);
    const res = hijackKeepingHeaders(reply);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx would otherwise buffer the stream.
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();

    let unsubscribe = () => {};
    let heartbeat: NodeJS.Timeout | undefined;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      unsubscribe();
      openStreams.delete(end);
      res.end();
    };
    const send = (text: string) => {
      if (!ended) res.write(text);
    };
    openStreams.add(end);
    res.on('close', end);

    try {
      unsubscribe = await live.subscribe(userId, {
        onEvent: (queryKeys, projectIds) => {
          if (!reaches(projectIds)) return;
          const event: LiveEvent = { invalidate: queryKeys };
          send(`data: ${JSON.stringify(event)}\n\n`);
        },
        onMessage: (message) => send(`data: ${JSON.stringify(message)}\n\n`),
        // The browser reconnects and refetches, which covers whatever was missed.
        onInterrupted: end,
      });
    } catch (error) {
      request.log.warn({ err: error }, 'live updates unavailable');
      return end();
    }
    if (ended) return unsubscribe();
    send(`retry: ${RETRY_MS}\n: connected\n\n`);

    heartbeat = setInterval(async () => {
      // A stream outlives nothing it was opened with: a session ended since (logout, suspension) or
      // a token revoked since ends it.
      const valid = credential ? await credential.stillValid().catch(() => false) : false;
      if (!valid) return end();
      send(': heartbeat\n\n');
    }, HEARTBEAT_MS);
  });
}
