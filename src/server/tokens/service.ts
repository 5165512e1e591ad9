import crypto from 'node:crypto';
import type { ApiToken, CreatedToken, CreateTokenBody } from '../../common/tokens';
import { TOKEN_LIMITS } from '../../common/tokens';
import { hashToken } from '../auth/tokens';
import type { ApiTokenRow, UserRow } from '../db/schema';
import { toBool, toIso, toIsoOrNull } from '../db/values';
import { notFound } from '../http/errors';
import type { TokenRepository } from './repository';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Record last use at most this often, so an API client's reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;
/** Longer than any token we hand out (`tl_` + 43): anything longer is not ours, and is not hashed. */
const TOKEN_MAX_LENGTH = 200;

/** `tl_` followed by 32 random bytes, base64url (43 URL-safe characters). */
export const newApiToken = (): string =>
  `${TOKEN_LIMITS.prefix}${crypto.randomBytes(32).toString('base64url')}`;

const toApiToken = (row: ApiTokenRow): ApiToken => ({
  id: row.id,
  name: row.name,
  createdAt: toIso(row.created_at),
  expiresAt: toIsoOrNull(row.expires_at),
  lastUsedAt: toIsoOrNull(row.last_used_at),
});

export interface TokenServiceDeps {
  tokens: TokenRepository;
}

export function createTokenService({ tokens }: TokenServiceDeps) {
  return {
    list: async (userId: number): Promise<ApiToken[]> => (await tokens.list(userId)).map(toApiToken),

    /** The token is returned this once; only its hash is stored. */
    async create(userId: number, body: CreateTokenBody): Promise<CreatedToken> {
      const token = newApiToken();
      const now = Date.now();
      const row = await tokens.insert({
        userId,
        name: body.name.trim(),
        tokenHash: hashToken(token),
        createdAt: new Date(now).toISOString(),
        expiresAt: body.expiresInDays ? new Date(now + body.expiresInDays * DAY_MS).toISOString() : null,
      });
      const { id, name, createdAt, expiresAt } = toApiToken(row);
      return { id, name, token, createdAt, expiresAt };
    },

    /** Another person's token is answered as one that does not exist. */
    async revoke(userId: number, id: number): Promise<void> {
      if (!(await tokens.remove(userId, id))) throw notFound('API token');
    },

    /**
     * Authenticates `Authorization: Bearer <token>`: the owner, or null when the token is unknown
     * (revoked, or its user deleted), expired, or its user suspended.
     */
    async resolve(token: string): Promise<{ user: UserRow; idHash: string } | null> {
      if (!token.startsWith(TOKEN_LIMITS.prefix) || token.length > TOKEN_MAX_LENGTH) return null;
      const idHash = hashToken(token);
      const found = await tokens.findByHash(idHash);
      if (!found) return null;
      const now = Date.now();
      if (found.expiresAt !== null && new Date(toIso(found.expiresAt)).getTime() <= now) return null;
      if (toBool(found.user.is_suspended)) return null;
      if (
        found.lastUsedAt === null ||
        now - new Date(toIso(found.lastUsedAt)).getTime() > TOUCH_INTERVAL_MS
      ) {
        await tokens.touch(found.tokenId, new Date(now).toISOString());
      }
      return { user: found.user, idHash };
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
