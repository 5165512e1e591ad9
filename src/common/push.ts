import { z } from 'zod';
import type { PushPayload } from './push-notification';

/** Web Push (issue 22, decision 036): the API contract, shared by the client, the server and the worker. */

import { PUSH_PATHS } from './push-notification';

export { PUSH_PATHS };

export const PUSH_LIMITS = { endpointMax: 4096 } as const;

/** The words of every refusal about push subscriptions, in one place. */
export const PUSH_MESSAGES = {
  endpoint: 'endpoint must be an https:// URL of a push service',
  p256dh: "keys.p256dh must be the browser's P-256 public key (base64url, 65 bytes)",
  auth: "keys.auth must be the browser's 16-byte auth secret (base64url)",
} as const;

/** GET /api/push/public-key: what the browser subscribes with (`applicationServerKey`). */
export const pushPublicKeySchema = z.object({
  /** The server's VAPID public key: an uncompressed P-256 point, base64url. */
  publicKey: z.string(),
});
export type PushPublicKey = z.infer<typeof pushPublicKeySchema>;

const endpoint = z
  .string({ error: PUSH_MESSAGES.endpoint })
  .max(PUSH_LIMITS.endpointMax, PUSH_MESSAGES.endpoint)
  .regex(/^https:\/\/[^\s/?#]+/i, PUSH_MESSAGES.endpoint)
  .refine((value) => URL.canParse(value), PUSH_MESSAGES.endpoint);

/** Base64url (padding allowed, as some browsers send it), without the padding. */
const base64url = (pattern: RegExp, message: string) =>
  z
    .string({ error: message })
    .transform((value) => value.replace(/=+$/, ''))
    .pipe(z.string().regex(pattern, message));

/** POST /api/push/subscriptions: a browser's `PushSubscription.toJSON()` (its `expirationTime` ignored). */
export const pushSubscriptionBodySchema = z.object({
  endpoint,
  keys: z.object(
    {
      // 65 bytes starting 0x04 (uncompressed point): 87 characters, the first 'B'.
      p256dh: base64url(/^B[A-Za-z0-9_-]{86}$/, PUSH_MESSAGES.p256dh),
      // 16 bytes: 22 characters, the last holding 2 bits (A, Q, g or w).
      auth: base64url(/^[A-Za-z0-9_-]{21}[AQgw]$/, PUSH_MESSAGES.auth),
    },
    { error: 'keys must be {p256dh, auth}' },
  ),
});
export type PushSubscriptionBody = z.input<typeof pushSubscriptionBodySchema>;

/** DELETE /api/push/subscriptions: this browser's endpoint. */
export const pushUnsubscribeBodySchema = z.object({ endpoint });
export type PushUnsubscribeBody = z.infer<typeof pushUnsubscribeBodySchema>;

/** What a push message carries (encrypted to the browser); the service worker shows it. */
export const pushPayloadSchema = z.object({
  title: z.string(),
  body: z.string(),
  /** The task it is about; null for a notification about no one task. */
  taskId: z.number().nullable(),
  notificationId: z.number().nullable(),
  /** Where a click on the notification opens the app (same origin, path and query). */
  url: z.string(),
}) satisfies z.ZodType<PushPayload>;

export { PUSH_ACTIONS, SNOOZE_MINUTES, TASK_QUERY_PARAM, taskUrl } from './push-notification';
export type { PushPayload };
