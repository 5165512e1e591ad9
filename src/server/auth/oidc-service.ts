import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { OidcErrorCode } from '../../common/sign-in';
import { createAdminRepository } from '../admin/repository';
import { firstFreeUsername, usernameStem } from '../admin/service';
import type { Database, UserRow } from '../db/schema';
import { nowIso, toBool } from '../db/values';
import type { OidcPerson } from './oidc-client';
import { createOidcIdentityRepository } from './oidc-repository';
import { generatePassword, hashPassword } from './passwords';
import { createUserRepository, type UserRepository } from './repository';

/** A sign-in through the provider that must not go on; the login screen shows the code's words. */
export class OidcSignInError extends Error {
  constructor(readonly code: OidcErrorCode) {
    super(code);
  }
}

export interface OidcSignInDeps {
  db: Kysely<Database>;
  users: UserRepository;
  /** OIDC_AUTO_CREATE */
  autoCreate: boolean;
  /** OIDC_NAME, for the audit log of accounts it creates. */
  providerName: string;
  logger: FastifyBaseLogger;
}

/**
 * Who a person the provider vouched for is in Tasklane (decision 016): the user linked to their
 * subject; else, on a first sign-in, the active account with their verified e-mail, which is then
 * linked; else, with OIDC_AUTO_CREATE, a new regular account. An unverified e-mail never matches
 * nor creates anything; a suspended account stays out.
 */
export function createOidcSignIn({ db, users, autoCreate, providerName, logger }: OidcSignInDeps) {
  const identities = createOidcIdentityRepository(db);

  const admit = (user: UserRow): UserRow => {
    if (toBool(user.is_suspended)) throw new OidcSignInError('suspended');
    return user;
  };

  /** A regular account named after preferred_username or the e-mail's local part, with a password nobody knows. */
  async function createAccount(person: OidcPerson & { email: string }): Promise<UserRow> {
    // jane.doe+work@example.com suggests janedoe.
    const localPart = person.email.split('@')[0]?.split('+')[0] ?? '';
    const stem = usernameStem(person.preferredUsername ?? localPart);
    const passwordHash = await hashPassword(generatePassword(32));
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const taken = await createAdminRepository(db).usernamesStartingWith(stem);
      const created = await db.transaction().execute(async (trx) => {
        const user = await createUserRepository(trx).insertIfAbsent({
          username: firstFreeUsername(stem, taken),
          first_name: person.name ?? person.preferredUsername ?? stem,
          email: person.email,
          password_hash: passwordHash,
          is_admin: false,
          is_suspended: false,
          is_bootstrap: false,
        });
        if (!user) return undefined;
        await createOidcIdentityRepository(trx).link(user.id, person.issuer, person.subject);
        await trx
          .insertInto('audit_log')
          .values({
            actor_id: null,
            actor_username: `single sign-on (${providerName})`,
            action: 'user.create',
            target_user_id: user.id,
            target_label: user.username,
            created_at: nowIso(),
          })
          .execute();
        return user;
      });
      if (created) {
        logger.info({ username: created.username }, 'single sign-on created an account');
        return created;
      }
      // The e-mail was taken meanwhile (a second tab), or the username: match, or try the next name.
      const owner = await users.findByEmail(person.email);
      if (owner) return linkByEmail(owner, person);
    }
    throw new OidcSignInError('failed');
  }

  async function linkByEmail(user: UserRow, person: OidcPerson): Promise<UserRow> {
    admit(user);
    if (await identities.linkedToOtherSubject(user.id, person.issuer, person.subject)) {
      throw new OidcSignInError('linkedElsewhere');
    }
    await identities.link(user.id, person.issuer, person.subject);
    // A concurrent first sign-in may have linked the identity to another account: that link holds.
    const linked = await identities.findUser(person.issuer, person.subject);
    if (linked?.id !== user.id) throw new OidcSignInError('failed');
    return user;
  }

  return {
    /** The user to sign in as; throws an OidcSignInError saying why not. */
    async resolve(person: OidcPerson): Promise<UserRow> {
      const linked = await identities.findUser(person.issuer, person.subject);
      if (linked) {
        admit(linked);
        await identities.touch(person.issuer, person.subject);
        return linked;
      }
      if (!person.email || !person.emailVerified) throw new OidcSignInError('unverifiedEmail');
      const byEmail = await users.findByEmail(person.email);
      if (byEmail) return linkByEmail(byEmail, person);
      if (!autoCreate) throw new OidcSignInError('noAccount');
      return createAccount({ ...person, email: person.email });
    },
  };
}

export type OidcSignIn = ReturnType<typeof createOidcSignIn>;
