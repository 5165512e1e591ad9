import type { Kysely } from 'kysely';
import type { Database, UserRow } from '../db/schema';
import { nowIso } from '../db/values';

/** Queries for two-factor sign-in; the rules live in ./two-factor. Works on the database or a transaction. */
export function createTwoFactorRepository(db: Kysely<Database>) {
  return {
    /** Stores a secret being set up; false when two-factor sign-in is already on. */
    setPendingSecret: async (userId: number, secret: string): Promise<boolean> => {
      const result = await db
        .updateTable('users')
        .set({ two_factor_secret: secret, two_factor_last_step: null, updated_at: nowIso() })
        .where('id', '=', userId)
        .where('two_factor_enabled', '=', false)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * Puts the secret being set up in force, with `step` as the last one used; false when it is no
     * longer the one being set up (on already, or replaced by a newer setup meanwhile).
     */
    enable: async (userId: number, secret: string, step: number): Promise<boolean> => {
      const result = await db
        .updateTable('users')
        .set({ two_factor_enabled: true, two_factor_last_step: step, updated_at: nowIso() })
        .where('id', '=', userId)
        .where('two_factor_enabled', '=', false)
        .where('two_factor_secret', '=', secret)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Turns it off (or drops a setup never finished) and forgets the secret, codes and pending sign-ins. */
    disable: async (userId: number): Promise<void> => {
      await db
        .updateTable('users')
        .set({
          two_factor_enabled: false,
          two_factor_secret: null,
          two_factor_last_step: null,
          updated_at: nowIso(),
        })
        .where('id', '=', userId)
        .execute();
      await db.deleteFrom('two_factor_recovery_codes').where('user_id', '=', userId).execute();
      await db.deleteFrom('two_factor_challenges').where('user_id', '=', userId).execute();
    },

    /**
     * Records `step` as used, if it is later than the last one used. One conditional update, so of two
     * instances seeing the same code at once, only one accepts it.
     */
    claimStep: async (userId: number, step: number): Promise<boolean> => {
      const result = await db
        .updateTable('users')
        .set({ two_factor_last_step: step })
        .where('id', '=', userId)
        .where((eb) => eb.or([eb('two_factor_last_step', 'is', null), eb('two_factor_last_step', '<', step)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    replaceRecoveryCodes: async (userId: number, codeHashes: string[]): Promise<void> => {
      await db.deleteFrom('two_factor_recovery_codes').where('user_id', '=', userId).execute();
      const createdAt = nowIso();
      await db
        .insertInto('two_factor_recovery_codes')
        .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: createdAt })))
        .execute();
    },

    /** Deletes the code: true when it was there, so each is used once even by two requests at once. */
    spendRecoveryCode: async (userId: number, codeHash: string): Promise<boolean> => {
      const result = await db
        .deleteFrom('two_factor_recovery_codes')
        .where('user_id', '=', userId)
        .where('code_hash', '=', codeHash)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    countRecoveryCodes: async (userId: number): Promise<number> => {
      const row = await db
        .selectFrom('two_factor_recovery_codes')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** A pending second step; the user's expired ones are cleared on the way. */
    insertChallenge: async (values: {
      idHash: string;
      userId: number;
      createdAt: string;
      expiresAt: string;
    }): Promise<void> => {
      await db
        .deleteFrom('two_factor_challenges')
        .where('user_id', '=', values.userId)
        .where('expires_at', '<=', values.createdAt)
        .execute();
      await db
        .insertInto('two_factor_challenges')
        .values({
          id_hash: values.idHash,
          user_id: values.userId,
          created_at: values.createdAt,
          expires_at: values.expiresAt,
        })
        .execute();
    },

    findChallenge: async (
      idHash: string,
    ): Promise<{ user: UserRow; expiresAt: Date | string } | undefined> => {
      const row = await db
        .selectFrom('two_factor_challenges')
        .innerJoin('users', 'users.id', 'two_factor_challenges.user_id')
        .selectAll('users')
        .select('two_factor_challenges.expires_at as challenge_expires_at')
        .where('two_factor_challenges.id_hash', '=', idHash)
        .executeTakeFirst();
      if (!row) return undefined;
      const { challenge_expires_at, ...user } = row;
      return { user, expiresAt: challenge_expires_at };
    },

    /** Deletes the challenge: true for the one request that took it. */
    takeChallenge: async (idHash: string): Promise<boolean> => {
      const result = await db
        .deleteFrom('two_factor_challenges')
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type TwoFactorRepository = ReturnType<typeof createTwoFactorRepository>;
