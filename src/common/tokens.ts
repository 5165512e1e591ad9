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

/** What a token may do (issue 24): every token reads; one with 'write' also changes things. */
export const TOKEN_SCOPES = ['read', 'write'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export const TOKEN_MESSAGES = {
  /** The 403 a read-only token gets on any write (REST). */
  readOnly: 'This token can only read',
  /** Over MCP, naming the scope the tool needs. */
  readOnlyTool: (tool: string) => `This token can only read: ${tool} needs the 'write' scope`,
  scopesNeedRead: "scopes must include 'read'",
  projectIdsEmpty: 'projectIds must name at least one project, or be left out for all projects',
  projectIdsNotMember: 'projectIds must name projects you are a member of',
  /** A 403: what a token limited to some projects cannot do (create a project). */
  projectLimited: 'This token is limited to some projects',
} as const;

/** The Security dialog's words for a token's limits. */
export const TOKEN_COPY = {
  readOnly: 'Read only',
  readOnlyHint: 'The token can look but not change anything.',
  readWrite: 'Read and write',
  projects: 'Projects',
  projectsHint: 'None checked: all your projects, also those you join later.',
  allProjects: 'All projects',
  /** A project the token is limited to that the person has left, or that was deleted. */
  goneProject: 'a project you are no longer in',
} as const;

/**
 * 'Read only · Inbox, Website' or 'Read and write · All projects': a token's limits in a line,
 * with the names of the person's projects by id.
 */
export function tokenLimitsText(
  token: { scopes: readonly TokenScope[]; projectIds: readonly number[] | null },
  projectNames: ReadonlyMap<number, string>,
): string {
  const scope = token.scopes.includes('write') ? TOKEN_COPY.readWrite : TOKEN_COPY.readOnly;
  const projects =
    token.projectIds === null
      ? TOKEN_COPY.allProjects
      : token.projectIds.map((id) => projectNames.get(id) ?? TOKEN_COPY.goneProject).join(', ');
  return `${scope} · ${projects}`;
}

const scopesSchema = z
  .array(z.enum(TOKEN_SCOPES, { error: "scopes must be ['read'] or ['read', 'write']" }), {
    error: "scopes must be ['read'] or ['read', 'write']",
  })
  .refine((scopes) => scopes.includes('read'), TOKEN_MESSAGES.scopesNeedRead)
  .transform((scopes): TokenScope[] => (scopes.includes('write') ? ['read', 'write'] : ['read']))
  .describe("['read']: the token only reads (any other request is a 403). Default ['read', 'write'].");

const projectIdsSchema = z
  .array(
    z.number({ error: 'projectIds must be project ids' }).int('projectIds must be project ids').positive(),
    {
      error: 'projectIds must be a list of project ids',
    },
  )
  .min(1, TOKEN_MESSAGES.projectIdsEmpty)
  .max(1000, 'projectIds names too many projects')
  .transform((ids) => [...new Set(ids)])
  .describe('The projects the token is limited to (the Inbox is a project). Left out or null: all of them.');

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
  scopes: scopesSchema.optional(),
  projectIds: projectIdsSchema.nullish(),
});
export type CreateTokenBody = z.input<typeof createTokenBodySchema>;
/** The body as the route hands it on: trimmed, scopes in their normal form, projectIds without repeats. */
export type CreateTokenFields = z.output<typeof createTokenBodySchema>;

/** GET /api/tokens: never the secret. */
export const apiTokenSchema = z.object({
  id: z.number(),
  name: z.string(),
  createdAt: z.string(),
  /** null: never expires. */
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  /** ['read']: read only; ['read', 'write']: reads and changes. */
  scopes: z.array(z.enum(TOKEN_SCOPES)),
  /** The projects the token is limited to; null: all of its owner's projects (never []). */
  projectIds: z
    .array(z.number())
    .nullable()
    .describe(
      "The projects the token is limited to; null: all of its owner's projects (never an empty list).",
    ),
});
export type ApiToken = z.infer<typeof apiTokenSchema>;

/** POST /api/tokens: the token itself, shown this once. */
export const createdTokenSchema = z.object({
  id: z.number(),
  name: z.string(),
  token: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  /** ['read']: read only; ['read', 'write']: reads and changes. */
  scopes: z.array(z.enum(TOKEN_SCOPES)),
  /** The projects the token is limited to; null: all of its owner's projects (never []). */
  projectIds: z
    .array(z.number())
    .nullable()
    .describe(
      "The projects the token is limited to; null: all of its owner's projects (never an empty list).",
    ),
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
