import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import { dueAt } from '../../common/due';
import {
  type CreateReminderBody,
  REMINDER_LIMITS,
  REMINDER_MESSAGES,
  type Reminder,
} from '../../common/notifications';
import type { Access } from '../access';
import type { Database, TaskRow } from '../db/schema';
import { toBool, toIso, toIsoOrNull } from '../db/values';
import { badRequest, HttpError, notFound } from '../http/errors';
import type { JobQueue, NewJob } from '../jobs/queue';
import type { NotificationEvent, NotificationService } from '../notifications/service';
import type { Clock } from '../time/clock';

export interface ReminderServiceDeps {
  db: Kysely<Database>;
  access: Access;
  jobs: JobQueue;
  notifications: NotificationService;
  clock: Clock;
  logger: FastifyBaseLogger;
}

const reminderNotFound = () => notFound('Reminder');

/** The task's due date-time, when it has a due time (src/common/due.ts: read in the zone it was set in). */
export function dueAtOf(task: TaskRow): Date | null {
  return dueAt({ dueDate: task.due_date, dueTime: task.due_time, dueTimeZone: task.due_time_zone });
}

type ReminderRow = {
  id: number;
  task_id: number;
  at: Date | string | null;
  relative_minutes: number | null;
  fired_at: Date | string | null;
};

/** When a reminder fires for the task as it is now, and which occurrence that is; null: it does not. */
function nextFiring(reminder: ReminderRow, task: TaskRow): { fireAt: Date; occurrence: string } | null {
  if (reminder.at !== null) {
    const at = toIso(reminder.at);
    return { fireAt: new Date(at), occurrence: at };
  }
  const due = dueAtOf(task);
  if (!due || reminder.relative_minutes === null) return null;
  return {
    fireAt: new Date(due.getTime() - reminder.relative_minutes * 60_000),
    occurrence: due.toISOString(),
  };
}

const toReminder = (row: ReminderRow): Reminder => ({
  id: row.id,
  at: toIsoOrNull(row.at),
  relativeMinutes: row.relative_minutes,
  firedAt: toIsoOrNull(row.fired_at),
});

/**
 * Reminders (issue 22): each becomes a job at the moment it fires (`remind:<id>:<occurrence>`),
 * for the task's current due date-time; when that moves (an edit, a recurring task rolling on),
 * `scheduleTask` enqueues the new occurrence and the old job finds itself stale and does nothing.
 * Firing records a `reminder` notification per recipient and its deliveries in one transaction
 * with the job's completion.
 */
export function createReminderService({
  db,
  access,
  jobs,
  notifications,
  clock,
  logger,
}: ReminderServiceDeps) {
  const user = (id: number) => ({ id });

  const remindersOf = (taskId: number) =>
    db
      .selectFrom('reminders')
      .select(['id', 'task_id', 'at', 'relative_minutes', 'fired_at'])
      .where('task_id', '=', taskId)
      .orderBy('id')
      .execute();

  /** Enqueues each reminder's next firing for the task as it is now (a key already there is skipped). */
  async function scheduleTask(taskId: number): Promise<void> {
    const reminders = await remindersOf(taskId);
    if (reminders.length === 0) return;
    const task = await db.selectFrom('tasks').selectAll().where('id', '=', taskId).executeTakeFirst();
    if (!task || toBool(task.archived)) return;
    const due: NewJob[] = [];
    for (const reminder of reminders) {
      const next = nextFiring(reminder, task);
      // Already fired for this occurrence (its job may since have been pruned, decision 034).
      if (
        !next ||
        (reminder.fired_at !== null && next.fireAt.getTime() <= Date.parse(toIso(reminder.fired_at)))
      ) {
        continue;
      }
      due.push({
        key: `remind:${reminder.id}:${next.occurrence}`,
        kind: 'remind',
        payload: { reminderId: reminder.id, occurrence: next.occurrence },
        runAt: next.fireAt,
      });
    }
    if ((await jobs.enqueue(due)) > 0) jobs.wake();
  }

  jobs.register('remind', async (job, run) => {
    const { reminderId, occurrence } = job.payload as { reminderId: number; occurrence: string };
    const reminder = await db
      .selectFrom('reminders')
      .select(['id', 'task_id', 'at', 'relative_minutes', 'fired_at'])
      .where('id', '=', reminderId)
      .executeTakeFirst();
    if (!reminder) return;
    const task = await db
      .selectFrom('tasks')
      .selectAll()
      .where('id', '=', reminder.task_id)
      .executeTakeFirst();
    // Deleted, done, or moved on to another occurrence since this job was enqueued.
    if (!task || toBool(task.archived) || nextFiring(reminder, task)?.occurrence !== occurrence) return;
    const assignees = (
      await db.selectFrom('task_assignees').select('user_id').where('task_id', '=', task.id).execute()
    ).map((row) => row.user_id);
    const recipients = assignees.length > 0 ? assignees : [task.user_id];
    const events: NotificationEvent[] = recipients.map((userId) => ({
      userId,
      kind: 'reminder',
      taskId: task.id,
      projectId: task.project_id,
      title: `Reminder: ${task.title}`,
      body: task.due_date
        ? `Due ${task.due_date}${task.due_time ? ` ${task.due_time} (${task.due_time_zone ?? 'UTC'})` : ''}`
        : task.title,
      // One per reminder, occurrence, person and channel: never enqueued twice.
      deliveryKey: (channel) => `reminder:${reminder.id}:${occurrence}:${userId}:${channel}`,
    }));
    // Only people who can still see the task (prepare asks the access module, outside the transaction).
    const prepared = await notifications.prepare(events);
    const told =
      (await run.complete(async (trx) => {
        await trx
          .updateTable('reminders')
          .set({ fired_at: clock.now().toISOString() })
          .where('id', '=', reminder.id)
          .execute();
        return notifications.write(trx, prepared);
      })) ?? [];
    await notifications.announce(told);
  });

  /**
   * The limit of reminders per task counts those still to fire: at the limit, the task's oldest
   * fixed reminders that have fired (done for good: they keep nothing to do) give way to the new
   * one, so 'Snooze 1 hour' works every time and the list stays at most the limit long. A relative
   * reminder fires again for the next due date-time, so it never gives way. 400 when none can.
   */
  async function makeRoom(trx: Transaction<Database>, taskId: number): Promise<void> {
    const rows = await trx
      .selectFrom('reminders')
      .select(['id', 'at', 'fired_at'])
      .where('task_id', '=', taskId)
      .orderBy('id')
      .execute();
    const excess = rows.length - REMINDER_LIMITS.perTask + 1;
    if (excess <= 0) return;
    const done = rows.filter((row) => row.at !== null && row.fired_at !== null).slice(0, excess);
    if (done.length < excess) throw badRequest(REMINDER_MESSAGES.tooMany);
    await trx
      .deleteFrom('reminders')
      .where(
        'id',
        'in',
        done.map((row) => row.id),
      )
      .execute();
  }

  return {
    scheduleTask,

    /** After a task changed: its reminders follow its due date-time; never throws. */
    async taskChanged(taskId: number): Promise<void> {
      try {
        await scheduleTask(taskId);
      } catch (error) {
        logger.error({ err: error, taskId }, 'reminders not rescheduled');
      }
    },

    async list(userId: number, taskId: number): Promise<Reminder[]> {
      const { task } = await access.requireTask(user(userId), taskId, 'editor');
      return (await remindersOf(task.id)).map(toReminder);
    },

    async create(userId: number, taskId: number, body: CreateReminderBody): Promise<Reminder> {
      const { task } = await access.requireTask(user(userId), taskId, 'editor');
      if (body.relativeMinutes !== undefined && !dueAtOf(task))
        throw badRequest(REMINDER_MESSAGES.needsDueTime);
      const row = await db.transaction().execute(async (trx) => {
        await makeRoom(trx, task.id);
        return trx
          .insertInto('reminders')
          .values({
            task_id: task.id,
            at: body.at ?? null,
            relative_minutes: body.relativeMinutes ?? null,
            created_by: userId,
            created_at: clock.now().toISOString(),
          })
          .returning(['id', 'task_id', 'at', 'relative_minutes', 'fired_at'])
          .executeTakeFirstOrThrow();
      });
      await scheduleTask(task.id);
      return toReminder(row);
    },

    async remove(userId: number, id: number): Promise<void> {
      const reminder = await db
        .selectFrom('reminders')
        .select(['id', 'task_id'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!reminder) throw reminderNotFound();
      try {
        await access.requireTask(user(userId), reminder.task_id, 'editor');
      } catch (error) {
        throw error instanceof HttpError && error.statusCode === 404 ? reminderNotFound() : error;
      }
      // Its pending job finds it gone and does nothing.
      await db.deleteFrom('reminders').where('id', '=', id).execute();
    },
  };
}

export type ReminderService = ReturnType<typeof createReminderService>;
