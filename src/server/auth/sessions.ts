import type { Kysely } from 'kysely';
import type { Database, UserRow } from '../db/schema';
import { toBool, toIso } from '../db/values';
import { hashToken, newSecretToken } from './tokens';

/** Refresh last use and sliding expiry at most this often, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;

export interface SessionStore {
  create(userId: number): Promise<string>;
  resolve(sessionId: string): Promise<{ user: UserRow; idHash: string } | null>;
  end(sessionId: string): Promise<void>;
  endAllForUser(userId: number, exceptIdHash?: string): Promise<void>;
}

export function createSessionStore(db: Kysely<Database>, ttlMs: number): SessionStore {
  return {
    async create(userId) {
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
        })
        .execute();
      return sessionId;
    },

    async resolve(sessionId) {
      if (!sessionId || sessionId.length > 100) return null;
      const idHash = hashToken(sessionId);
      const row = await db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .selectAll('users')
        .select(['sessions.expires_at', 'sessions.last_used_at'])
        .where('sessions.id_hash', '=', idHash)
        .executeTakeFirst();
      if (!row) return null;
      const now = Date.now();
      if (new Date(toIso(row.expires_at)).getTime() <= now || toBool(row.is_suspended)) {
        await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
        return null;
      }
      if (now - new Date(toIso(row.last_used_at)).getTime() > TOUCH_INTERVAL_MS) {
        await db
          .updateTable('sessions')
          .set({ last_used_at: new Date(now).toISOString(), expires_at: new Date(now + ttlMs).toISOString() })
          .where('id_hash', '=', idHash)
          .execute();
      }
      const { expires_at: _e, last_used_at: _l, ...user } = row;
      return { user, idHash };
    },

    async end(sessionId) {
      await db.deleteFrom('sessions').where('id_hash', '=', hashToken(sessionId)).execute();
    },

    async endAllForUser(userId, exceptIdHash) {
      let query = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (exceptIdHash) query = query.where('id_hash', '!=', exceptIdHash);
      await query.execute();
    },
  };
}
