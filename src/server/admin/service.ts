import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { AdminUserListItem, CreateUserBody, CredentialsResponse } from '../../common/admin';
import { PROJECTS_PATH } from '../../common/projects';
import { ARCHIVED_TASKS_PATH, TASKS_PATH } from '../../common/tasks';
import { createRunRepository } from '../agents/runs';
import { generatePassword, hashPassword } from '../auth/passwords';
import { createUserRepository, type UserRepository } from '../auth/repository';
import type { SessionStore } from '../auth/sessions';
import { createTwoFactorRepository } from '../auth/two-factor-repository';
import { toPublicUser } from '../auth/users';
import type { Database, UserRow } from '../db/schema';
import { isUniqueViolation, toBool } from '../db/values';
import type { FileStore } from '../files/store';
import { conflict, forbidden, notFound } from '../http/errors';
import type { LiveBus } from '../live/bus';
import type { Mailer, MailMessage } from '../mail/mailer';
import { accessDeniedMail, credentialsMail, twoFactorResetMail } from '../mail/templates';
import { handOverProjectsOf, removeStoredFiles } from '../projects/service';
import { createAdminRepository, toAccessRequest } from './repository';

export const ADMIN_MESSAGES = {
  bootstrapProtected: 'The built-in administrator account cannot be suspended, reset or deleted.',
  selfProtected: 'You cannot suspend or delete your own account.',
  selfTwoFactor: 'Turn off your own two-factor authentication from Security in the account menu.',
  emailTaken: 'A user with this email already exists.',
  usernameTaken: (username: string) => `The username "${username}" is already taken.`,
  usernameBusy: 'Could not reserve a free username. Please try again.',
} as const;

/** Longest stem a derived username keeps, leaving room for a counter. */
const USERNAME_STEM_MAX = 32;

/**
 * The username a first name suggests: lower-case ASCII letters and digits, accents stripped
 * (NFKD splits 'ë' into 'e' and a combining mark, which is then dropped), 'user' if nothing is left.
 */
export function usernameStem(firstName: string): string {
  const stem = firstName
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, USERNAME_STEM_MAX);
  return stem || 'user';
}

/** `stem`, else `stem2`, `stem3`... the first not in `taken` (lower-case names). */
export function firstFreeUsername(stem: string, taken: ReadonlySet<string>): string {
  if (!taken.has(stem)) return stem;
  let n = 2;
  while (taken.has(`${stem}${n}`)) n += 1;
  return `${stem}${n}`;
}

/** Who is acting: their row, and the session they act from (kept when they reset themselves). */
export interface Actor {
  user: UserRow;
  idHash: string;
}

export interface AdminServiceDeps {
  db: Kysely<Database>;
  users: UserRepository;
  sessions: SessionStore;
  mailer: Mailer;
  fileStore: FileStore;
  live: LiveBus;
  appUrl: string;
  logger: FastifyBaseLogger;
  /** An account's zone until its person or their browser sets one (issue 28). */
  defaultTimeZone: string;
}

export function createAdminService({
  db,
  users,
  sessions,
  mailer,
  fileStore,
  live,
  appUrl,
  logger,
  defaultTimeZone,
}: AdminServiceDeps) {
  const repo = createAdminRepository(db);
  const runs = createRunRepository(db);

  /** The account exists either way; a mail that cannot go out is the operator's to see in the log. */
  async function sendMail(message: MailMessage | null, what: string): Promise<void> {
    if (!message) {
      logger.warn({ what }, 'no e-mail address to send to');
      return;
    }
    try {
      await mailer.send(message);
    } catch (error) {
      logger.error({ err: error, to: message.to, what }, 'could not send mail');
    }
  }

  /** The user an action aims at; the bootstrap administrator and (unless allowed) oneself are off limits. */
  async function targetUser(actor: Actor, id: number, { selfAllowed = false } = {}): Promise<UserRow> {
    const user = await users.findById(id);
    if (!user) throw notFound('User');
    if (toBool(user.is_bootstrap)) throw forbidden(ADMIN_MESSAGES.bootstrapProtected);
    if (user.id === actor.user.id && !selfAllowed) throw forbidden(ADMIN_MESSAGES.selfProtected);
    return user;
  }

  const credentials = (user: UserRow, password: string, reason: 'created' | 'approved' | 'invite') =>
    user.email ? credentialsMail(user.email, user.first_name, user.username, password, appUrl, reason) : null;

  return {
    async listUsers(): Promise<AdminUserListItem[]> {
      const now = new Date();
      const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      const month = monthStart.toISOString().slice(0, 7);
      const [rows, tokens] = await Promise.all([repo.listUsers(), runs.tokensSince(monthStart)]);
      return rows.map((row) => ({
        ...toPublicUser(row, defaultTimeZone),
        aiTokens: { month, ...(tokens.get(row.id) ?? { input: 0, output: 0 }) },
      }));
    },

    async createUser(actor: Actor, body: CreateUserBody): Promise<CredentialsResponse> {
      if (await users.findByEmail(body.email)) throw conflict(ADMIN_MESSAGES.emailTaken);
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      const stem = usernameStem(body.firstName);
      // Two admins creating "Anna" at once may pick the same name; the unique index decides, we retry.
      for (let attempt = 1; ; attempt += 1) {
        const username = firstFreeUsername(stem, await repo.usernamesStartingWith(stem));
        try {
          const user = await db.transaction().execute(async (trx) => {
            const created = await createUserRepository(trx).insert({
              username,
              first_name: body.firstName,
              email: body.email,
              password_hash: passwordHash,
              is_admin: false,
              is_suspended: false,
              is_bootstrap: false,
            });
            await createAdminRepository(trx).audit(actor.user, 'user.create', {
              id: created.id,
              label: created.username,
            });
            return created;
          });
          await sendMail(credentials(user, password, 'created'), 'user.create');
          return { user: toPublicUser(user, defaultTimeZone), password };
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          if (await users.findByEmail(body.email)) throw conflict(ADMIN_MESSAGES.emailTaken);
          if (attempt >= 3) throw conflict(ADMIN_MESSAGES.usernameBusy);
        }
      }
    },

    /** Suspends an active user (ending their sessions at once) or reactivates a suspended one. */
    async toggleSuspended(actor: Actor, id: number) {
      const target = await targetUser(actor, id);
      const suspend = !toBool(target.is_suspended);
      const updated = await db.transaction().execute(async (trx) => {
        const trxRepo = createAdminRepository(trx);
        const row = await trxRepo.setSuspended(target.id, suspend);
        await trxRepo.audit(actor.user, suspend ? 'user.suspend' : 'user.reactivate', {
          id: row.id,
          label: row.username,
        });
        return row;
      });
      if (suspend) await sessions.endAllForUser(target.id);
      return toPublicUser(updated, defaultTimeZone);
    },

    /** A new password, mailed and returned once; the old one and its sessions stop working. */
    async resendInvite(actor: Actor, id: number): Promise<CredentialsResponse> {
      const target = await targetUser(actor, id, { selfAllowed: true });
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      await db.transaction().execute(async (trx) => {
        await createUserRepository(trx).setPasswordHash(target.id, passwordHash);
        await createAdminRepository(trx).audit(actor.user, 'user.resend_invite', {
          id: target.id,
          label: target.username,
        });
      });
      await sessions.endAllForUser(target.id, target.id === actor.user.id ? actor.idHash : undefined);
      await sendMail(credentials(target, password, 'invite'), 'user.resend_invite');
      return { user: toPublicUser(target, defaultTimeZone), password };
    },

    /**
     * Turns the user's two-factor sign-in off (a lost phone and lost recovery codes): the secret and
     * recovery codes are removed, the user is told by e-mail. Nothing to do when it was not on.
     * One's own goes through Security, which asks for the password and a code.
     */
    async resetTwoFactor(actor: Actor, id: number): Promise<void> {
      const target = await targetUser(actor, id, { selfAllowed: true });
      if (target.id === actor.user.id) throw forbidden(ADMIN_MESSAGES.selfTwoFactor);
      if (!toBool(target.two_factor_enabled)) return;
      await db.transaction().execute(async (trx) => {
        await createTwoFactorRepository(trx).disable(target.id);
        await createAdminRepository(trx).audit(actor.user, 'user.2fa_reset', {
          id: target.id,
          label: target.username,
        });
      });
      await sessions.forgetUser(target.id);
      await sendMail(
        target.email ? twoFactorResetMail(target.email, target.first_name, appUrl) : null,
        'user.2fa_reset',
      );
    },

    /**
     * The user's tasks, agents, files, sessions and Inbox go with them; the shared projects they own
     * pass to another member (or go, when nobody else is in them). Stored file contents are removed after.
     */
    async deleteUser(actor: Actor, id: number): Promise<void> {
      const target = await targetUser(actor, id);
      const { storageKeys, affected } = await db.transaction().execute(async (trx) => {
        const trxRepo = createAdminRepository(trx);
        const handedOver = await handOverProjectsOf(trx, target.id);
        const keys = await trxRepo.deleteFilesOf(target.id);
        await trxRepo.deleteUser(target.id);
        await trxRepo.audit(actor.user, 'user.delete', { id: target.id, label: target.username });
        return { storageKeys: [...handedOver.storageKeys, ...keys], affected: handedOver.affected };
      });
      live.publish(affected, [PROJECTS_PATH, TASKS_PATH, ARCHIVED_TASKS_PATH]);
      await sessions.forgetUser(target.id);
      await removeStoredFiles(fileStore, storageKeys, logger);
    },

    listAccessRequests: async () => (await repo.listAccessRequests()).map(toAccessRequest),

    /** Creates the account asked for; a taken name or address keeps the request and answers 409. */
    async approveAccessRequest(actor: Actor, id: number): Promise<CredentialsResponse> {
      if (!(await repo.findAccessRequest(id))) throw notFound('Access request');
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      const user = await db.transaction().execute(async (trx) => {
        // Taking the row first means two admins approving at once create one account.
        const request = await createAdminRepository(trx).takeAccessRequest(id);
        if (!request) throw notFound('Access request');
        const trxUsers = createUserRepository(trx);
        if (await trxUsers.findByUsername(request.requested_username)) {
          throw conflict(ADMIN_MESSAGES.usernameTaken(request.requested_username));
        }
        if (await trxUsers.findByEmail(request.email)) throw conflict(ADMIN_MESSAGES.emailTaken);
        let created: UserRow;
        try {
          created = await trxUsers.insert({
            username: request.requested_username,
            first_name: request.requested_username,
            email: request.email,
            password_hash: passwordHash,
            is_admin: false,
            is_suspended: false,
            is_bootstrap: false,
          });
        } catch (error) {
          if (isUniqueViolation(error))
            throw conflict(ADMIN_MESSAGES.usernameTaken(request.requested_username));
          throw error;
        }
        await createAdminRepository(trx).audit(actor.user, 'access_request.approve', {
          id: created.id,
          label: created.username,
        });
        return created;
      });
      await sendMail(credentials(user, password, 'approved'), 'access_request.approve');
      return { user: toPublicUser(user, defaultTimeZone), password };
    },

    /** Removes the request and tells the requester. */
    async denyAccessRequest(actor: Actor, id: number): Promise<void> {
      const request = await db.transaction().execute(async (trx) => {
        const trxRepo = createAdminRepository(trx);
        const taken = await trxRepo.takeAccessRequest(id);
        if (!taken) throw notFound('Access request');
        await trxRepo.audit(actor.user, 'access_request.deny', { id: null, label: taken.email });
        return taken;
      });
      await sendMail(
        accessDeniedMail(request.email, request.requested_username, appUrl),
        'access_request.deny',
      );
    },

    auditLog: () => repo.listAudit(),
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
