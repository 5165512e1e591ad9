import type { Agent } from 'node:https';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { PushPayload } from '../../common/push';
import type { Config } from '../config';
import type { Database } from '../db/schema';
import { onFirstUse } from '../on-first-use';
import { type Clock, systemClock } from '../time/clock';
import { createPushRepository, generateVapidKeys, type VapidKeys } from './repository';

const webPush = onFirstUse(async () => (await import('web-push')).default);

/** How long a push service keeps a message for a browser that is offline (seconds). */
export const PUSH_TTL_SECONDS = 24 * 60 * 60;
/** A push service that does not answer in this long counts as a failure (the job retries). */
const SEND_TIMEOUT_MS = 10_000;
/** Push messages hold about 4 KB once encrypted: long texts are cut. */
const MAX_TITLE = 200;
const MAX_BODY = 1000;

export interface PushServiceOptions {
  db: Kysely<Database>;
  config: Pick<Config, 'push'>;
  logger: FastifyBaseLogger;
  clock?: Clock;
  /** Tests only: an HTTPS agent that trusts the test push service's certificate authority. */
  agent?: Agent;
}

/** What one delivery did: messages a push service accepted, and subscriptions it said are gone. */
export interface PushDelivery {
  sent: number;
  removed: number;
}

/** One or more push services failed (not 404/410): the caller's job queue should try again later. */
export class PushDeliveryError extends Error {
  constructor(
    message: string,
    readonly statusCodes: (number | null)[],
  ) {
    super(message);
    this.name = 'PushDeliveryError';
  }
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Web Push with VAPID (issue 22, decision 036). The key pair comes from the configuration, else from
 * the database (generated once, shared by every instance), read on first use.
 */
export function createPushService({ db, config, logger, clock = systemClock, agent }: PushServiceOptions) {
  const repository = createPushRepository(db);
  let keys: Promise<VapidKeys> | undefined;
  const vapidKeys = (): Promise<VapidKeys> => {
    keys ??= (
      config.push.keys
        ? Promise.resolve(config.push.keys)
        : repository.vapidKeys(generateVapidKeys, clock.now().toISOString())
    ).catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    return keys;
  };

  return {
    /** The public key browsers subscribe with. */
    publicKey: async (): Promise<string> => (await vapidKeys()).publicKey,

    subscribe: (userId: number, body: { endpoint: string; keys: { p256dh: string; auth: string } }) =>
      repository.upsert(
        userId,
        { endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth },
        clock.now().toISOString(),
      ),

    unsubscribe: (userId: number, endpoint: string) => repository.remove(userId, endpoint),

    /** Whether the person has subscribed any device (push defaults to on once one is). */
    hasSubscription: async (userId: number): Promise<boolean> => (await repository.list(userId)).length > 0,

    /**
     * Sends `payload` to every device the person subscribed. A push service answering 404 or 410
     * (the subscription has expired or was withdrawn) has that subscription deleted. Any other
     * failure is logged and, once every device was tried, thrown as a PushDeliveryError, so the job
     * queue retries; the devices that got it then get it again, which the worker shows in place of
     * the first (same notification tag), not beside it.
     */
    async deliver(userId: number, payload: PushPayload): Promise<PushDelivery> {
      const subscriptions = await repository.list(userId);
      if (subscriptions.length === 0) return { sent: 0, removed: 0 };
      const [lib, vapid] = await Promise.all([webPush(), vapidKeys()]);
      const message = JSON.stringify({
        ...payload,
        title: cut(payload.title, MAX_TITLE),
        body: cut(payload.body, MAX_BODY),
      } satisfies PushPayload);
      const results = await Promise.allSettled(
        subscriptions.map((subscription) =>
          lib.sendNotification(
            {
              endpoint: subscription.endpoint,
              keys: { p256dh: subscription.p256dh, auth: subscription.auth },
            },
            message,
            {
              vapidDetails: { subject: config.push.subject, ...vapid },
              TTL: PUSH_TTL_SECONDS,
              contentEncoding: 'aes128gcm',
              timeout: SEND_TIMEOUT_MS,
              ...(agent ? { agent } : {}),
            },
          ),
        ),
      );
      let sent = 0;
      let removed = 0;
      const failures: (number | null)[] = [];
      for (const [index, result] of results.entries()) {
        const subscription = subscriptions[index]!;
        // The endpoint is a capability: logs name the push service, not the whole address.
        const service = new URL(subscription.endpoint).host;
        if (result.status === 'fulfilled') {
          sent += 1;
          continue;
        }
        const statusCode = statusOf(result.reason);
        if (statusCode === 404 || statusCode === 410) {
          await repository.removeGone(subscription.id, subscription.endpoint);
          removed += 1;
          logger.info({ userId, service, statusCode }, 'push subscription gone: removed');
          continue;
        }
        failures.push(statusCode);
        logger.warn(
          {
            userId,
            service,
            statusCode,
            err: result.reason instanceof Error ? result.reason.message : result.reason,
          },
          'push delivery failed',
        );
      }
      if (failures.length > 0) {
        throw new PushDeliveryError(
          `Push delivery failed for ${failures.length} of ${subscriptions.length} devices (${failures
            .map((code) => code ?? 'no answer')
            .join(', ')})`,
          failures,
        );
      }
      return { sent, removed };
    },
  };
}

export type PushService = ReturnType<typeof createPushService>;

/** The HTTP status of web-push's WebPushError, or null (no answer: a network error or time-out). */
function statusOf(reason: unknown): number | null {
  if (
    reason &&
    typeof reason === 'object' &&
    'statusCode' in reason &&
    typeof reason.statusCode === 'number'
  ) {
    return reason.statusCode;
  }
  return null;
}
