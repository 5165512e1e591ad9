/**
 * Sign-in copy and names the server and the login screen share. No Zod here: the login screen
 * loads this module (see src/client/lib/lazy-zod-resolver.ts).
 */

/** What a suspended account is told, whichever way it signs in. */
export const SUSPENDED_MESSAGE = 'Your account has been suspended. Please contact an administrator.';

/** Single sign-on (OpenID Connect, decision 016). */
export const OIDC_PATHS = {
  /** A plain navigation here starts a sign-in at the provider. */
  start: '/api/auth/oidc/start',
  /** Where the provider sends the browser back: `${APP_URL}/api/auth/oidc/callback`. */
  callback: '/api/auth/oidc/callback',
  /** Hands the session the callback set in its cookie to the app, which keeps it like a password sign-in's. */
  session: '/api/auth/oidc/session',
} as const;

/**
 * A cookie the app can read, holding no secret: set by a successful callback, it tells the app once
 * that the session cookie is new and should be taken up (OIDC_PATHS.session).
 */
export const OIDC_HANDOFF_COOKIE = 'tasklane_sso';

/** A failed sign-in through the provider lands on `/?signInError=<code>`; the login screen shows the words. */
export const SIGN_IN_ERROR_PARAM = 'signInError';

export const OIDC_ERRORS = {
  noAccount: 'No Tasklane account for this e-mail',
  unverifiedEmail:
    'Your sign-in provider did not confirm your e-mail address, so it cannot be matched to a Tasklane account.',
  linkedElsewhere:
    'The Tasklane account for this e-mail is already linked to another person at your sign-in provider.',
  suspended: SUSPENDED_MESSAGE,
  failed: 'Single sign-on did not complete. Please try again.',
  unavailable: 'Single sign-on is not available right now. Please try again later.',
} as const;
export type OidcErrorCode = keyof typeof OIDC_ERRORS;

export const isOidcErrorCode = (code: string | null): code is OidcErrorCode =>
  code !== null && Object.hasOwn(OIDC_ERRORS, code);
