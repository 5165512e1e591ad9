import crypto from 'node:crypto';
import net from 'node:net';
import type {
  AuthenticationResponseJSON,
  RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { LoginResponse } from '../../common/auth';
import { PASSKEY_LIMITS, PASSKEY_MESSAGES, type Passkey } from '../../common/passkeys';
import { APP_NAME } from '../../common/spec';
import type { PasskeyRow, UserRow } from '../db/schema';
import { toBool, toIso, toIsoOrNull, toNumber } from '../db/values';
import { badRequest, conflict, forbidden, HttpError, notFound } from '../http/errors';
import { onFirstUse } from '../on-first-use';
import type { PasskeyRepository } from './passkeys-repository';
import { AUTH_MESSAGES } from './service';
import type { SessionDevice, SessionStore } from './sessions';
import { hashToken } from './tokens';

/** The WebAuthn library, loaded at the first passkey request (decision 027). */
const webAuthn = onFirstUse(() => import('@simplewebauthn/server'));

import { toPublicUser } from './users';

/** The relying party passkeys are made for: APP_URL's host name and origin. */
export interface RelyingParty {
  id: string;
  origin: string;
}

/**
 * Passkeys are bound to a host name, and browsers offer WebAuthn only in a secure context: HTTPS, or
 * http://localhost. APP_URL at an IP address, or plain HTTP elsewhere, cannot carry them: null.
 */
export function relyingPartyFor(appUrl: string): RelyingParty | null {
  const url = new URL(appUrl);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host || net.isIP(host) !== 0) return null;
  const localhost = host === 'localhost' || host.endsWith('.localhost');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && localhost)) return null;
  return { id: host, origin: url.origin };
}

const toPasskey = (row: PasskeyRow): Passkey => ({
  id: row.id,
  name: row.name,
  createdAt: toIso(row.created_at),
  lastUsedAt: toIsoOrNull(row.last_used_at),
});

/** 401: a failed sign-in, which the routes count against the sign-in limits. */
const signInFailed = (message: string) => new HttpError(401, message);

/** The challenge inside the browser's signed client data (base64url JSON); undefined when unreadable. */
function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const clientData: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = (clientData as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 512
      ? challenge
      : undefined;
  } catch {
    return undefined;
  }
}

const parseTransports = (stored: string): string[] => {
  try {
    const value: unknown = JSON.parse(stored);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
};

export interface PasskeyServiceDeps {
  passkeys: PasskeyRepository;
  sessions: SessionStore;
  appUrl: string;
  /** An account's zone until its person or their browser sets one (issue 28). */
  defaultTimeZone: string;
}

/**
 * Passkeys (WebAuthn) with @simplewebauthn/server: registration by a signed-in person, and sign-in
 * with a discoverable credential (no username). Every ceremony's challenge is stored hashed, used
 * once, and expires after five minutes. User verification is required: a passkey sign-in stands in
 * for the password and any second factor.
 */
export function createPasskeyService({ passkeys, sessions, appUrl, defaultTimeZone }: PasskeyServiceDeps) {
  const rp = relyingPartyFor(appUrl);
  const relyingParty = (): RelyingParty => {
    if (!rp) throw forbidden(PASSKEY_MESSAGES.unavailable);
    return rp;
  };

  async function newChallenge(
    purpose: 'registration' | 'authentication',
    userId: number | null,
    userHandle: string | null,
  ) {
    // Bytes: a string would be taken as text and encoded once more. Options and client data carry
    // the base64url of these bytes, and that is what is hashed and later looked up.
    const challenge = crypto.randomBytes(32);
    const now = Date.now();
    await passkeys.saveChallenge({
      challengeHash: hashToken(challenge.toString('base64url')),
      purpose,
      userId,
      userHandle,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + PASSKEY_LIMITS.challengeTtlMs).toISOString(),
    });
    return challenge;
  }

  return {
    available: rp !== null,

    /** 403 with the reason when APP_URL cannot carry passkeys. */
    assertAvailable(): void {
      relyingParty();
    },

    list: async (userId: number): Promise<Passkey[]> => (await passkeys.list(userId)).map(toPasskey),

    /** Options for navigator.credentials.create(): a discoverable credential, user verification required. */
    async registrationOptions(user: UserRow) {
      const { id: rpID } = relyingParty();
      const existing = await passkeys.list(user.id);
      // One handle per person, so an authenticator keeps one passkey per account and site.
      const userHandle = existing[0]?.user_handle ?? crypto.randomBytes(32).toString('base64url');
      const challenge = await newChallenge('registration', user.id, userHandle);
      const { generateRegistrationOptions } = await webAuthn();
      return generateRegistrationOptions({
        rpName: APP_NAME,
        rpID,
        userName: user.username,
        userDisplayName: user.first_name,
        userID: Buffer.from(userHandle, 'base64url'),
        challenge,
        timeout: PASSKEY_LIMITS.challengeTtlMs,
        attestationType: 'none',
        excludeCredentials: existing.map((row) => ({
          id: row.credential_id,
          transports: parseTransports(row.transports),
        })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
    },

    async register(user: UserRow, name: string, response: RegistrationResponseJSON): Promise<Passkey> {
      const { id: rpID, origin } = relyingParty();
      const challenge = challengeOf(response.response.clientDataJSON);
      const claimed = challenge
        ? await passkeys.consumeChallenge(hashToken(challenge), 'registration', user.id)
        : undefined;
      if (!challenge || !claimed?.userHandle) throw badRequest(PASSKEY_MESSAGES.registrationChallengeInvalid);
      let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      const { verifyRegistrationResponse: verify } = await webAuthn();
      try {
        verification = await verify({
          response,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: true,
        });
      } catch (error) {
        throw badRequest(`The passkey could not be verified: ${(error as Error).message}`);
      }
      if (!verification.verified) throw badRequest('The passkey could not be verified.');
      const { credential } = verification.registrationInfo;
      const row = await passkeys.insert({
        userId: user.id,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: credential.transports ?? response.response.transports ?? [],
        userHandle: claimed.userHandle,
        name: name.trim(),
        createdAt: new Date().toISOString(),
      });
      if (!row) throw conflict(PASSKEY_MESSAGES.alreadyRegistered);
      return toPasskey(row);
    },

    async rename(userId: number, id: number, name: string): Promise<Passkey> {
      const row = await passkeys.rename(userId, id, name.trim());
      if (!row) throw notFound('Passkey');
      return toPasskey(row);
    },

    /** Another person's passkey is answered as one that does not exist. */
    async remove(userId: number, id: number): Promise<void> {
      if (!(await passkeys.remove(userId, id))) throw notFound('Passkey');
    },

    /** Options for navigator.credentials.get(): no allowCredentials, so the authenticator offers its passkeys. */
    async authenticationOptions() {
      const { id: rpID } = relyingParty();
      const challenge = await newChallenge('authentication', null, null);
      const { generateAuthenticationOptions } = await webAuthn();
      return generateAuthenticationOptions({
        rpID,
        challenge,
        timeout: PASSKEY_LIMITS.challengeTtlMs,
        userVerification: 'required',
      });
    },

    /** The passkey a sign-in names, and its owner (for the sign-in limits); undefined when unknown. */
    find: (credentialId: string) => passkeys.findByCredentialId(credentialId),

    /**
     * Signs in with a passkey: 401 for an unknown passkey, a used or expired challenge, or an answer
     * that does not verify; 403 for a suspended account, told only to whoever holds the passkey.
     */
    async signIn(
      found: { passkey: PasskeyRow; user: UserRow } | undefined,
      response: AuthenticationResponseJSON,
      device: SessionDevice,
    ): Promise<LoginResponse> {
      const { id: rpID, origin } = relyingParty();
      // The challenge is spent by any attempt, whatever its outcome.
      const challenge = challengeOf(response.response.clientDataJSON);
      const claimed = challenge
        ? await passkeys.consumeChallenge(hashToken(challenge), 'authentication', null)
        : undefined;
      if (!challenge || !claimed) throw signInFailed(PASSKEY_MESSAGES.signInChallengeInvalid);
      if (!found) throw signInFailed(PASSKEY_MESSAGES.unknownCredential);
      const { passkey, user } = found;
      // The handle the authenticator returns must be the one the passkey was made for.
      if (response.response.userHandle && response.response.userHandle !== passkey.user_handle) {
        throw signInFailed(PASSKEY_MESSAGES.signInNotVerified);
      }
      let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      const { verifyAuthenticationResponse: verify } = await webAuthn();
      try {
        verification = await verify({
          response,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: true,
          credential: {
            id: passkey.credential_id,
            publicKey: Buffer.from(passkey.public_key, 'base64url'),
            counter: toNumber(passkey.counter),
            transports: parseTransports(passkey.transports),
          },
        });
      } catch {
        throw signInFailed(PASSKEY_MESSAGES.signInNotVerified);
      }
      if (!verification.verified) throw signInFailed(PASSKEY_MESSAGES.signInNotVerified);
      if (toBool(user.is_suspended)) throw forbidden(AUTH_MESSAGES.suspended);
      const used = await passkeys.recordUse(
        passkey.id,
        verification.authenticationInfo.newCounter,
        new Date().toISOString(),
      );
      if (!used) throw signInFailed(PASSKEY_MESSAGES.signInNotVerified);
      const sessionId = await sessions.create(user.id, device);
      return { sessionId, user: toPublicUser(user, defaultTimeZone) };
    },
  };
}

export type PasskeyService = ReturnType<typeof createPasskeyService>;
