import { z } from 'zod';
import { LIMITS, VALIDATION } from './spec';
import { isTimeZone } from './time-zone';

/** Field limits shared by the forms and the routes. */
export const AUTH_LIMITS = {
  usernameMax: 64,
  passwordMax: 256,
  emailMax: 254,
  firstNameMax: 100,
  messageMax: 2000,
} as const;

const trimmed = (field: string, max: number) =>
  z
    .string({ error: `${field} is required` })
    .trim()
    .min(1, `${field} is required`)
    .max(max, `${field} must be at most ${max} characters`);

/** Trimmed, then checked. A request's side of a pipe is the plain string, so `meta` names the format. */
export const emailSchema = z
  .string({ error: VALIDATION.validEmailRequired })
  .trim()
  .max(AUTH_LIMITS.emailMax, VALIDATION.validEmailRequired)
  .pipe(z.email(VALIDATION.validEmailRequired))
  .meta({ format: 'email', description: 'An e-mail address; spaces around it are ignored.' });

/** A username as typed at sign-in or requested: letters, digits and . _ - */
export const usernameSchema = trimmed('Username', AUTH_LIMITS.usernameMax).regex(
  /^[A-Za-z0-9._-]+$/,
  'Username may contain only letters, digits, dots, dashes and underscores',
);

export const publicUserSchema = z.object({
  id: z.number(),
  username: z.string(),
  firstName: z.string(),
  email: z.string().nullable(),
  isAdmin: z.boolean(),
  isSuspended: z.boolean(),
  createdAt: z.string(),
  /** Two-factor sign-in (TOTP) is on for the account. */
  twoFactorEnabled: z.boolean(),
  /**
   * IANA time zone (issues 22 and 28), as the person or their browser named it; the server's
   * default (DEFAULT_TIME_ZONE) until one of them sets it. Never null.
   */
  timeZone: z.string().meta({ example: 'Asia/Kolkata' }),
  /** The person chose timeZone; false: it is the server's default or their browser's, which the app follows. */
  timeZoneChosen: z.boolean(),
});
export type PublicUser = z.infer<typeof publicUserSchema>;

export const TIME_ZONE_MESSAGE = 'timeZone must be an IANA time zone such as Europe/Berlin';

/** PATCH /api/auth/me (issue 22): the caller's own settings; today only their time zone. */
export const updateMeBodySchema = z
  .strictObject({
    timeZone: z
      .string({ error: TIME_ZONE_MESSAGE })
      .max(100, TIME_ZONE_MESSAGE)
      .refine(isTimeZone, TIME_ZONE_MESSAGE)
      .meta({
        description:
          "An IANA time zone ('Europe/Berlin'), as Intl knows it; stored under its IANA name, however it is spelled (ICU's old names such as 'Asia/Calcutta' as the zone's: 'Asia/Kolkata').",
      }),
    timeZoneChosen: z.boolean({ error: 'timeZoneChosen must be true or false' }).default(true).meta({
      description:
        "false: the browser's zone, taken only while the person has not chosen one (the app sends it at sign-in). The default, true: the person's choice, which stays.",
    }),
  })
  .meta({ example: { timeZone: 'Europe/Berlin' } });
export type UpdateMeBody = z.infer<typeof updateMeBodySchema>;
export const ME_PATH = '/api/auth/me';

export const loginBodySchema = z.object({
  username: trimmed('Username', AUTH_LIMITS.usernameMax),
  password: z
    .string({ error: 'Password is required' })
    .min(1, 'Password is required')
    .max(AUTH_LIMITS.passwordMax, 'Password is too long'),
});
export type LoginBody = z.infer<typeof loginBodySchema>;

export const loginResponseSchema = z.object({
  sessionId: z.string(),
  user: publicUserSchema,
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const newPasswordSchema = z
  .string({ error: VALIDATION.passwordTooShort })
  .min(LIMITS.minPasswordLength, VALIDATION.passwordTooShort)
  .max(AUTH_LIMITS.passwordMax, 'Password is too long');

export const changePasswordBodySchema = z.object({
  currentPassword: z
    .string({ error: 'Current password is required' })
    .min(1, 'Current password is required')
    .max(AUTH_LIMITS.passwordMax, 'Current password is too long'),
  newPassword: newPasswordSchema,
});
export type ChangePasswordBody = z.infer<typeof changePasswordBodySchema>;

/** The change-password form adds a confirmation field that never leaves the browser. */
export const changePasswordFormSchema = changePasswordBodySchema
  .extend({ confirmPassword: z.string() })
  .refine((v) => v.newPassword === v.confirmPassword, {
    message: VALIDATION.passwordsDoNotMatch,
    path: ['confirmPassword'],
  });
export type ChangePasswordForm = z.infer<typeof changePasswordFormSchema>;

export const sendPasswordBodySchema = z.object({ email: emailSchema });
export type SendPasswordBody = z.infer<typeof sendPasswordBodySchema>;

export const resetPasswordBodySchema = z.object({
  token: z.string().min(1, 'Token is required').max(200, 'Token is invalid'),
  newPassword: newPasswordSchema,
});
export type ResetPasswordBody = z.infer<typeof resetPasswordBodySchema>;

export const accessRequestBodySchema = z.object({
  email: emailSchema,
  requestedUsername: usernameSchema,
  message: z
    .string()
    .trim()
    .max(AUTH_LIMITS.messageMax, `Message must be at most ${AUTH_LIMITS.messageMax} characters`)
    .optional()
    .nullable()
    .transform((v) => (v ? v : null)),
});
export type AccessRequestBody = z.input<typeof accessRequestBodySchema>;

export const messageResponseSchema = z.object({ message: z.string() });

/**
 * `GET /api/auth/providers`: the ways to sign in this server offers besides a password, for the
 * login screen (public). An object, so each sign-in method adds its own field.
 */
export const AUTH_PROVIDERS_PATH = '/api/auth/providers';
export const authProvidersSchema = z.object({
  /** False when APP_URL cannot carry passkeys (an IP address, or plain HTTP away from localhost). */
  passkeys: z.boolean(),
  /** Null unless single sign-on is configured (OIDC_ISSUER). */
  oidc: z.object({ name: z.string() }).nullable(),
});
export type AuthProviders = z.infer<typeof authProvidersSchema>;
