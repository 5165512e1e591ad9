import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { AccessRequestBody, LoginResponse } from '../../common/auth';
import { SUSPENDED_MESSAGE } from '../../common/sign-in';
import { ERRORS, VALIDATION } from '../../common/spec';
import { ianaTimeZone } from '../../common/time-zone-names';
import type { TwoFactorChallenge } from '../../common/two-factor';
import type { Database, UserRow } from '../db/schema';
import { nowIso, toBool, toIso } from '../db/values';
import { badRequest, forbidden, HttpError, unauthorized } from '../http/errors';
import type { Mailer } from '../mail/mailer';
import { passwordResetMail } from '../mail/templates';
import { generatePassword, hashPassword, verifyAgainstDummy, verifyPassword } from './passwords';
import type { UserRepository } from './repository';
import type { SessionDevice, SessionStore } from './sessions';
import { hashToken, newSecretToken } from './tokens';
import { toPublicUser } from './users';

const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;

export const AUTH_MESSAGES = {
  suspended: SUSPENDED_MESSAGE,
  wrongCurrentPassword: 'Current password is incorrect.',
  resetLinkSent: 'If an account exists for that address, a link to reset the password is on its way.',
  resetLinkInvalid: 'This password reset link is invalid or has expired. Please ask for a new one.',
  passwordReset: 'Your password has been changed. You can sign in now.',
  accessRequested: 'Your request has been received. An administrator will review it.',
  passwordChanged: 'Password changed successfully.',
} as const;

export interface AuthServiceDeps {
  db: Kysely<Database>;
  users: UserRepository;
  sessions: SessionStore;
  mailer: Mailer;
  appUrl: string;
  logger: FastifyBaseLogger;
  /** With two-factor sign-in on, the right password earns a challenge instead of a session. */
  twoFactor: { createChallenge(userId: number): Promise<string> };
  /** An account's zone until its person or their browser sets one (issue 28). */
  defaultTimeZone: string;
}

export function createAuthService({
  db,
  users,
  sessions,
  mailer,
  appUrl,
  logger,
  twoFactor,
  defaultTimeZone,
}: AuthServiceDeps) {
  return {
    /**
     * PATCH /api/auth/me: the caller's time zone (already checked against Intl), under its IANA
     * name (issue 28). The browser's (`chosen` false) never replaces one the person chose.
     */
    async setTimeZone(userId: number, timeZone: string, chosen: boolean): Promise<UserRow> {
      let update = db
        .updateTable('users')
        .set({ time_zone: ianaTimeZone(timeZone), time_zone_chosen: chosen, updated_at: nowIso() })
        .where('id', '=', userId);
      if (!chosen) update = update.where('time_zone_chosen', '=', false);
      const row = (await update.returningAll().executeTakeFirst()) ?? (await users.findById(userId));
      if (!row) throw unauthorized();
      return row;
    },

    async login(
      username: string,
      password: string,
      device?: SessionDevice,
    ): Promise<LoginResponse | TwoFactorChallenge> {
      const user = await users.findByUsername(username);
      const valid = user
        ? await verifyPassword(password, user.password_hash)
        : await verifyAgainstDummy(password);
      if (!user || !valid) throw new HttpError(401, ERRORS.invalidLogin);
      // Only someone who knows the password learns that the account is suspended.
      if (toBool(user.is_suspended)) throw forbidden(AUTH_MESSAGES.suspended);
      if (toBool(user.two_factor_enabled)) {
        return { twoFactorRequired: true, challenge: await twoFactor.createChallenge(user.id) };
      }
      const sessionId = await sessions.create(user.id, device);
      return { sessionId, user: toPublicUser(user, defaultTimeZone) };
    },

    async changePassword(
      session: { userId: number; idHash: string },
      currentPassword: string,
      newPassword: string,
    ) {
      const user = await users.findById(session.userId);
      if (!user) throw unauthorized(VALIDATION.loginRequiredForPasswordChange);
      if (!(await verifyPassword(currentPassword, user.password_hash))) {
        throw badRequest(AUTH_MESSAGES.wrongCurrentPassword);
      }
      await users.setPasswordHash(user.id, await hashPassword(newPassword));
      await sessions.endAllForUser(user.id, session.idHash);
    },

    /** Always the same answer, so the form reveals no accounts. */
    async sendPasswordLink(email: string): Promise<void> {
      const user = await users.findByEmail(email);
      if (!user || toBool(user.is_suspended) || !user.email) return;
      const token = newSecretToken();
      const now = Date.now();
      await db
        .insertInto('password_reset_tokens')
        .values({
          token_hash: hashToken(token),
          user_id: user.id,
          created_at: new Date(now).toISOString(),
          expires_at: new Date(now + RESET_TOKEN_TTL_MS).toISOString(),
          used_at: null,
        })
        .execute();
      const link = `${appUrl}/reset-password/${token}`;
      try {
        await mailer.send(passwordResetMail(user.email, user.username, link, appUrl));
      } catch (error) {
        // The answer must not differ for known addresses; the operator sees the failure in the log.
        logger.error({ err: error }, 'could not send the password reset mail');
      }
    },

    async resetPassword(token: string, newPassword: string): Promise<void> {
      const tokenHash = hashToken(token);
      const passwordHash = await hashPassword(newPassword);
      const userId = await db.transaction().execute(async (trx) => {
        // Claim the token first: of two concurrent uses, only one updates a row.
        const claimed = await trx
          .updateTable('password_reset_tokens')
          .set({ used_at: nowIso() })
          .where('token_hash', '=', tokenHash)
          .where('used_at', 'is', null)
          .where('expires_at', '>', nowIso())
          .returning(['user_id', 'expires_at'])
          .executeTakeFirst();
        if (!claimed || new Date(toIso(claimed.expires_at)).getTime() <= Date.now()) {
          throw badRequest(AUTH_MESSAGES.resetLinkInvalid);
        }
        await trx
          .updateTable('users')
          .set({ password_hash: passwordHash, updated_at: nowIso() })
          .where('id', '=', claimed.user_id)
          .execute();
        await trx.deleteFrom('sessions').where('user_id', '=', claimed.user_id).execute();
        await trx
          .deleteFrom('password_reset_tokens')
          .where('user_id', '=', claimed.user_id)
          .where('token_hash', '!=', tokenHash)
          .execute();
        return claimed.user_id;
      });
      await sessions.forgetUser(userId);
    },

    /** A second pending request for the same address is not duplicated. */
    async requestAccess(body: AccessRequestBody): Promise<void> {
      await db
        .insertInto('access_requests')
        .values({
          email: body.email,
          requested_username: body.requestedUsername,
          message: body.message ?? null,
          created_at: nowIso(),
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
    },

    /**
     * First start: create the bootstrap administrator when there is no administrator at all.
     * Returns the generated password (to be shown once) when none was configured.
     */
    async ensureBootstrapAdmin(admin: {
      username: string;
      password?: string;
      email?: string;
    }): Promise<{ created: boolean; generatedPassword?: string }> {
      if (await users.anyAdmin()) return { created: false };
      const password = admin.password ?? generatePassword();
      // Instances starting together on an empty database all get here: the first insert wins.
      const created = await users.insertIfAbsent({
        username: admin.username,
        first_name: admin.username,
        email: admin.email ?? null,
        password_hash: await hashPassword(password),
        is_admin: true,
        is_suspended: false,
        is_bootstrap: true,
      });
      if (!created) {
        if (!(await users.anyAdmin())) {
          logger.warn(
            { username: admin.username },
            'ADMIN_USERNAME or ADMIN_EMAIL belongs to a regular account: no administrator was created',
          );
        }
        return { created: false };
      }
      logger.info({ username: admin.username }, 'created the bootstrap administrator');
      return { created: true, generatedPassword: admin.password ? undefined : password };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
