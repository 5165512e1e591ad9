import crypto from 'node:crypto';
import type { InferResult, Kysely } from 'kysely';
import type { DeviceSession } from '../../common/tokens';
import type { Database, UserRow } from '../db/schema';
import { toBool, toIso } from '../db/values';
import type { SessionCache } from './session-cache';
import { hashToken, newSecretToken } from './tokens';

/** Refresh last use and sliding expiry at most this often, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;
/** A User-Agent is kept for people to recognise their devices, not as a blob store. */
export const USER_AGENT_MAX = 400;

/** Where a sign-in came from, shown in "Your devices". */
export interface SessionDevice {
  userAgent?: string | null;
  ip?: string | null;
}

/** 16 random bytes, base64url: the id "Your devices" shows; it reveals nothing of the secret. */
const newPublicId = (): string => crypto.randomBytes(16).toString('base64url');

export interface SessionStore {
  create(userId: number, device?: SessionDevice): Promise<string>;
  /**
   * The session's user, or null when it does not hold. From the session cache when there is one
   * and it knows the session, unless `fresh` asks the database (state-changing requests do).
   */
  resolve(
    sessionId: string,
    options?: { fresh?: boolean },
  ): Promise<{ user: UserRow; idHash: string } | null>;
  end(sessionId: string): Promise<void>;
  /** Ends the user's sessions but one; the kept one's cached user row is forgotten too. */
  endAllForUser(userId: number, exceptIdHash?: string): Promise<void>;
  /** The user's row changed (or is gone): every instance forgets their cached sessions. */
  forgetUser(userId: number): Promise<void>;
  /** The user's live sessions, most recently seen first; `current` marks the one with this hash. */
  listForUser(userId: number, currentIdHash: string | null): Promise<DeviceSession[]>;
  /** Ends one of the user's sessions by its public id; the hash it had, or null when none matched. */
  endByPublicId(userId: number, publicId: string): Promise<string | null>;
}

export function createSessionStore(
  db: Kysely<Database>,
  ttlMs: number,
  { cache }: { cache?: SessionCache } = {},
): SessionStore {
  const forgetUser = async (userId: number) => {
    await cache?.invalidate({ userId });
  };
  // Built and compiled once, run with each session's hash (decision 047): a write asks the
  // database for its session on every request, and building the query cost more than running it.
  const lookup = db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .selectAll('users')
    .select(['sessions.expires_at', 'sessions.last_used_at'])
    .where('sessions.id_hash', '=', '');
  const lookupQuery = lookup.compile();
  const find = async (idHash: string) =>
    (await db.executeQuery<InferResult<typeof lookup>[number]>({ ...lookupQuery, parameters: [idHash] }))
      .rows[0];
  return {
    async create(userId, device = {}) {
      const sessionId = newSecretToken();
      const now = Date.now();
      await db
        .insertInto('sessions')
        .values({
          id_hash: hashToken(sessionId),
          user_id: userId,
          created_at: new Date(now).toISOString(),
          last_used_at: new Date(now).toISOString(),
          expires_at: new Date(now + ttlMs).toISOString(),
          public_id: newPublicId(),
          user_agent: device.userAgent ? device.userAgent.slice(0, USER_AGENT_MAX) : null,
          ip: device.ip || null,
        })
        .execute();
      return sessionId;
    },

    async resolve(sessionId, { fresh = false } = {}) {
      if (!sessionId || sessionId.length > 100) return null;
      if (cache && !fresh) {
        const cached = cache.get(sessionId);
        if (cached) return { user: cached.user, idHash: cached.idHash };
      }
      const generation = cache?.generation() ?? 0;
      const idHash = hashToken(sessionId);
      const row = await find(idHash);
      if (!row) {
        cache?.drop(sessionId);
        return null;
      }
      const now = Date.now();
      if (new Date(toIso(row.expires_at)).getTime() <= now || toBool(row.is_suspended)) {
        cache?.drop(sessionId);
        await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
        return null;
      }
      let expiresAt = new Date(toIso(row.expires_at)).getTime();
      if (now - new Date(toIso(row.last_used_at)).getTime() > TOUCH_INTERVAL_MS) {
        expiresAt = now + ttlMs;
        await db
          .updateTable('sessions')
          .set({ last_used_at: new Date(now).toISOString(), expires_at: new Date(expiresAt).toISOString() })
          .where('id_hash', '=', idHash)
          .execute();
      }
      const { expires_at: _e, last_used_at: _l, ...user } = row;
      cache?.set(sessionId, { user, idHash, expiresAt }, generation);
      return { user, idHash };
    },

    async end(sessionId) {
      const idHash = hashToken(sessionId);
      await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
      await cache?.invalidate({ idHash });
    },

    async endAllForUser(userId, exceptIdHash) {
      let query = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (exceptIdHash) query = query.where('id_hash', '!=', exceptIdHash);
      await query.execute();
      await forgetUser(userId);
    },

    forgetUser,

    async listForUser(userId, currentIdHash) {
      const rows = await db
        .selectFrom('sessions')
        .select(['id_hash', 'public_id', 'created_at', 'last_used_at', 'expires_at', 'user_agent', 'ip'])
        .where('user_id', '=', userId)
        .orderBy('last_used_at', 'desc')
        .execute();
      const now = Date.now();
      const live = rows.filter((row) => new Date(toIso(row.expires_at)).getTime() > now);
      for (const row of live) {
        // Written by an instance older than migration 0004 (a rolling upgrade): give it its id now.
        if (!row.public_id) {
          row.public_id = newPublicId();
          await db
            .updateTable('sessions')
            .set({ public_id: row.public_id })
            .where('id_hash', '=', row.id_hash)
            .where('public_id', 'is', null)
            .execute();
        }
      }
      return live.map((row) => ({
        id: row.public_id as string,
        createdAt: toIso(row.created_at),
        lastSeenAt: toIso(row.last_used_at),
        userAgent: row.user_agent,
        ip: row.ip,
        current: row.id_hash === currentIdHash,
      }));
    },

    async endByPublicId(userId, publicId) {
      const ended = await db
        .deleteFrom('sessions')
        .where('user_id', '=', userId)
        .where('public_id', '=', publicId)
        .returning('id_hash')
        .executeTakeFirst();
      if (ended) await cache?.invalidate({ idHash: ended.id_hash });
      return ended?.id_hash ?? null;
    },
  };
}
