import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import { dateInZone, instantInZone } from '../../common/due';
import {
  type Channel,
  DEFAULT_NOTIFICATION_SETTINGS,
  DIGEST_LOCAL_TIME,
  type MarkReadBody,
  NOTIFICATION_KINDS,
  type Notification,
  type NotificationKind,
  type NotificationSettings,
  type NotificationsLiveEvent,
} from '../../common/notifications';
import { isProjectRole } from '../../common/projects';
import type { Access } from '../access';
import { userTimeZone } from '../auth/users';
import type { Database } from '../db/schema';
import { toIso, toIsoOrNull } from '../db/values';
import type { JobQueue, NewJob } from '../jobs/queue';
import type { LiveBus } from '../live/bus';
import type { Mailer } from '../mail/mailer';
import { digestMail, notificationMail, projectSharedMail } from '../mail/templates';
import type { Clock } from '../time/clock';
import type { ChannelSender, Delivery } from './channels';

/** Something that happened that a person is told about (one record per person and event). */
export interface NotificationEvent {
  userId: number;
  kind: NotificationKind;
  taskId?: number | null;
  projectId?: number | null;
  /** Whose action it was: never told about it themself. */
  actorId?: number | null;
  title: string;
  body: string;
  data?: Record<string, unknown>;
  /** The delivery job's key for a channel; `notification:<id>:<channel>` when absent. */
  deliveryKey?: (channel: Channel) => string;
}

/** Events checked against visibility and settings, ready to be written in a transaction. */
export interface PreparedEvent extends NotificationEvent {
  channels: Channel[];
}

export interface NotificationServiceDeps {
  db: Kysely<Database>;
  access: Access;
  live: Pick<LiveBus, 'message' | 'publish'>;
  jobs: JobQueue;
  mailer: Mailer;
  appUrl: string;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** An e-mail send that has not answered by then is a failed try (inside the job's lease). */
  sendTimeoutMs?: number;
  /** A person's zone until they or their browser set one (issue 28): their digest's 08:00. */
  defaultTimeZone: string;
}

/** Which setting of a channel governs a kind; undefined: that channel never carries it. */
function settingFor(channel: Channel, kind: NotificationKind): string | undefined {
  if (kind === 'due_today') return channel === 'email' ? 'digest' : undefined;
  return kind;
}

const parseSettings = (json: string | undefined): NotificationSettings => {
  if (!json) return DEFAULT_NOTIFICATION_SETTINGS;
  try {
    const saved = JSON.parse(json) as Partial<NotificationSettings>;
    return {
      email: { ...DEFAULT_NOTIFICATION_SETTINGS.email, ...saved.email },
      push: { ...DEFAULT_NOTIFICATION_SETTINGS.push, ...saved.push },
    };
  } catch {
    return DEFAULT_NOTIFICATION_SETTINGS;
  }
};

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Notifications (issue 22): one record per person and event, its deliveries as jobs per channel
 * (./channels.ts), the unread count live on the event stream, and the daily digest.
 */
export function createNotificationService(deps: NotificationServiceDeps) {
  const { db, access, live, jobs, mailer, appUrl, clock, logger, sendTimeoutMs = 60_000 } = deps;
  const senders = new Map<Channel, ChannelSender>();

  const emailChannel: ChannelSender = {
    channel: 'email',
    async reaches(userId) {
      const row = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
      return Boolean(row?.email);
    },
    async send({ key, notification, recipient, url }) {
      if (!recipient.email) return;
      const messageId = `${key.replace(/[^A-Za-z0-9.:_-]/g, '-')}@tasklane`;
      const data = notification.data;
      const message =
        notification.kind === 'shared' && typeof data.projectName === 'string' && isProjectRole(data.role)
          ? {
              ...projectSharedMail(
                recipient.email,
                recipient.firstName,
                notification.actorName ?? 'Someone',
                data.projectName,
                data.role,
                url,
                appUrl,
              ),
              messageId,
            }
          : notification.kind === 'due_today' && Array.isArray(data.tasks)
            ? digestMail(
                recipient.email,
                recipient.firstName,
                notification.title,
                (data.tasks as Array<{ id: number; title: string; dueDate: string; overdue: boolean }>).map(
                  (task) => ({ ...task, link: `${appUrl}/?task=${task.id}` }),
                ),
                appUrl,
                messageId,
              )
            : notificationMail(
                recipient.email,
                recipient.firstName,
                notification.title,
                notification.body,
                url,
                appUrl,
                messageId,
              );
      await withTimeout(mailer.send(message), sendTimeoutMs, 'the mail server');
    },
  };
  senders.set('email', emailChannel);

  async function settingsOf(userIds: number[]): Promise<Map<number, NotificationSettings>> {
    if (userIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('notification_settings')
      .select(['user_id', 'settings'])
      .where('user_id', 'in', userIds)
      .execute();
    const saved = new Map(rows.map((row) => [row.user_id, parseSettings(row.settings)]));
    return new Map(userIds.map((id) => [id, saved.get(id) ?? DEFAULT_NOTIFICATION_SETTINGS]));
  }

  /**
   * Drops what nobody should get (one's own action; a task or project the person cannot see) and
   * settles each person's channels. Reads only: call it before a transaction, never inside one.
   */
  async function prepare(events: NotificationEvent[]): Promise<PreparedEvent[]> {
    const wanted = events.filter((event) => event.userId !== event.actorId);
    const members = new Map<number, Set<number>>();
    for (const projectId of new Set(wanted.map((event) => event.projectId).filter((id) => id != null))) {
      members.set(
        projectId,
        new Set((await access.projectMembers(projectId)).map((member) => member.userId)),
      );
    }
    const visible = wanted.filter(
      (event) => event.projectId == null || members.get(event.projectId)?.has(event.userId),
    );
    const settings = await settingsOf([...new Set(visible.map((event) => event.userId))]);
    const reach = new Map<string, boolean>();
    const reaches = async (channel: Channel, userId: number) => {
      const key = `${channel}:${userId}`;
      if (!reach.has(key)) reach.set(key, (await senders.get(channel)?.reaches(userId)) ?? false);
      return reach.get(key)!;
    };
    const prepared: PreparedEvent[] = [];
    for (const event of visible) {
      const channels: Channel[] = [];
      const mine = settings.get(event.userId)!;
      for (const channel of ['email', 'push'] as const) {
        const setting = settingFor(channel, event.kind);
        const on = setting !== undefined && (mine[channel] as Record<string, boolean>)[setting] === true;
        if (on && senders.has(channel) && (await reaches(channel, event.userId))) channels.push(channel);
      }
      prepared.push({ ...event, channels });
    }
    return prepared;
  }

  /** Writes the records and their delivery jobs in the caller's transaction; answers who was told. */
  async function write(trx: Kysely<Database>, prepared: PreparedEvent[]): Promise<number[]> {
    if (prepared.length === 0) return [];
    const now = clock.now().toISOString();
    const deliveries: NewJob[] = [];
    for (const event of prepared) {
      const { id } = await trx
        .insertInto('notifications')
        .values({
          user_id: event.userId,
          kind: event.kind,
          task_id: event.taskId ?? null,
          project_id: event.projectId ?? null,
          actor_id: event.actorId ?? null,
          title: event.title,
          body: event.body,
          data: event.data ? JSON.stringify(event.data) : null,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const channel of event.channels) {
        deliveries.push({
          key: event.deliveryKey?.(channel) ?? `notification:${id}:${channel}`,
          kind: 'deliver',
          payload: { notificationId: id, channel },
        });
      }
    }
    await jobs.enqueue(deliveries, trx);
    return [...new Set(prepared.map((event) => event.userId))];
  }

  async function unreadCount(userId: number): Promise<number> {
    const row = await db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('user_id', '=', userId)
      .where('read_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /** After the commit: each person's new unread count on their streams, and the deliveries started. */
  async function announce(userIds: number[]): Promise<void> {
    for (const userId of new Set(userIds)) {
      const event: NotificationsLiveEvent = { type: 'notifications', unread: await unreadCount(userId) };
      live.message(userId, event);
    }
    if (userIds.length > 0) jobs.wake();
  }

  /** Record, deliveries and live count for events whose cause has committed; never throws. */
  async function notify(events: NotificationEvent[]): Promise<void> {
    if (events.length === 0) return;
    try {
      const prepared = await prepare(events);
      const told = await db.transaction().execute((trx) => write(trx, prepared));
      await announce(told);
    } catch (error) {
      logger.error(
        { err: error, kinds: [...new Set(events.map((e) => e.kind))] },
        'notifications not recorded',
      );
    }
  }

  jobs.register('deliver', async (job, run) => {
    const { notificationId, channel } = job.payload as { notificationId: number; channel: Channel };
    const row = await db
      .selectFrom('notifications')
      .innerJoin('users', 'users.id', 'notifications.user_id')
      .leftJoin('users as actors', 'actors.id', 'notifications.actor_id')
      .selectAll('notifications')
      .select(['users.email', 'users.first_name', 'actors.first_name as actor_name'])
      .where('notifications.id', '=', notificationId)
      .executeTakeFirst();
    const sender = senders.get(channel);
    // Gone with its task, project or person; or a channel this instance does not have (yet).
    if (!row) return;
    if (!sender) throw new Error(`no ${channel} channel on this instance`);
    const delivery: Delivery = {
      key: job.key,
      attempt: job.attempt,
      notification: {
        id: row.id,
        kind: row.kind as NotificationKind,
        taskId: row.task_id,
        projectId: row.project_id,
        actorName: row.actor_name,
        title: row.title,
        body: row.body,
        data: row.data ? (JSON.parse(row.data) as Record<string, unknown>) : {},
      },
      recipient: { id: row.user_id, email: row.email, firstName: row.first_name },
      url:
        row.task_id !== null
          ? `${appUrl}/?task=${row.task_id}`
          : row.project_id !== null
            ? `${appUrl}/?project=${row.project_id}`
            : appUrl,
    };
    await sender.send(delivery);
    logger.info({ job: job.key, channel, to: row.user_id }, 'notification delivered');
    // Done in its own transaction: the job's 'done' is the record that it was sent.
    await run.complete();
  });

  // The daily digest: at 08:00 local, for each person with the e-mail digest on.
  async function sweepDigests(): Promise<void> {
    const rows = await db
      .selectFrom('notification_settings')
      .innerJoin('users', 'users.id', 'notification_settings.user_id')
      .select(['users.id', 'users.time_zone'])
      .where('notification_settings.email_digest', '=', true)
      .where('users.is_suspended', '=', false)
      .execute();
    if (rows.length === 0) return;
    const now = clock.now();
    const candidates: NewJob[] = [];
    for (const user of rows) {
      const zone = userTimeZone(user.time_zone, deps.defaultTimeZone);
      const date = dateInZone(now, zone);
      const at = instantInZone(date, DIGEST_LOCAL_TIME, zone)!;
      if (at.getTime() > now.getTime()) continue;
      candidates.push({
        key: `digest:${user.id}:${date}`,
        kind: 'digest',
        payload: { userId: user.id, date, zone },
        runAt: at,
      });
    }
    if (candidates.length === 0) return;
    const existing = new Set(
      (
        await db
          .selectFrom('jobs')
          .select('key')
          .where(
            'key',
            'in',
            candidates.map((job) => job.key),
          )
          .execute()
      ).map((row) => row.key),
    );
    await jobs.enqueue(candidates.filter((job) => !existing.has(job.key)));
  }

  jobs.register('digest', async (job, run) => {
    const { userId, date } = job.payload as { userId: number; date: string; zone: string };
    const projectIds = [...(await access.memberships(userId)).keys()];
    if (projectIds.length === 0) return;
    // Due today or before, not done, in a project they are in, and theirs: assigned to them, or
    // made by them and assigned to nobody (decision 035).
    const rows = await db
      .selectFrom('tasks')
      .select(['tasks.id', 'tasks.title', 'tasks.due_date'])
      .where('tasks.project_id', 'in', projectIds)
      .where('tasks.archived', '=', false)
      .where('tasks.due_date', 'is not', null)
      .where('tasks.due_date', '<=', date)
      .where((eb) =>
        eb.or([
          eb.exists(
            eb
              .selectFrom('task_assignees')
              .select('task_assignees.task_id')
              .whereRef('task_assignees.task_id', '=', 'tasks.id')
              .where('task_assignees.user_id', '=', userId),
          ),
          eb.and([
            eb('tasks.user_id', '=', userId),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('task_assignees')
                  .select('task_assignees.task_id')
                  .whereRef('task_assignees.task_id', '=', 'tasks.id'),
              ),
            ),
          ]),
        ]),
      )
      .orderBy('tasks.due_date')
      .orderBy('tasks.id')
      .limit(200)
      .execute();
    if (rows.length === 0) return;
    const tasks = rows.map((row) => ({
      id: row.id,
      title: row.title,
      dueDate: row.due_date!,
      overdue: row.due_date! < date,
    }));
    const overdue = tasks.filter((task) => task.overdue).length;
    const today = tasks.length - overdue;
    const parts = [
      ...(today > 0 ? [`${today} due today`] : []),
      ...(overdue > 0 ? [`${overdue} overdue`] : []),
    ];
    const prepared = await prepare([
      {
        userId,
        kind: 'due_today',
        title: `Your tasks for ${date}: ${parts.join(', ')}`,
        body: tasks.map((task) => `${task.overdue ? 'Overdue' : 'Today'}: ${task.title}`).join('\n'),
        data: { date, tasks },
        deliveryKey: (channel) => `${job.key}:${channel}`,
      },
    ]);
    const told = (await run.complete((trx) => write(trx, prepared))) ?? [];
    await announce(told);
  });

  return {
    /** Adds a channel (push: `createPushChannel(push)` from ./channels). */
    addChannel(sender: ChannelSender) {
      senders.set(sender.channel, sender);
    },
    notify,
    prepare,
    write,
    announce,
    unreadCount,
    sweepDigests,

    async list(userId: number, query: { unread: boolean; limit: number }): Promise<Notification[]> {
      let select = db
        .selectFrom('notifications')
        .leftJoin('users as actors', 'actors.id', 'notifications.actor_id')
        .selectAll('notifications')
        .select('actors.first_name as actor_name')
        .where('notifications.user_id', '=', userId);
      if (query.unread) select = select.where('notifications.read_at', 'is', null);
      const rows = await select.orderBy('notifications.id', 'desc').limit(query.limit).execute();
      // A token limited to some projects reads of those alone (issue 24).
      return rows
        .filter((row) => row.project_id === null || access.reaches(userId, row.project_id))
        .map((row) => ({
          id: row.id,
          kind: (NOTIFICATION_KINDS as readonly string[]).includes(row.kind)
            ? (row.kind as NotificationKind)
            : 'reminder',
          taskId: row.task_id,
          projectId: row.project_id,
          actorName: row.actor_name,
          title: row.title,
          body: row.body,
          createdAt: toIso(row.created_at),
          readAt: toIsoOrNull(row.read_at),
        }));
    },

    async markRead(userId: number, body: MarkReadBody): Promise<{ unread: number }> {
      let update = db
        .updateTable('notifications')
        .set({ read_at: clock.now().toISOString() })
        .where('user_id', '=', userId)
        .where('read_at', 'is', null);
      if (body.ids) {
        if (body.ids.length === 0) return { unread: await unreadCount(userId) };
        update = update.where('id', 'in', body.ids);
      }
      // A token limited to some projects marks those alone, as it lists those alone (issue 24).
      const limit = access.projectLimit(userId);
      if (limit) {
        update = update.where((eb) =>
          eb.or([
            eb('project_id', 'is', null),
            ...(limit.size > 0 ? [eb('project_id', 'in', [...limit])] : []),
          ]),
        );
      }
      await update.execute();
      const unread = await unreadCount(userId);
      live.message(userId, { type: 'notifications', unread } satisfies NotificationsLiveEvent);
      return { unread };
    },

    async settings(userId: number): Promise<NotificationSettings> {
      return (await settingsOf([userId])).get(userId)!;
    },

    async saveSettings(userId: number, settings: NotificationSettings): Promise<NotificationSettings> {
      const values = {
        settings: JSON.stringify(settings),
        email_digest: settings.email.digest,
        updated_at: clock.now().toISOString(),
      };
      await db
        .insertInto('notification_settings')
        .values({ user_id: userId, ...values })
        .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
        .execute();
      return settings;
    },
  };
}

export type NotificationService = ReturnType<typeof createNotificationService>;
export type { Transaction };
