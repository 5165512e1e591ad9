import type { Kysely } from 'kysely';
import type { Database, UserRow } from '../db/schema';
import { nowIso } from '../db/values';

/** Queries on the links between OpenID Connect identities (issuer, subject) and users. */
export function createOidcIdentityRepository(db: Kysely<Database>) {
  return {
    /** The user this identity is linked to, if any. */
    findUser: (issuer: string, subject: string): Promise<UserRow | undefined> =>
      db
        .selectFrom('oidc_identities')
        .innerJoin('users', 'users.id', 'oidc_identities.user_id')
        .selectAll('users')
        .where('oidc_identities.issuer', '=', issuer)
        .where('oidc_identities.subject', '=', subject)
        .executeTakeFirst(),

    /** Whether the user is linked to another person (another subject) at this issuer. */
    linkedToOtherSubject: async (userId: number, issuer: string, subject: string): Promise<boolean> =>
      (await db
        .selectFrom('oidc_identities')
        .select('id')
        .where('user_id', '=', userId)
        .where('issuer', '=', issuer)
        .where('subject', '!=', subject)
        .executeTakeFirst()) !== undefined,

    /** Links the identity to the user; a link made meanwhile (a second tab) is kept as it is. */
    link: async (userId: number, issuer: string, subject: string): Promise<void> => {
      const now = nowIso();
      await db
        .insertInto('oidc_identities')
        .values({ user_id: userId, issuer, subject, created_at: now, last_used_at: now })
        .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
        .execute();
    },

    touch: async (issuer: string, subject: string): Promise<void> => {
      await db
        .updateTable('oidc_identities')
        .set({ last_used_at: nowIso() })
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .execute();
    },
  };
}

export type OidcIdentityRepository = ReturnType<typeof createOidcIdentityRepository>;
