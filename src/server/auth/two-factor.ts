import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import type { LoginResponse } from '../../common/auth';
import {
  type RecoveryCodes,
  TWO_FACTOR,
  TWO_FACTOR_MESSAGES,
  type TwoFactorSetup,
  type TwoFactorStatus,
} from '../../common/two-factor';
import type { Database, UserRow } from '../db/schema';
import { toBool, toIso } from '../db/values';
import { badRequest, conflict, forbidden, HttpError, unauthorized } from '../http/errors';
import type { Mailer } from '../mail/mailer';
import { wrongCodesMail } from '../mail/templates';
import type { LoginGuard, SecondFactorGuard } from './login-guard';
import { verifyPassword } from './passwords';
import { AUTH_MESSAGES } from './service';
import type { SessionDevice, SessionStore } from './sessions';
import { hashToken, newSecretToken } from './tokens';
import { createTwoFactorRepository } from './two-factor-repository';
import { toPublicUser } from './users';

// --- TOTP (RFC 6238) through otpauth: SHA-1, 6 digits, 30-second steps, as every authenticator app expects.

const totpOptions = {
  algorithm: TWO_FACTOR.algorithm,
  digits: TWO_FACTOR.digits,
  period: TWO_FACTOR.periodSeconds,
};

/** 160 random bits, base32: RFC 4226's recommended secret length. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

/** What the QR code holds: otpauth://totp/Tasklane:<username>?secret=...&issuer=Tasklane... */
export const otpauthUrl = (username: string, secret: string): string =>
  new TOTP({
    ...totpOptions,
    issuer: TWO_FACTOR.issuer,
    label: username,
    secret: Secret.fromBase32(secret),
  }).toString();

/** The time step a 6-digit code belongs to, among the previous, current and next one; null when none. */
export function matchTotpStep(secret: string, code: string, timestamp = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = TOTP.validate({
    ...totpOptions,
    token: code,
    secret: Secret.fromBase32(secret),
    timestamp,
    window: TWO_FACTOR.window,
  });
  return delta === null ? null : TOTP.counter({ period: TWO_FACTOR.periodSeconds, timestamp }) + delta;
}

// --- Recovery codes: 16 characters of Crockford's base32 (80 bits), shown as four groups of four.

const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export function newRecoveryCode(): string {
  const bytes = crypto.randomBytes(16);
  const chars = Array.from(bytes, (byte) => RECOVERY_ALPHABET[byte % 32]).join('');
  return chars.match(/.{4}/g)!.join('-');
}

/** As typed: any case, with or without dashes and spaces; i, l and o read as 1, 1 and 0. */
export const normalizeRecoveryCode = (code: string): string =>
  code.toLowerCase().replace(/[\s-]/g, '').replace(/[il]/g, '1').replace(/o/g, '0');

/** Codes carry 80 random bits, so a plain SHA-256 is enough (as for session ids). */
export const hashRecoveryCode = (code: string): string => hashToken(normalizeRecoveryCode(code));

// --- The service.

export interface TwoFactorServiceDeps {
  db: Kysely<Database>;
  sessions: SessionStore;
  /** Sign-in limits: a wrong code counts as a failed sign-in. */
  loginGuard: LoginGuard;
  /** Wrong codes at the second step per account, from any address; the owner is told once per lockout. */
  secondFactorGuard: SecondFactorGuard;
  /** How long a lockout of the second step lasts, for the owner's e-mail. */
  lockoutMs: number;
  mailer: Mailer;
  appUrl: string;
  logger: FastifyBaseLogger;
  /** The clock; by default Date.now as it is at each call (so tests that fake Date move it). */
  now?: () => number;
  /** An account's zone until its person or their browser sets one (issue 28). */
  defaultTimeZone: string;
}

export function createTwoFactorService({
  db,
  sessions,
  loginGuard,
  secondFactorGuard,
  lockoutMs,
  mailer,
  appUrl,
  logger,
  now = () => Date.now(),
  defaultTimeZone,
}: TwoFactorServiceDeps) {
  const repo = createTwoFactorRepository(db);

  /** The second step is locked: the owner learns it once; a mail that cannot go out is for the log. */
  async function tellOwnerOfLockout(user: UserRow): Promise<void> {
    if (!user.email) return;
    try {
      await mailer.send(wrongCodesMail(user.email, user.first_name, Math.ceil(lockoutMs / 60_000), appUrl));
    } catch (error) {
      logger.error({ err: error, userId: user.id }, 'could not send the wrong-codes mail');
    }
  }

  /**
   * A TOTP code of an accepted step not used before, or one of the user's recovery codes (used up
   * here). Which one it was, or null.
   */
  async function spendCode(user: UserRow, code: string): Promise<'totp' | 'recovery' | null> {
    const compact = code.replace(/\s/g, '');
    if (/^\d{6}$/.test(compact)) {
      if (!user.two_factor_secret) return null;
      const step = matchTotpStep(user.two_factor_secret, compact, now());
      return step !== null && (await repo.claimStep(user.id, step)) ? 'totp' : null;
    }
    return (await repo.spendRecoveryCode(user.id, hashRecoveryCode(compact))) ? 'recovery' : null;
  }

  return {
    async status(userId: number, enabled: boolean): Promise<TwoFactorStatus> {
      return { enabled, recoveryCodesLeft: enabled ? await repo.countRecoveryCodes(userId) : 0 };
    },

    /** A new secret for the user to scan; not in force until `enable` sees a code from it. */
    async setup(user: UserRow): Promise<TwoFactorSetup> {
      if (toBool(user.two_factor_enabled)) throw conflict(TWO_FACTOR_MESSAGES.alreadyOn);
      const secret = newTotpSecret();
      if (!(await repo.setPendingSecret(user.id, secret))) throw conflict(TWO_FACTOR_MESSAGES.alreadyOn);
      await sessions.forgetUser(user.id);
      return { secret, otpauthUrl: otpauthUrl(user.username, secret) };
    },

    /**
     * Turns two-factor sign-in on with a code from the secret being set up; hands out the recovery
     * codes this once and ends the user's other sessions.
     */
    async enable(user: UserRow, currentSessionHash: string, code: string): Promise<RecoveryCodes> {
      if (toBool(user.two_factor_enabled)) throw conflict(TWO_FACTOR_MESSAGES.alreadyOn);
      const secret = user.two_factor_secret;
      if (!secret) throw badRequest(TWO_FACTOR_MESSAGES.notSetUp);
      const step = matchTotpStep(secret, code.replace(/\s/g, ''), now());
      if (step === null) throw badRequest(TWO_FACTOR_MESSAGES.wrongSetupCode);
      const recoveryCodes = Array.from({ length: TWO_FACTOR.recoveryCodeCount }, newRecoveryCode);
      await db.transaction().execute(async (trx) => {
        const trxRepo = createTwoFactorRepository(trx);
        // A setup started meanwhile (another tab) replaced the secret: this code is for the old one.
        if (!(await trxRepo.enable(user.id, secret, step))) throw badRequest(TWO_FACTOR_MESSAGES.notSetUp);
        await trxRepo.replaceRecoveryCodes(user.id, recoveryCodes.map(hashRecoveryCode));
      });
      await sessions.endAllForUser(user.id, currentSessionHash);
      return { recoveryCodes };
    },

    /** Turns it off with the password and a code (TOTP or recovery); ends the user's other sessions. */
    async disable(
      user: UserRow,
      currentSessionHash: string,
      body: { password: string; code: string },
      address: string,
    ): Promise<void> {
      await loginGuard.check(user.username, address);
      if (!(await verifyPassword(body.password, user.password_hash))) {
        await loginGuard.fail(user.username, address);
        throw badRequest(TWO_FACTOR_MESSAGES.wrongPassword);
      }
      if (!toBool(user.two_factor_enabled)) throw conflict(TWO_FACTOR_MESSAGES.notOn);
      if (!(await spendCode(user, body.code))) {
        await loginGuard.fail(user.username, address);
        throw badRequest(TWO_FACTOR_MESSAGES.wrongCode);
      }
      await db.transaction().execute((trx) => createTwoFactorRepository(trx).disable(user.id));
      await sessions.endAllForUser(user.id, currentSessionHash);
    },

    /** After the right password: the challenge the second step must present (only its hash is kept). */
    async createChallenge(userId: number): Promise<string> {
      const challenge = newSecretToken();
      const at = now();
      await repo.insertChallenge({
        idHash: hashToken(challenge),
        userId,
        createdAt: new Date(at).toISOString(),
        expiresAt: new Date(at + TWO_FACTOR.challengeTtlMs).toISOString(),
      });
      return challenge;
    },

    /**
     * The second step of a sign-in: a live challenge and a code. A wrong code counts as a failed
     * sign-in for the account from this address, and against the account's own limit on wrong codes
     * from any address; the challenge stays for another try until it expires, and is used up by the
     * first success.
     */
    async completeLogin(
      challenge: string,
      code: string,
      device: SessionDevice & { ip: string },
    ): Promise<LoginResponse> {
      const idHash = hashToken(challenge);
      const found = await repo.findChallenge(idHash);
      if (!found || new Date(toIso(found.expiresAt)).getTime() <= now()) {
        throw unauthorized(TWO_FACTOR_MESSAGES.challengeExpired);
      }
      const { user } = found;
      if (toBool(user.is_suspended)) throw forbidden(AUTH_MESSAGES.suspended);
      // Turned off meanwhile (an administrator's reset): the password alone signs in now.
      if (!toBool(user.two_factor_enabled)) throw unauthorized(TWO_FACTOR_MESSAGES.challengeExpired);
      await loginGuard.check(user.username, device.ip);
      // Before the code is looked at: a locked account spends neither a step nor a recovery code.
      await secondFactorGuard.check(user.id);
      if (!(await spendCode(user, code))) {
        const [, locked] = await Promise.all([
          loginGuard.fail(user.username, device.ip),
          secondFactorGuard.fail(user.id),
        ]);
        if (locked) await tellOwnerOfLockout(user);
        throw new HttpError(401, TWO_FACTOR_MESSAGES.wrongCode);
      }
      if (!(await repo.takeChallenge(idHash))) throw unauthorized(TWO_FACTOR_MESSAGES.challengeExpired);
      await Promise.all([loginGuard.succeed(user.username, device.ip), secondFactorGuard.succeed(user.id)]);
      const sessionId = await sessions.create(user.id, device);
      return { sessionId, user: toPublicUser(user, defaultTimeZone) };
    },
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
