import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** Queries of the calendar feed; the secret is never here, only its hash. */
export function createCalendarRepository(db: Kysely<Database>) {
  return {
    find: (userId: number) =>
      db.selectFrom('calendar_feeds').selectAll().where('user_id', '=', userId).executeTakeFirst(),

    /** The one feed of the user, replacing any earlier one (whose address stops working). */
    replace: (userId: number, secretHash: string, createdAt: string) =>
      db.transaction().execute(async (trx) => {
        await trx.deleteFrom('calendar_feeds').where('user_id', '=', userId).execute();
        await trx
          .insertInto('calendar_feeds')
          .values({ user_id: userId, secret_hash: secretHash, created_at: createdAt })
          .execute();
      }),

    remove: (userId: number) => db.deleteFrom('calendar_feeds').where('user_id', '=', userId).execute(),

    /** The reminders of these tasks (issue 22): each becomes a VALARM of its task's event. */
    remindersOf: async (taskIds: number[]) =>
      taskIds.length === 0
        ? []
        : db
            .selectFrom('reminders')
            .select(['task_id', 'at', 'relative_minutes'])
            .where('task_id', 'in', taskIds)
            .orderBy('id')
            .execute(),

    /** The owner of a feed, unless they are suspended. */
    ownerOf: async (secretHash: string): Promise<number | undefined> =>
      (
        await db
          .selectFrom('calendar_feeds')
          .innerJoin('users', 'users.id', 'calendar_feeds.user_id')
          .select('users.id')
          .where('calendar_feeds.secret_hash', '=', secretHash)
          .where('users.is_suspended', '=', false)
          .executeTakeFirst()
      )?.id,

    /**
     * The active tasks with a due date, among the projects given, that are in the Inbox or assigned
     * to `assigneeId`; in list order.
     */
    dueTasks: ({
      projectIds,
      inboxId,
      assigneeId,
    }: {
      projectIds: number[];
      inboxId: number;
      assigneeId: number;
    }) =>
      db
        .selectFrom('tasks')
        .select([
          'id',
          'title',
          'description',
          'due_date',
          'updated_at',
          'due_time',
          'due_time_zone',
          'recurrence',
          'parent_id',
        ])
        .where('project_id', 'in', projectIds)
        .where((eb) =>
          eb.or([
            eb('project_id', '=', inboxId),
            eb.exists(
              eb
                .selectFrom('task_assignees')
                .select('task_assignees.task_id')
                .whereRef('task_assignees.task_id', '=', 'tasks.id')
                .where('task_assignees.user_id', '=', assigneeId),
            ),
          ]),
        )
        .where('archived', '=', false)
        .where('due_date', 'is not', null)
        .orderBy('project_id')
        .orderBy('position')
        .orderBy('id')
        .execute(),
  };
}
