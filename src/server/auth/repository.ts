import { type Kysely, sql } from 'kysely';
import type { Database, NewUser, UserRow } from '../db/schema';
import { nowIso } from '../db/values';
import { insertInbox } from '../projects/repository';

/** Runs `work` in the caller's transaction, or in one of its own. */
const inTransaction = <T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> =>
  db.isTransaction ? work(db) : db.transaction().execute(work);

export function createUserRepository(db: Kysely<Database>) {
  return {
    findById: (id: number): Promise<UserRow | undefined> =>
      db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),

    findByUsername: (username: string): Promise<UserRow | undefined> =>
      db
        .selectFrom('users')
        .selectAll()
        .where(sql`lower(username)`, '=', username.toLowerCase())
        .executeTakeFirst(),

    findByEmail: (email: string): Promise<UserRow | undefined> =>
      db
        .selectFrom('users')
        .selectAll()
        .where(sql`lower(email)`, '=', email.toLowerCase())
        .executeTakeFirst(),

    anyAdmin: async (): Promise<boolean> =>
      (await db.selectFrom('users').select('id').where('is_admin', '=', true).executeTakeFirst()) !==
      undefined,

    /** Every user is inserted here, with their Inbox (issue 21), in one transaction. */
    insert: (user: Omit<NewUser, 'created_at' | 'updated_at'>): Promise<UserRow> =>
      inTransaction(db, async (trx) => {
        const now = nowIso();
        const created = await trx
          .insertInto('users')
          .values({ ...user, created_at: now, updated_at: now })
          .returningAll()
          .executeTakeFirstOrThrow();
        await insertInbox(trx, created.id, now);
        return created;
      }),

    /** Inserts unless the username or e-mail is taken; undefined then. Race-free across instances. */
    insertIfAbsent: (user: Omit<NewUser, 'created_at' | 'updated_at'>): Promise<UserRow | undefined> =>
      inTransaction(db, async (trx) => {
        const now = nowIso();
        const created = await trx
          .insertInto('users')
          .values({ ...user, created_at: now, updated_at: now })
          .onConflict((oc) => oc.doNothing())
          .returningAll()
          .executeTakeFirst();
        if (created) await insertInbox(trx, created.id, now);
        return created;
      }),

    setPasswordHash: async (id: number, passwordHash: string): Promise<void> => {
      await db
        .updateTable('users')
        .set({ password_hash: passwordHash, updated_at: nowIso() })
        .where('id', '=', id)
        .execute();
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
