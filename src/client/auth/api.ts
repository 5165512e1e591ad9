import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import {
  type AccessRequestBody,
  AUTH_PROVIDERS_PATH,
  type AuthProviders,
  type ChangePasswordBody,
  type LoginBody,
  type LoginResponse,
  type PublicUser,
  type ResetPasswordBody,
  type SendPasswordBody,
} from '../../common/auth';
import { OIDC_HANDOFF_COOKIE, OIDC_PATHS } from '../../common/sign-in';
import { SESSION_HEADER_ALT } from '../../common/spec';
import { sameTimeZone } from '../../common/time-zone';
import type { LoginTwoFactorBody, TwoFactorChallenge } from '../../common/two-factor';
import { apiRequest } from '../lib/api';
import { clearSession, getSession, setSession, updateUser } from '../lib/session';
import { loadWebAuthn } from '../lib/webauthn';
import { disablePush } from '../notifications/push';

// Answers are typed, not parsed: the server's response schemas shape them, and parsing here would
// put Zod on the login screen (see lib/lazy-zod-resolver.ts). For the same reason the paths below are
// written out rather than imported from src/common, whose modules load Zod.

/**
 * Signs in and stores the session, which shows the main screen. With two-factor sign-in on, the
 * password earns a challenge instead: the second step (signInWithCode) completes it.
 */
export async function signIn(body: LoginBody): Promise<TwoFactorChallenge | null> {
  const res = await apiRequest('POST', '/api/auth/login', body);
  const answer = (await res.json()) as LoginResponse | TwoFactorChallenge;
  if ('twoFactorRequired' in answer) return answer;
  setSession(answer.sessionId, answer.user);
  ensureTimeZone(answer.user);
  return null;
}

/** The second step of a sign-in: a code from the authenticator app, or a recovery code. */
export async function signInWithCode(body: LoginTwoFactorBody): Promise<void> {
  const res = await apiRequest('POST', '/api/auth/login/2fa', body);
  const { sessionId, user } = (await res.json()) as LoginResponse;
  setSession(sessionId, user);
  ensureTimeZone(user);
}

/** Ends the session on the server if it can, and in the browser whatever the server says. */
export async function signOut(): Promise<void> {
  // This browser's push subscription is the person's: it goes with them (best effort).
  await disablePush().catch(() => undefined);
  try {
    await apiRequest('POST', '/api/auth/logout');
  } catch {
    // Already ended on the server, or the server is unreachable: ending it here is what matters.
  }
  clearSession();
}

/**
 * PATCH /api/auth/me: the signed-in user's time zone (issue 22); the stored user follows. `chosen`
 * false: the browser's, which the server takes only while the person has not chosen one (issue 28).
 */
export async function setTimeZone(timeZone: string, chosen = true): Promise<PublicUser> {
  const res = await apiRequest('PATCH', '/api/auth/me', { timeZone, timeZoneChosen: chosen });
  const { user } = (await res.json()) as { user: PublicUser };
  updateUser(user);
  return user;
}

/**
 * The browser's own time zone, as Intl names it: for math and comparisons (sameTimeZone), not to
 * show, as it may be ICU's old name ('Asia/Calcutta'); the server stores the IANA one.
 */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

let settingZone = false;
/**
 * Issues 22 and 28: an account whose person has not chosen a zone follows the browser's, at
 * sign-in (or when a kept session is confirmed). One the person chose in the account menu stays.
 */
export function ensureTimeZone(user: PublicUser | undefined): void {
  if (!user || user.timeZoneChosen || settingZone) return;
  if (sameTimeZone(user.timeZone, browserTimeZone())) return;
  settingZone = true;
  void setTimeZone(browserTimeZone(), false)
    .catch(() => undefined)
    .finally(() => {
      settingZone = false;
    });
}

/** Confirms a session kept from an earlier visit and refreshes the stored user. */
export async function confirmStoredSession(): Promise<void> {
  if (!getSession()) return;
  try {
    const res = await apiRequest('GET', '/api/auth/me');
    const { user } = (await res.json()) as { user: PublicUser };
    updateUser(user);
    ensureTimeZone(user);
  } catch {
    // A 401 has already cleared the session in apiRequest. Otherwise (the server restarting, say) the
    // session stays, and the next call will tell.
  }
}

async function message(res: Response): Promise<string> {
  return ((await res.json()) as { message: string }).message;
}

export async function sendPassword(body: SendPasswordBody): Promise<string> {
  return message(await apiRequest('POST', '/api/auth/send-password', body));
}

export async function requestAccess(body: AccessRequestBody): Promise<string> {
  return message(await apiRequest('POST', '/api/access-requests', body));
}

/**
 * Spec §7: this call carries the session in x-session-id. A 401 here may mean a wrong current
 * password, so it does not sign out.
 */
export async function changePassword(body: ChangePasswordBody): Promise<void> {
  await apiRequest('POST', '/api/auth/change-password', body, {
    sessionHeader: SESSION_HEADER_ALT,
    signOutOn401: false,
  });
}

/** A reset ends every session of the account, this browser's included. */
export async function resetPassword(body: ResetPasswordBody): Promise<string> {
  const text = await message(await apiRequest('POST', '/api/auth/reset-password', body));
  clearSession();
  return text;
}

let providers: Promise<AuthProviders> | undefined;
/** The sign-in methods besides the password that this server offers; asked once per page load. */
export function getAuthProviders(): Promise<AuthProviders> {
  providers ??= apiRequest('GET', AUTH_PROVIDERS_PATH)
    .then((res) => res.json() as Promise<AuthProviders>)
    .catch((error: unknown) => {
      providers = undefined;
      throw error;
    });
  return providers;
}

/**
 * 'Sign in with a passkey': the browser asks the person to pick one of their passkeys for this site
 * (no username), the server checks it and answers as a password sign-in does.
 */
export async function signInWithPasskey(): Promise<void> {
  const [{ startAuthentication }, res] = await Promise.all([
    loadWebAuthn(),
    apiRequest('POST', '/api/auth/passkeys/login/options'),
  ]);
  const { options } = (await res.json()) as { options: PublicKeyCredentialRequestOptionsJSON };
  const response = await startAuthentication({ optionsJSON: options });
  const login = await apiRequest('POST', '/api/auth/passkeys/login', { response });
  const { sessionId, user } = (await login.json()) as LoginResponse;
  setSession(sessionId, user);
  ensureTimeZone(user);
}

/**
 * After "Sign in with …" the server lands the browser on `/` with the session in its cookie and a
 * readable marker cookie; the app then takes the session up and keeps it as it keeps a password
 * sign-in's. The stored session, if any, is not sent: the new one is the one wanted.
 */
export async function takeUpSingleSignOn(): Promise<void> {
  if (!document.cookie.split('; ').includes(`${OIDC_HANDOFF_COOKIE}=1`)) return;
  try {
    const res = await fetch(OIDC_PATHS.session, { method: 'POST', credentials: 'include' });
    if (!res.ok) return;
    const { sessionId, user } = (await res.json()) as LoginResponse;
    setSession(sessionId, user);
  } catch {
    // The server is unreachable: the login screen stays, and signing in again works.
  }
}
