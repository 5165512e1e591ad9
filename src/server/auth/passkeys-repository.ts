import type { Kysely } from 'kysely';
import type { Database, PasskeyRow, UserRow, WebauthnChallengesTable } from '../db/schema';
import { toIso } from '../db/values';

/** Queries for passkeys and WebAuthn challenges; every passkey query but the sign-in lookup is scoped to its owner. */
export function createPasskeyRepository(db: Kysely<Database>) {
  return {
    list: (userId: number): Promise<PasskeyRow[]> =>
      db
        .selectFrom('passkeys')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),

    /** Inserts unless the credential is registered already (to anyone); undefined then. */
    insert: (values: {
      userId: number;
      credentialId: string;
      publicKey: string;
      counter: number;
      transports: string[];
      userHandle: string;
      name: string;
      createdAt: string;
    }): Promise<PasskeyRow | undefined> =>
      db
        .insertInto('passkeys')
        .values({
          user_id: values.userId,
          credential_id: values.credentialId,
          public_key: values.publicKey,
          counter: values.counter,
          transports: JSON.stringify(values.transports),
          user_handle: values.userHandle,
          name: values.name,
          created_at: values.createdAt,
          last_used_at: null,
        })
        .onConflict((oc) => oc.column('credential_id').doNothing())
        .returningAll()
        .executeTakeFirst(),

    rename: (userId: number, id: number, name: string): Promise<PasskeyRow | undefined> =>
      db
        .updateTable('passkeys')
        .set({ name })
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst(),

    /** True when the user had a passkey with this id. */
    remove: async (userId: number, id: number): Promise<boolean> => {
      const result = await db
        .deleteFrom('passkeys')
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The passkey with this credential id and its owner: the sign-in lookup. */
    findByCredentialId: async (
      credentialId: string,
    ): Promise<{ passkey: PasskeyRow; user: UserRow } | undefined> => {
      const row = await db
        .selectFrom('passkeys')
        .innerJoin('users', 'users.id', 'passkeys.user_id')
        .selectAll('users')
        .select([
          'passkeys.id as passkey_id',
          'passkeys.credential_id',
          'passkeys.public_key',
          'passkeys.counter',
          'passkeys.transports',
          'passkeys.user_handle',
          'passkeys.name as passkey_name',
          'passkeys.created_at as passkey_created_at',
          'passkeys.last_used_at as passkey_last_used_at',
        ])
        .where('passkeys.credential_id', '=', credentialId)
        .executeTakeFirst();
      if (!row) return undefined;
      const {
        passkey_id,
        credential_id,
        public_key,
        counter,
        transports,
        user_handle,
        passkey_name,
        passkey_created_at,
        passkey_last_used_at,
        ...user
      } = row;
      return {
        user,
        passkey: {
          id: passkey_id,
          user_id: user.id,
          credential_id,
          public_key,
          counter,
          transports,
          user_handle,
          name: passkey_name,
          created_at: passkey_created_at,
          last_used_at: passkey_last_used_at,
        },
      };
    },

    /**
     * Records a sign-in. The counter only moves forward (0 stays 0 for authenticators that keep
     * none): false when another sign-in got there first with the same or a later count, which only
     * a cloned authenticator would produce.
     */
    recordUse: async (id: number, counter: number, at: string): Promise<boolean> => {
      let query = db.updateTable('passkeys').set({ counter, last_used_at: at }).where('id', '=', id);
      if (counter > 0) query = query.where('counter', '<', counter);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** The user handle the user's passkeys were made with, if they have any. */
    userHandle: async (userId: number): Promise<string | undefined> =>
      (
        await db
          .selectFrom('passkeys')
          .select('user_handle')
          .where('user_id', '=', userId)
          .orderBy('id')
          .executeTakeFirst()
      )?.user_handle,

    /** Stores a challenge, and drops the expired ones, which nobody can use any more. */
    saveChallenge: async (challenge: {
      challengeHash: string;
      purpose: WebauthnChallengesTable['purpose'];
      userId: number | null;
      userHandle: string | null;
      createdAt: string;
      expiresAt: string;
    }): Promise<void> => {
      await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', challenge.createdAt).execute();
      await db
        .insertInto('webauthn_challenges')
        .values({
          challenge_hash: challenge.challengeHash,
          purpose: challenge.purpose,
          user_id: challenge.userId,
          user_handle: challenge.userHandle,
          created_at: challenge.createdAt,
          expires_at: challenge.expiresAt,
        })
        .execute();
    },

    /**
     * Takes a challenge for good: of two uses, only one deletes the row. Undefined when there is no
     * such challenge for this purpose (and user), or it has expired.
     */
    consumeChallenge: async (
      challengeHash: string,
      purpose: WebauthnChallengesTable['purpose'],
      userId: number | null,
    ): Promise<{ userHandle: string | null } | undefined> => {
      let query = db
        .deleteFrom('webauthn_challenges')
        .where('challenge_hash', '=', challengeHash)
        .where('purpose', '=', purpose);
      query = userId === null ? query.where('user_id', 'is', null) : query.where('user_id', '=', userId);
      const row = await query.returning(['user_handle', 'expires_at']).executeTakeFirst();
      if (!row || new Date(toIso(row.expires_at)).getTime() <= Date.now()) return undefined;
      return { userHandle: row.user_handle };
    },
  };
}

export type PasskeyRepository = ReturnType<typeof createPasskeyRepository>;
