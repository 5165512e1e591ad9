import { type Kysely, sql } from 'kysely';
import type { AccessRequest, AuditAction, AuditEntry } from '../../common/admin';
import type { AccessRequestRow, Database, UserRow } from '../db/schema';
import { nowIso, toIso } from '../db/values';

export const AUDIT_LOG_LIMIT = 200;

export function toAccessRequest(row: AccessRequestRow): AccessRequest {
  return {
    id: row.id,
    email: row.email,
    requestedUsername: row.requested_username,
    message: row.message,
    createdAt: toIso(row.created_at),
  };
}

/** Queries only; the rules live in ./service. Works on the database or on a transaction. */
export function createAdminRepository(db: Kysely<Database>) {
  return {
    /** Everyone but the bootstrap administrator, newest first. */
    listUsers: (): Promise<UserRow[]> =>
      db
        .selectFrom('users')
        .selectAll()
        .where('is_bootstrap', '=', false)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),

    /** Lower-cased usernames starting with `prefix` (letters and digits only, so no LIKE escaping). */
    usernamesStartingWith: async (prefix: string): Promise<Set<string>> => {
      const rows = await db
        .selectFrom('users')
        .select(sql<string>`lower(username)`.as('name'))
        .where(sql`lower(username)`, 'like', `${prefix}%`)
        .execute();
      return new Set(rows.map((r) => r.name));
    },

    setSuspended: (id: number, suspended: boolean): Promise<UserRow> =>
      db
        .updateTable('users')
        .set({ is_suspended: suspended, updated_at: nowIso() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow(),

    /** Deletes the user's file rows and returns their storage keys, so the contents can follow. */
    deleteFilesOf: async (userId: number): Promise<string[]> =>
      (await db.deleteFrom('files').where('user_id', '=', userId).returning('storage_key').execute()).map(
        (r) => r.storage_key,
      ),

    /** Tasks, agents, sessions and tokens go with the user through ON DELETE CASCADE. */
    deleteUser: async (id: number): Promise<void> => {
      await db.deleteFrom('users').where('id', '=', id).execute();
    },

    listAccessRequests: (): Promise<AccessRequestRow[]> =>
      db
        .selectFrom('access_requests')
        .selectAll()
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute(),

    findAccessRequest: (id: number): Promise<AccessRequestRow | undefined> =>
      db.selectFrom('access_requests').selectAll().where('id', '=', id).executeTakeFirst(),

    /** Removes the request; undefined when it was already gone (handled by someone else). */
    takeAccessRequest: (id: number): Promise<AccessRequestRow | undefined> =>
      db.deleteFrom('access_requests').where('id', '=', id).returningAll().executeTakeFirst(),

    audit: async (
      actor: Pick<UserRow, 'id' | 'username'>,
      action: AuditAction,
      target: { id: number | null; label: string | null },
    ): Promise<void> => {
      await db
        .insertInto('audit_log')
        .values({
          actor_id: actor.id,
          actor_username: actor.username,
          action,
          target_user_id: target.id,
          target_label: target.label,
          created_at: nowIso(),
        })
        .execute();
    },

    listAudit: async (): Promise<AuditEntry[]> => {
      const rows = await db
        .selectFrom('audit_log')
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(AUDIT_LOG_LIMIT)
        .execute();
      return rows.map((row) => ({
        id: row.id,
        actorId: row.actor_id,
        actorUsername: row.actor_username,
        action: row.action,
        targetUserId: row.target_user_id,
        targetLabel: row.target_label,
        createdAt: toIso(row.created_at),
      }));
    },
  };
}

export type AdminRepository = ReturnType<typeof createAdminRepository>;
