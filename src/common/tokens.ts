import { z } from 'zod';
import { idParam } from './ids';

/** Personal API tokens and "Your devices" (issue 12): the API contract, shared with the client. */

export const TOKENS_PATH = '/api/tokens';
export const DEVICE_SESSIONS_PATH = '/api/auth/sessions';

export const TOKEN_LIMITS = {
  nameMax: 100,
  expiresInDaysMin: 1,
  expiresInDaysMax: 365,
  /** What every token starts with, so a leaked one is recognisable (secret scanners, logs). */
  prefix: 'tl_',
} as const;

export const createTokenBodySchema = z.object({
  name: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(TOKEN_LIMITS.nameMax, `Name must be at most ${TOKEN_LIMITS.nameMax} characters`),
  expiresInDays: z
    .number({ error: 'expiresInDays must be a whole number of days' })
    .int('expiresInDays must be a whole number of days')
    .min(
      TOKEN_LIMITS.expiresInDaysMin,
      `expiresInDays must be between ${TOKEN_LIMITS.expiresInDaysMin} and ${TOKEN_LIMITS.expiresInDaysMax}`,
    )
    .max(
      TOKEN_LIMITS.expiresInDaysMax,
      `expiresInDays must be between ${TOKEN_LIMITS.expiresInDaysMin} and ${TOKEN_LIMITS.expiresInDaysMax}`,
    )
    .nullish(),
});
export type CreateTokenBody = z.input<typeof createTokenBodySchema>;

/** GET /api/tokens: never the secret. */
export const apiTokenSchema = z.object({
  id: z.number(),
  name: z.string(),
  createdAt: z.string(),
  /** null: never expires. */
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type ApiToken = z.infer<typeof apiTokenSchema>;

/** POST /api/tokens: the token itself, shown this once. */
export const createdTokenSchema = z.object({
  id: z.number(),
  name: z.string(),
  token: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
});
export type CreatedToken = z.infer<typeof createdTokenSchema>;

export const tokenIdParamsSchema = z.object({ id: idParam() });

/** A signed-in session as "Your devices" lists it; `id` is a public id, never the session secret. */
export const deviceSessionSchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
  /** The session this request came with. */
  current: z.boolean(),
});
export type DeviceSession = z.infer<typeof deviceSessionSchema>;

/** Public session ids are 16 random bytes, base64url: 22 characters. */
export const SESSION_PUBLIC_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export const deviceSessionParamsSchema = z.object({
  id: z.string().regex(SESSION_PUBLIC_ID_PATTERN, 'id is not a session id'),
});
