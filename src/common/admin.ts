import { z } from 'zod';
import { aiTokenUsageSchema } from './ai-runs';
import { AUTH_LIMITS, emailSchema, publicUserSchema } from './auth';
import { VALIDATION } from './spec';

/** Spec §5: the new-user form and POST /api/admin/users parse the same schema. */
export const createUserBodySchema = z.object({
  firstName: z
    .string({ error: VALIDATION.firstNameRequired })
    .trim()
    .min(1, VALIDATION.firstNameRequired)
    .max(AUTH_LIMITS.firstNameMax, `First name must be at most ${AUTH_LIMITS.firstNameMax} characters`),
  email: emailSchema,
});
export type CreateUserBody = z.infer<typeof createUserBodySchema>;

/** The admin's user list shows the same public shape a user sees of themselves (spec §3). */
export const adminUserSchema = publicUserSchema;
export type AdminUser = z.infer<typeof adminUserSchema>;

/** GET /api/admin/users: each user with the tokens their AI runs used this month (UTC). */
export const adminUserListItemSchema = adminUserSchema.extend({ aiTokens: aiTokenUsageSchema });
export type AdminUserListItem = z.infer<typeof adminUserListItemSchema>;

/** A new account or a resent invite: the password is in this answer once and nowhere else. */
export const credentialsResponseSchema = z.object({
  user: adminUserSchema,
  password: z.string(),
});
export type CredentialsResponse = z.infer<typeof credentialsResponseSchema>;

export const accessRequestSchema = z.object({
  id: z.number(),
  email: z.string(),
  requestedUsername: z.string(),
  message: z.string().nullable(),
  createdAt: z.string(),
});
export type AccessRequest = z.infer<typeof accessRequestSchema>;

export type AuditAction =
  | 'user.create'
  | 'user.suspend'
  | 'user.reactivate'
  | 'user.resend_invite'
  | 'user.delete'
  | 'user.2fa_reset'
  | 'access_request.approve'
  | 'access_request.deny';

export const auditEntrySchema = z.object({
  id: z.number(),
  actorId: z.number().nullable(),
  actorUsername: z.string(),
  action: z.string(),
  targetUserId: z.number().nullable(),
  targetLabel: z.string().nullable(),
  createdAt: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;
