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

    /** The user's active tasks that have a due date, in list order. */
    dueTasks: (userId: number) =>
      db
        .selectFrom('tasks')
        .select(['id', 'title', 'description', 'due_date', 'updated_at'])
        .where('user_id', '=', userId)
        .where('archived', '=', false)
        .where('due_date', 'is not', null)
        .orderBy('position')
        .orderBy('id')
        .execute(),
  };
}
