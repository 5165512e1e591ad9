import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { Webhook as Signer } from 'standardwebhooks';
import {
  type CreatedWebhook,
  type CreateWebhookBody,
  createWebhookBodySchema,
  type UpdateWebhookBody,
  updateWebhookBodySchema,
  WEBHOOK_LIMITS,
  WEBHOOK_MESSAGES,
  type Webhook,
  type WebhookDelivery,
  type WebhookEventBody,
  type WebhookEventType,
} from '../../common/webhooks';
import type { Access } from '../access';
import type { SecretBox } from '../agents/crypto';
import type { Database, WebhookRow } from '../db/schema';
import { toBool, toIso } from '../db/values';
import { badRequest, notFound } from '../http/errors';
import {
  assertAllowedUrl,
  BlockedAddressError,
  createGuardedFetch,
  isPrivateAddress,
  urlGuardMessages,
} from '../http/url-guard';
import type { JobQueue, NewJob } from '../jobs/queue';
import type { ChangeEvent } from '../live/projects';
import type { Mailer } from '../mail/mailer';
import { webhookTurnedOffMail } from '../mail/templates';
import type { Clock } from '../time/clock';

/** The job that sends one event to one webhook, and the one that tells its owner it was turned off. */
const DELIVER = 'webhook';
const TURNED_OFF = 'webhook-off';
const URL_MESSAGES = urlGuardMessages('url');
/** The first attempt and one per retry delay. */
const MAX_ATTEMPTS = WEBHOOK_LIMITS.retryDelaysMs.length + 1;
const PRUNE_EVERY_MS = 60 * 60_000;

interface DeliveryPayload {
  webhookId: number;
  eventId: string;
  type: WebhookEventType;
  body: string;
  /** 'Send test' and 'Redeliver': sent even while the webhook is off. */
  manual?: boolean;
}

export interface WebhookServiceDeps {
  db: Kysely<Database>;
  access: Access;
  jobs: JobQueue;
  mailer: Mailer;
  secrets: SecretBox;
  clock: Clock;
  logger: FastifyBaseLogger;
  appUrl: string;
  /** WEBHOOKS_ALLOW_PRIVATE: destinations on loopback, private and link-local addresses are allowed. */
  allowPrivate: boolean;
  /** An e-mail that has not answered by then is a failed try (inside the job's lease). */
  sendTimeoutMs?: number;
}

const webhookNotFound = () => notFound('Webhook');

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks form every library reads. */
const newSecret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;
const newEventId = () => `msg_${crypto.randomUUID().replaceAll('-', '')}`;

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as Webhook['events'],
  projectId: row.project_id,
  active: toBool(row.active),
  failuresInARow: row.failures_in_a_row,
  createdAt: toIso(row.created_at),
});

/** A task as summary lists answer it (issue 15): without its notes and AI draft. */
export function taskSummaryOf<T extends { notes?: unknown; aiDraft?: unknown }>(task: T) {
  const { notes: _notes, aiDraft: _aiDraft, ...summary } = task;
  return summary;
}

/**
 * Webhooks (issue 24, decision 041): a person's endpoints, told about changes as signed POSTs
 * (Standard Webhooks). A change's events are matched to webhooks once it has committed and each
 * match is a delivery job (decision 034): retried with backoff, logged attempt by attempt.
 */
export function createWebhookService(deps: WebhookServiceDeps) {
  const { db, access, jobs, mailer, secrets, clock, logger, appUrl, allowPrivate } = deps;
  const sendTimeoutMs = deps.sendTimeoutMs ?? 60_000;
  const guardedFetch = createGuardedFetch(allowPrivate ? () => false : isPrivateAddress);
  const now = () => clock.now().toISOString();

  /** The caller's webhook, or 404: someone else's does not exist for them. */
  /**
   * A webhook hears of its owner's Inbox and assigned tasks, or of a whole project, beyond what a
   * token limited to some projects may see (issue 24): such a token manages none (403).
   */
  const caller = (userId: number) => access.requireAllProjects(userId);

  async function own(userId: number, id: number): Promise<WebhookRow> {
    const row = await db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) throw webhookNotFound();
    return row;
  }

  const checkUrl = async (url: string) =>
    (await assertAllowedUrl(url, allowPrivate, URL_MESSAGES)).toString();

  const bodyOf = (id: string, type: WebhookEventType, data: unknown, createdAt = now()) =>
    JSON.stringify({ id, type, createdAt, data } satisfies WebhookEventBody);

  /**
   * Delivery jobs and their 'pending' log rows, in the caller's transaction; the key is one per event
   * and webhook (one per redelivery), so the same event is never queued twice for a webhook.
   */
  async function queue(trx: Kysely<Database>, deliveries: Array<DeliveryPayload & { key: string }>) {
    if (deliveries.length === 0) return;
    const at = now();
    const jobsToAdd: NewJob[] = deliveries.map(({ key, ...payload }) => ({
      key,
      kind: DELIVER,
      payload,
      maxAttempts: MAX_ATTEMPTS,
    }));
    await jobs.enqueue(jobsToAdd, trx);
    await trx
      .insertInto('webhook_deliveries')
      .values(
        deliveries.map((delivery) => ({
          webhook_id: delivery.webhookId,
          job_key: delivery.key,
          event_id: delivery.eventId,
          type: delivery.type,
          body: delivery.body,
          attempt: 1,
          status: 'pending' as const,
          response_status: null,
          duration_ms: null,
          error: null,
          at,
        })),
      )
      .execute();
  }

  /** The active webhooks an event reaches: its project's (owner still admin or more), and its Inbox owner's or assignees'. */
  async function matching(event: ChangeEvent): Promise<WebhookRow[]> {
    const assignees = [...(event.assigneeIds ?? [])];
    const rows = await db
      .selectFrom('webhooks')
      .selectAll('webhooks')
      .where('webhooks.active', '=', true)
      .where((eb) =>
        eb.or([
          eb.and([
            eb('webhooks.project_id', '=', event.projectId),
            eb.exists(
              eb
                .selectFrom('project_members')
                .select('project_members.user_id')
                .where('project_members.project_id', '=', event.projectId)
                .whereRef('project_members.user_id', '=', 'webhooks.user_id')
                .where('project_members.role', 'in', ['admin', 'owner']),
            ),
          ]),
          eb.and([
            eb('webhooks.project_id', 'is', null),
            eb.or([
              eb.exists(
                eb
                  .selectFrom('projects')
                  .select('projects.id')
                  .where('projects.id', '=', event.projectId)
                  .where('projects.is_inbox', '=', true)
                  .whereRef('projects.owner_id', '=', 'webhooks.user_id'),
              ),
              ...(assignees.length > 0
                ? [
                    eb.and([
                      eb('webhooks.user_id', 'in', assignees),
                      eb.exists(
                        eb
                          .selectFrom('project_members')
                          .select('project_members.user_id')
                          .where('project_members.project_id', '=', event.projectId)
                          .whereRef('project_members.user_id', '=', 'webhooks.user_id'),
                      ),
                    ]),
                  ]
                : []),
            ]),
          ]),
        ]),
      )
      .execute();
    return rows.filter((row) => (JSON.parse(row.events) as string[]).includes(event.type));
  }

  /** Change events (../live/projects.ts): each matching webhook gets a delivery job; one transaction. */
  async function emit(events: ChangeEvent[]): Promise<void> {
    const deliveries: Array<DeliveryPayload & { key: string }> = [];
    for (const event of events) {
      const hooks = await matching(event);
      if (hooks.length === 0) continue;
      const eventId = newEventId();
      const body = bodyOf(eventId, event.type, event.data);
      for (const hook of hooks) {
        deliveries.push({
          key: `webhook:${hook.id}:${eventId}`,
          webhookId: hook.id,
          eventId,
          type: event.type,
          body,
        });
      }
    }
    if (deliveries.length === 0) return;
    await db.transaction().execute((trx) => queue(trx, deliveries));
    jobs.wake();
  }

  let prunedAt = Number.NEGATIVE_INFINITY;
  async function prune() {
    const at = clock.now().getTime();
    if (at - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = at;
    await db
      .deleteFrom('webhook_deliveries')
      .where('at', '<', new Date(at - WEBHOOK_LIMITS.keepDeliveriesMs).toISOString())
      .where('status', '!=', 'pending')
      .execute();
  }

  /** Sends once: the answer's status and how long it took, or the error that stopped it. */
  async function send(hook: WebhookRow, payload: DeliveryPayload) {
    const secret = secrets.decrypt(hook.secret);
    if (!secret) return { status: null, durationMs: 0, error: 'The signing secret cannot be read' };
    const sentAt = clock.now();
    const signature = new Signer(secret).sign(payload.eventId, sentAt, payload.body);
    const started = performance.now();
    const signal = AbortSignal.timeout(WEBHOOK_LIMITS.timeoutMs);
    try {
      const response = await guardedFetch(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Tasklane-Webhooks/1',
          'webhook-id': payload.eventId,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body: payload.body,
        redirect: 'manual',
        signal,
      });
      // The answer's body is not kept.
      await response.body?.cancel().catch(() => {});
      const durationMs = Math.round(performance.now() - started);
      const ok = response.status >= 200 && response.status < 300;
      return {
        status: response.status,
        durationMs,
        error: ok
          ? null
          : response.status >= 300 && response.status < 400
            ? `Answered ${response.status}: redirects are not followed`
            : `Answered ${response.status}`,
      };
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      const message = signal.aborted
        ? `No answer within ${WEBHOOK_LIMITS.timeoutMs / 1000} s`
        : blocked(error)
          ? URL_MESSAGES.private
          : error instanceof Error
            ? causeOf(error)
            : String(error);
      return { status: null, durationMs, error: message.slice(0, 500) };
    }
  }

  jobs.register(
    DELIVER,
    async (job, run) => {
      const payload = job.payload as DeliveryPayload;
      await prune();
      const hook = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', payload.webhookId)
        .executeTakeFirst();
      // Deleted: its log went with it.
      if (!hook) return;
      const settle = (
        trx: Kysely<Database>,
        result: { status: number | null; durationMs: number; error: string | null },
      ) =>
        trx
          .updateTable('webhook_deliveries')
          .set({
            attempt: job.attempt,
            status: result.error ? 'failed' : 'succeeded',
            response_status: result.status,
            duration_ms: result.durationMs,
            error: result.error,
            at: now(),
          })
          .where('job_key', '=', job.key)
          .where('status', '=', 'pending')
          .execute();
      if (!toBool(hook.active) && !payload.manual) {
        await run.complete((trx) =>
          settle(trx, { status: null, durationMs: 0, error: WEBHOOK_MESSAGES.inactive }),
        );
        return;
      }
      const result = await send(hook, payload);
      if (!result.error) {
        await run.complete(async (trx) => {
          await settle(trx, result);
          await trx.updateTable('webhooks').set({ failures_in_a_row: 0 }).where('id', '=', hook.id).execute();
        });
        return;
      }
      // A failure: logged; the webhook turned off at the 20th in a row (its owner e-mailed); retried unless off or out of tries.
      const retry = await db.transaction().execute(async (trx) => {
        await settle(trx, result);
        const counted = await trx
          .updateTable('webhooks')
          .set((eb) => ({ failures_in_a_row: eb('failures_in_a_row', '+', 1) }))
          .where('id', '=', hook.id)
          .returning(['failures_in_a_row', 'active'])
          .executeTakeFirst();
        let active = counted ? toBool(counted.active) : false;
        if (counted && active && counted.failures_in_a_row >= WEBHOOK_LIMITS.failuresBeforeOff) {
          active = false;
          await trx
            .updateTable('webhooks')
            .set({ active: false, updated_at: now() })
            .where('id', '=', hook.id)
            .execute();
          await jobs.enqueue(
            [
              {
                key: `webhook-off:${hook.id}:${job.key}:${job.attempt}`,
                kind: TURNED_OFF,
                payload: { webhookId: hook.id },
              },
            ],
            trx,
          );
          logger.warn({ webhook: hook.id }, 'webhook turned off after failures in a row');
        }
        const again = job.attempt < MAX_ATTEMPTS && (active || payload.manual === true);
        if (again) {
          const delay = WEBHOOK_LIMITS.retryDelaysMs[job.attempt - 1]!;
          await trx
            .insertInto('webhook_deliveries')
            .values({
              webhook_id: hook.id,
              job_key: job.key,
              event_id: payload.eventId,
              type: payload.type,
              body: payload.body,
              attempt: job.attempt + 1,
              status: 'pending',
              response_status: null,
              duration_ms: null,
              error: null,
              at: new Date(clock.now().getTime() + delay).toISOString(),
            })
            .execute();
        }
        return again;
      });
      // The queue retries it after this kind's delay (1 min, 5 min, 30 min, 2 h, 6 h), or after the
      // last try records it failed; a webhook turned off ends its event here (done: nothing to retry).
      if (retry || job.attempt >= MAX_ATTEMPTS) throw new Error(`webhook ${hook.id}: ${result.error}`);
    },
    { retryDelaysMs: WEBHOOK_LIMITS.retryDelaysMs },
  );

  jobs.register(TURNED_OFF, async (job, run) => {
    const { webhookId } = job.payload as { webhookId: number };
    const row = await db
      .selectFrom('webhooks')
      .innerJoin('users', 'users.id', 'webhooks.user_id')
      .select(['webhooks.url', 'users.email', 'users.first_name'])
      .where('webhooks.id', '=', webhookId)
      .executeTakeFirst();
    if (!row?.email) return;
    const messageId = `${job.key.replace(/[^A-Za-z0-9.:_-]/g, '-')}@tasklane`;
    const sending = mailer.send({
      ...webhookTurnedOffMail(row.email, row.first_name, row.url, WEBHOOK_LIMITS.failuresBeforeOff, appUrl),
      messageId,
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        sending,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('the mail server did not answer')), sendTimeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    await run.complete();
  });

  return {
    emit,

    async list(userId: number): Promise<Webhook[]> {
      caller(userId);
      const rows = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('id')
        .execute();
      return rows.map(toWebhook);
    },

    async create(userId: number, input: CreateWebhookBody): Promise<CreatedWebhook> {
      caller(userId);
      const body = createWebhookBodySchema.parse(input);
      if (body.projectId != null) await access.requireProjectRole({ id: userId }, body.projectId, 'admin');
      const url = await checkUrl(body.url);
      const secret = newSecret();
      const at = now();
      const row = await db.transaction().execute(async (trx) => {
        const { count } = await trx
          .selectFrom('webhooks')
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .where('user_id', '=', userId)
          .executeTakeFirstOrThrow();
        if (Number(count) >= WEBHOOK_LIMITS.perPerson) throw badRequest(WEBHOOK_MESSAGES.tooMany);
        return trx
          .insertInto('webhooks')
          .values({
            user_id: userId,
            project_id: body.projectId ?? null,
            url,
            events: JSON.stringify(body.events),
            secret: secrets.encrypt(secret),
            active: true,
            failures_in_a_row: 0,
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
      });
      return { ...toWebhook(row), secret };
    },

    async update(userId: number, id: number, input: UpdateWebhookBody): Promise<Webhook> {
      caller(userId);
      const body = updateWebhookBodySchema.parse(input);
      const current = await own(userId, id);
      // Still admin or more in its project: a demoted owner cannot change it back on.
      if (current.project_id !== null && (body.active || body.events || body.url)) {
        await access.requireProjectRole({ id: userId }, current.project_id, 'admin');
      }
      const url = body.url === undefined ? undefined : await checkUrl(body.url);
      const row = await db
        .updateTable('webhooks')
        .set({
          url,
          events: body.events ? JSON.stringify(body.events) : undefined,
          active: body.active,
          // Turned on again: it starts counting afresh.
          failures_in_a_row: body.active ? 0 : undefined,
          updated_at: now(),
        })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw webhookNotFound();
      return toWebhook(row);
    },

    async remove(userId: number, id: number): Promise<void> {
      caller(userId);
      const hook = await own(userId, id);
      await db.deleteFrom('webhooks').where('id', '=', hook.id).execute();
    },

    /** 'Send test': a `ping` with `{webhookId}`, at once, even while the webhook is off. */
    async test(userId: number, id: number): Promise<{ eventId: string }> {
      caller(userId);
      const hook = await own(userId, id);
      const eventId = newEventId();
      await db.transaction().execute((trx) =>
        queue(trx, [
          {
            key: `webhook:${hook.id}:${eventId}`,
            webhookId: hook.id,
            eventId,
            type: 'ping',
            body: bodyOf(eventId, 'ping', { webhookId: hook.id }),
            manual: true,
          },
        ]),
      );
      jobs.wake();
      return { eventId };
    },

    async deliveries(userId: number, id: number): Promise<WebhookDelivery[]> {
      caller(userId);
      const hook = await own(userId, id);
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select([
          'id',
          'event_id',
          'type',
          'attempt',
          'status',
          'response_status',
          'duration_ms',
          'error',
          'at',
        ])
        .where('webhook_id', '=', hook.id)
        .where('at', '>=', new Date(clock.now().getTime() - WEBHOOK_LIMITS.keepDeliveriesMs).toISOString())
        .orderBy('id', 'desc')
        .limit(WEBHOOK_LIMITS.deliveriesListed)
        .execute();
      return rows.map((row) => ({
        id: row.id,
        eventId: row.event_id,
        type: row.type,
        attempt: row.attempt,
        status: row.status,
        responseStatus: row.response_status,
        durationMs: row.duration_ms,
        error: row.error,
        at: toIso(row.at),
      }));
    },

    /** The same event (its id and body unchanged: receivers dedupe by `webhook-id`), sent again now. */
    async redeliver(userId: number, id: number, deliveryId: number): Promise<{ eventId: string }> {
      caller(userId);
      const hook = await own(userId, id);
      const delivery = await db
        .selectFrom('webhook_deliveries')
        .select(['event_id', 'type', 'body'])
        .where('id', '=', deliveryId)
        .where('webhook_id', '=', hook.id)
        .executeTakeFirst();
      if (!delivery) throw notFound('Delivery');
      await db.transaction().execute((trx) =>
        queue(trx, [
          {
            key: `webhook:${hook.id}:${delivery.event_id}:again:${crypto.randomUUID()}`,
            webhookId: hook.id,
            eventId: delivery.event_id,
            type: delivery.type as WebhookEventType,
            body: delivery.body,
            manual: true,
          },
        ]),
      );
      jobs.wake();
      return { eventId: delivery.event_id };
    },
  };
}

/** The guard refused the address the name resolved to (at send time: DNS may have changed since). */
const blocked = (error: unknown) =>
  error instanceof BlockedAddressError ||
  (error instanceof Error && (error as Error & { cause?: unknown }).cause instanceof BlockedAddressError);

/** fetch's 'fetch failed' says little: the cause (refused, not found, the guard's words) says more. */
function causeOf(error: Error): string {
  const cause = (error as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : error.message;
}

export type WebhookService = ReturnType<typeof createWebhookService>;
