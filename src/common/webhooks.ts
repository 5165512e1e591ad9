import { z } from 'zod';
import { idParam, idSchema } from './ids';

/** Webhooks (issue 24): the API contract, shared with the client. */

export const WEBHOOKS_PATH = '/api/webhooks';
export const webhookPath = (id: number) => `${WEBHOOKS_PATH}/${id}`;
export const webhookDeliveriesPath = (id: number) => `${webhookPath(id)}/deliveries`;
export const redeliverPath = (id: number, deliveryId: number) =>
  `${webhookDeliveriesPath(id)}/${deliveryId}/redeliver`;

/** What a webhook can be told about; `ping` is what 'Send test' sends, to any webhook. */
export const WEBHOOK_EVENT_TYPES = [
  'task.created',
  'task.updated',
  'task.completed',
  'task.restored',
  'task.deleted',
  'task.moved',
  'comment.created',
  'checklist.changed',
  'project.member_added',
  'project.member_removed',
] as const;
/** What a webhook may list in `events`: the changes, and `ping` (the list; sent on test either way). */
export const WEBHOOK_EVENTS_ACCEPTED = [...WEBHOOK_EVENT_TYPES, 'ping'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS_ACCEPTED)[number];

export const WEBHOOK_LIMITS = {
  /** Webhooks one person may have. */
  perPerson: 20,
  urlMax: 2000,
  /** A delivery that has not answered by then is a failed attempt. */
  timeoutMs: 10_000,
  /** The waits before each retry: about 1 min, 5 min, 30 min, 2 h, 6 h; then the event is given up. */
  retryDelaysMs: [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000, 6 * 60 * 60_000],
  /** Failed attempts in a row after which a webhook is turned off and its owner e-mailed. */
  failuresBeforeOff: 20,
  /** The delivery log keeps this long. */
  keepDeliveriesMs: 14 * 24 * 60 * 60_000,
  /** Entries one GET of the log answers, newest first. */
  deliveriesListed: 100,
} as const;

export const WEBHOOK_MESSAGES = {
  urlRequired: 'url is required',
  urlTooLong: `url must be at most ${WEBHOOK_LIMITS.urlMax} characters`,
  eventsRequired: 'events must name at least one event',
  eventUnknown: `events must each be one of ${WEBHOOK_EVENTS_ACCEPTED.join(', ')}`,
  tooMany: `You can have at most ${WEBHOOK_LIMITS.perPerson} webhooks`,
  inactive: 'The webhook is turned off',
} as const;

/** The body of every delivery: `id` is the event's, the same in every retry (and the `webhook-id` header). */
export const webhookEventBodySchema = z.object({
  id: z.string(),
  type: z.string(),
  createdAt: z.string(),
  /** The task (as a summary list shows it), the comment, or the project member; `{webhookId}` for ping. */
  data: z.unknown(),
});
export type WebhookEventBody = z.infer<typeof webhookEventBodySchema>;

const urlField = z
  .string({ error: WEBHOOK_MESSAGES.urlRequired })
  .trim()
  .min(1, WEBHOOK_MESSAGES.urlRequired)
  .max(WEBHOOK_LIMITS.urlMax, WEBHOOK_MESSAGES.urlTooLong);
const eventsField = z
  .array(z.enum(WEBHOOK_EVENTS_ACCEPTED, { error: WEBHOOK_MESSAGES.eventUnknown }), {
    error: WEBHOOK_MESSAGES.eventsRequired,
  })
  .min(1, WEBHOOK_MESSAGES.eventsRequired)
  .transform((events) => [...new Set(events)]);

export const createWebhookBodySchema = z.object({
  url: urlField,
  events: eventsField,
  /** The project whose events it gets (admin or more there); without it, your Inbox and tasks assigned to you. */
  projectId: idSchema('projectId').nullish(),
});
export type CreateWebhookBody = z.input<typeof createWebhookBodySchema>;

export const updateWebhookBodySchema = z.object({
  url: urlField.optional(),
  events: eventsField.optional(),
  active: z.boolean({ error: 'active must be true or false' }).optional(),
});
export type UpdateWebhookBody = z.input<typeof updateWebhookBodySchema>;

export const webhookSchema = z.object({
  id: z.number(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS_ACCEPTED)),
  projectId: z.number().nullable(),
  active: z.boolean(),
  /** Failed attempts since the last success: at WEBHOOK_LIMITS.failuresBeforeOff it is turned off. */
  failuresInARow: z.number(),
  createdAt: z.string(),
});
export type Webhook = z.infer<typeof webhookSchema>;

/** POST /api/webhooks: the signing secret (`whsec_` + base64), shown this once. */
export const createdWebhookSchema = webhookSchema.extend({ secret: z.string() });
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** One attempt of one event to one webhook; `pending`: the next attempt, not made yet (`at` is when it is due). */
export const webhookDeliverySchema = z.object({
  id: z.number(),
  eventId: z.string(),
  type: z.string(),
  attempt: z.number(),
  status: z.enum(DELIVERY_STATUSES),
  responseStatus: z.number().nullable(),
  durationMs: z.number().nullable(),
  error: z.string().nullable(),
  at: z.string(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookIdParamsSchema = z.object({ id: idParam() });
export const deliveryParamsSchema = z.object({ id: idParam(), deliveryId: idParam('deliveryId') });

/** POST .../test and .../redeliver: the event queued (it goes out within seconds). */
export const queuedDeliverySchema = z.object({ eventId: z.string() });

/** The Integrations dialog's words (account menu → Integrations). */
export const WEBHOOK_COPY = {
  menuItem: 'Integrations',
  title: 'Integrations',
  description: 'Tell other tools (chat, CI, automations) when something changes, with signed webhooks.',
  section: 'Webhooks',
  intro:
    'Each event is a signed POST (Standard Webhooks: verify it with any of its libraries). Failed deliveries are retried for about 9 hours; after 20 failures in a row the webhook is turned off and you get an e-mail.',
  urlLabel: 'Payload URL',
  projectLabel: 'Events from',
  inboxAndAssigned: 'My Inbox and tasks assigned to me',
  eventsLegend: 'Events',
  create: 'Add webhook',
  secretShown: 'Your signing secret. Copy it now: it is not shown again.',
  sendTest: 'Send test',
  testQueued: 'Test event sent: see its delivery below.',
  deliveries: 'Deliveries',
  hideDeliveries: 'Hide deliveries',
  noDeliveries: 'Nothing delivered yet.',
  redeliver: 'Redeliver',
  redelivered: 'Sent again: see the new delivery above.',
  empty: 'You have no webhooks.',
  deleteTitle: 'Delete this webhook?',
  deleteDescription:
    'It stops getting events at once, and its delivery log goes with it. This cannot be undone.',
  off: 'Off',
} as const;

/** What each event is, in the form's words. */
export const WEBHOOK_EVENT_LABELS: Record<WebhookEventType, string> = {
  'task.created': 'Task created',
  'task.updated': 'Task changed',
  'task.completed': 'Task completed',
  'task.restored': 'Task restored',
  'task.deleted': 'Task deleted',
  'task.moved': 'Task moved',
  'comment.created': 'Comment added',
  'checklist.changed': 'Checklist changed',
  'project.member_added': 'Member added',
  'project.member_removed': 'Member removed',
  ping: 'Test ping',
};
