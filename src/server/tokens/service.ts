import crypto from 'node:crypto';
import type { ApiToken, CreatedToken, CreateTokenFields, TokenScope } from '../../common/tokens';
import { TOKEN_LIMITS, TOKEN_MESSAGES } from '../../common/tokens';
import type { Access, TokenLimits } from '../access';
import { hashToken } from '../auth/tokens';
import type { ApiTokenRow, UserRow } from '../db/schema';
import { toBool, toIso, toIsoOrNull } from '../db/values';
import { badRequest, notFound } from '../http/errors';
import type { TokenRepository } from './repository';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Record last use at most this often, so an API client's reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;
/** Longer than any token we hand out (`tl_` + 43): anything longer is not ours, and is not hashed. */
const TOKEN_MAX_LENGTH = 200;

/** `tl_` followed by 32 random bytes, base64url (43 URL-safe characters). */
export const newApiToken = (): string =>
  `${TOKEN_LIMITS.prefix}${crypto.randomBytes(32).toString('base64url')}`;

/** The stored list of projects (migration 0022): null, all of them. */
const projectIdsOf = (row: Pick<ApiTokenRow, 'project_ids'>): number[] | null =>
  row.project_ids === null ? null : (JSON.parse(row.project_ids) as number[]);

const scopesOf = (row: Pick<ApiTokenRow, 'can_write'>): TokenScope[] =>
  toBool(row.can_write) ? ['read', 'write'] : ['read'];

const toApiToken = (row: ApiTokenRow): ApiToken => ({
  id: row.id,
  name: row.name,
  createdAt: toIso(row.created_at),
  expiresAt: toIsoOrNull(row.expires_at),
  lastUsedAt: toIsoOrNull(row.last_used_at),
  scopes: scopesOf(row),
  projectIds: projectIdsOf(row),
});

export interface TokenServiceDeps {
  tokens: TokenRepository;
  access: Pick<Access, 'memberships'>;
}

export function createTokenService({ tokens, access }: TokenServiceDeps) {
  return {
    list: async (userId: number): Promise<ApiToken[]> => (await tokens.list(userId)).map(toApiToken),

    /** The token is returned this once; only its hash is stored. */
    async create(userId: number, body: CreateTokenFields): Promise<CreatedToken> {
      const projectIds = body.projectIds ?? null;
      if (projectIds) {
        const memberships = await access.memberships(userId);
        if (!projectIds.every((id) => memberships.has(id)))
          throw badRequest(TOKEN_MESSAGES.projectIdsNotMember);
      }
      const token = newApiToken();
      const now = Date.now();
      const row = await tokens.insert({
        userId,
        name: body.name.trim(),
        tokenHash: hashToken(token),
        createdAt: new Date(now).toISOString(),
        expiresAt: body.expiresInDays ? new Date(now + body.expiresInDays * DAY_MS).toISOString() : null,
        canWrite: (body.scopes ?? ['read', 'write']).includes('write'),
        projectIds,
      });
      const { lastUsedAt: _, ...created } = toApiToken(row);
      return { ...created, token };
    },

    /** Another person's token is answered as one that does not exist. */
    async revoke(userId: number, id: number): Promise<void> {
      if (!(await tokens.remove(userId, id))) throw notFound('API token');
    },

    /**
     * Authenticates `Authorization: Bearer <token>`: the owner, or null when the token is unknown
     * (revoked, or its user deleted), expired, or its user suspended.
     */
    async resolve(token: string): Promise<{ user: UserRow; idHash: string; limits: TokenLimits } | null> {
      if (!token.startsWith(TOKEN_LIMITS.prefix) || token.length > TOKEN_MAX_LENGTH) return null;
      const idHash = hashToken(token);
      const found = await tokens.findByHash(idHash);
      if (!found) return null;
      const now = Date.now();
      const { user, token: row } = found;
      if (row.expires_at !== null && new Date(toIso(row.expires_at)).getTime() <= now) return null;
      if (toBool(user.is_suspended)) return null;
      if (
        row.last_used_at === null ||
        now - new Date(toIso(row.last_used_at)).getTime() > TOUCH_INTERVAL_MS
      ) {
        await tokens.touch(row.id, new Date(now).toISOString());
      }
      const projectIds = projectIdsOf(row);
      return {
        user,
        idHash,
        limits: {
          userId: user.id,
          write: toBool(row.can_write),
          projectIds: projectIds && new Set(projectIds),
        },
      };
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
