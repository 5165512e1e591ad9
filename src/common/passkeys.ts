import { z } from 'zod';
import { idParam } from './ids';

/** Passkeys (WebAuthn, issue 12): the API contract, shared with the client. */

export const PASSKEYS_PATH = '/api/auth/passkeys';

export const PASSKEY_LIMITS = {
  nameMax: 100,
  /** Registration and sign-in challenges are single-use and expire after this long. */
  challengeTtlMs: 5 * 60 * 1000,
  /** Longest base64url value taken from a browser: attestation objects with certificates are a few KB. */
  encodedMax: 64 * 1024,
} as const;

export const PASSKEY_MESSAGES = {
  unavailable:
    'Passkeys are not available on this server: they need Tasklane to be reached at a host name over HTTPS (or at localhost), not at an IP address. An administrator can set APP_URL to such an address.',
  unknownCredential:
    'This passkey is not registered with Tasklane (it may have been removed). Sign in with your password instead.',
  signInChallengeInvalid: 'This passkey sign-in has expired or was already used. Please try again.',
  signInNotVerified: 'The passkey could not be verified. Please try again.',
  registrationChallengeInvalid:
    'This passkey registration has expired or was already used. Please add the passkey again.',
  alreadyRegistered: 'This passkey is already registered.',
} as const;

export const passkeyNameSchema = z
  .string({ error: 'Name is required' })
  .trim()
  .min(1, 'Name is required')
  .max(PASSKEY_LIMITS.nameMax, `Name must be at most ${PASSKEY_LIMITS.nameMax} characters`);

/** GET /api/auth/passkeys: what a person sees of their passkeys; never the key material. */
export const passkeySchema = z.object({
  id: z.number(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type Passkey = z.infer<typeof passkeySchema>;

const encoded = (field: string) =>
  z
    .string({ error: `${field} is required` })
    .min(1, `${field} is required`)
    .max(PASSKEY_LIMITS.encodedMax, `${field} is too long`)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `${field} must be base64url`);

/**
 * What @simplewebauthn/browser's startRegistration() and startAuthentication() return, checked for
 * shape only (the signature and everything inside is checked by @simplewebauthn/server). Loose
 * objects: the library reads fields of its own that a strict schema would drop.
 */
const credentialBase = {
  id: encoded('response.id'),
  rawId: encoded('response.rawId'),
  type: z.literal('public-key', { error: "response.type must be 'public-key'" }),
  clientExtensionResults: z.looseObject({}).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

export const registrationResponseSchema = z.looseObject({
  ...credentialBase,
  response: z.looseObject({
    clientDataJSON: encoded('response.response.clientDataJSON'),
    attestationObject: encoded('response.response.attestationObject'),
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
});

export const authenticationResponseSchema = z.looseObject({
  ...credentialBase,
  response: z.looseObject({
    clientDataJSON: encoded('response.response.clientDataJSON'),
    authenticatorData: encoded('response.response.authenticatorData'),
    signature: encoded('response.response.signature'),
    userHandle: encoded('response.response.userHandle').optional(),
  }),
});

export const registerPasskeyBodySchema = z.object({
  name: passkeyNameSchema,
  response: registrationResponseSchema,
});
export type RegisterPasskeyBody = z.input<typeof registerPasskeyBodySchema>;

export const renamePasskeyBodySchema = z.object({ name: passkeyNameSchema });
export type RenamePasskeyBody = z.input<typeof renamePasskeyBodySchema>;

/** The challenge travels inside the signed client data, so the answer alone names it. */
export const passkeyLoginBodySchema = z.object({ response: authenticationResponseSchema });
export type PasskeyLoginBody = z.input<typeof passkeyLoginBodySchema>;

/** Options for navigator.credentials.create() / .get(), in WebAuthn's JSON form, passed through. */
export const passkeyOptionsResponseSchema = z.object({ options: z.looseObject({}) });

export const passkeyIdParamsSchema = z.object({ id: idParam() });
