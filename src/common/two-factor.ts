import { z } from 'zod';
import { AUTH_LIMITS } from './auth';

/** Two-factor sign-in with TOTP (RFC 6238, issue 12): the API contract, shared with the client. */

export const TWO_FACTOR_PATHS = {
  status: '/api/auth/2fa',
  setup: '/api/auth/2fa/setup',
  enable: '/api/auth/2fa/enable',
  disable: '/api/auth/2fa/disable',
  login: '/api/auth/login/2fa',
  adminReset: (userId: number | string) => `/api/admin/users/${userId}/2fa`,
} as const;

export const TWO_FACTOR = {
  /** The name authenticator apps show above the account. */
  issuer: 'Tasklane',
  digits: 6,
  periodSeconds: 30,
  algorithm: 'SHA1',
  /** Steps accepted either side of the current one: the previous and the next. */
  window: 1,
  recoveryCodeCount: 10,
  /** How long the second step of a sign-in may wait after the password. */
  challengeTtlMs: 5 * 60 * 1000,
} as const;

export const TWO_FACTOR_MESSAGES = {
  codeRequired: 'Authentication code is required',
  wrongCode:
    'The authentication code is not correct. Try the current code from your app, or a recovery code.',
  wrongSetupCode: 'The code is not correct. Enter the current 6-digit code from your authenticator app.',
  notSetUp: 'Set up two-factor authentication first: the code is checked against the new secret.',
  alreadyOn: 'Two-factor authentication is already on. Turn it off first to set it up again.',
  notOn: 'Two-factor authentication is not turned on.',
  wrongPassword: 'The password is not correct.',
  challengeExpired: 'This sign-in has expired or was already used. Please sign in again.',
} as const;

/** A TOTP code or a recovery code, as typed: the server tells them apart. */
export const authenticationCodeSchema = z
  .string({ error: TWO_FACTOR_MESSAGES.codeRequired })
  .trim()
  .min(1, TWO_FACTOR_MESSAGES.codeRequired)
  .max(64, 'code must be at most 64 characters');

/** GET /api/auth/2fa: whether it is on, and how many unused recovery codes are left. */
export const twoFactorStatusSchema = z.object({
  enabled: z.boolean(),
  recoveryCodesLeft: z.number(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

/** POST /api/auth/2fa/setup: a new secret, not in force until enabled with a code from it. */
export const twoFactorSetupSchema = z.object({
  /** Base32, for typing into an app that cannot scan. */
  secret: z.string(),
  /** otpauth://totp/... : what the QR code holds. */
  otpauthUrl: z.string(),
});
export type TwoFactorSetup = z.infer<typeof twoFactorSetupSchema>;

export const enableTwoFactorBodySchema = z.object({ code: authenticationCodeSchema });
export type EnableTwoFactorBody = z.infer<typeof enableTwoFactorBodySchema>;

/** Shown once: only their hashes are kept. */
export const recoveryCodesSchema = z.object({ recoveryCodes: z.array(z.string()) });
export type RecoveryCodes = z.infer<typeof recoveryCodesSchema>;

export const disableTwoFactorBodySchema = z.object({
  password: z
    .string({ error: 'password is required' })
    .min(1, 'password is required')
    .max(AUTH_LIMITS.passwordMax, 'password is too long'),
  code: authenticationCodeSchema,
});
export type DisableTwoFactorBody = z.infer<typeof disableTwoFactorBodySchema>;

/** POST /api/auth/login with the right password when two-factor sign-in is on: no session yet. */
export const twoFactorChallengeSchema = z.object({
  twoFactorRequired: z.literal(true),
  challenge: z.string(),
});
export type TwoFactorChallenge = z.infer<typeof twoFactorChallengeSchema>;

export const loginTwoFactorBodySchema = z.object({
  challenge: z
    .string({ error: 'challenge is required' })
    .min(1, 'challenge is required')
    .max(200, 'challenge is invalid'),
  code: authenticationCodeSchema,
});
export type LoginTwoFactorBody = z.infer<typeof loginTwoFactorBodySchema>;
