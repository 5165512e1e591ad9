import type { Kysely } from 'kysely';
import type { ApiTokenRow, Database, UserRow } from '../db/schema';

/** Queries for personal API tokens; every one but the lookup by hash is scoped to its owner. */
export function createTokenRepository(db: Kysely<Database>) {
  return {
    list: (userId: number): Promise<ApiTokenRow[]> =>
      db
        .selectFrom('api_tokens')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),

    insert: (values: {
      userId: number;
      name: string;
      tokenHash: string;
      createdAt: string;
      expiresAt: string | null;
      canWrite: boolean;
      projectIds: number[] | null;
    }): Promise<ApiTokenRow> =>
      db
        .insertInto('api_tokens')
        .values({
          user_id: values.userId,
          name: values.name,
          token_hash: values.tokenHash,
          created_at: values.createdAt,
          expires_at: values.expiresAt,
          last_used_at: null,
          can_write: values.canWrite,
          project_ids: values.projectIds && JSON.stringify(values.projectIds),
        })
        .returningAll()
        .executeTakeFirstOrThrow(),

    /** True when the user had a token with this id. */
    remove: async (userId: number, id: number): Promise<boolean> => {
      const result = await db
        .deleteFrom('api_tokens')
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The token with this hash and its owner. */
    findByHash: async (
      tokenHash: string,
    ): Promise<
      | {
          user: UserRow;
          token: Pick<ApiTokenRow, 'id' | 'expires_at' | 'last_used_at' | 'can_write' | 'project_ids'>;
        }
      | undefined
    > => {
      const row = await db
        .selectFrom('api_tokens')
        .innerJoin('users', 'users.id', 'api_tokens.user_id')
        .selectAll('users')
        .select([
          'api_tokens.id as token_id',
          'api_tokens.expires_at as token_expires_at',
          'api_tokens.last_used_at as token_last_used_at',
          'api_tokens.can_write as token_can_write',
          'api_tokens.project_ids as token_project_ids',
        ])
        .where('api_tokens.token_hash', '=', tokenHash)
        .executeTakeFirst();
      if (!row) return undefined;
      const { token_id, token_expires_at, token_last_used_at, token_can_write, token_project_ids, ...user } =
        row;
      return {
        user,
        token: {
          id: token_id,
          expires_at: token_expires_at,
          last_used_at: token_last_used_at,
          can_write: token_can_write,
          project_ids: token_project_ids,
        },
      };
    },

    touch: async (id: number, at: string): Promise<void> => {
      await db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
    },
  };
}

export type TokenRepository = ReturnType<typeof createTokenRepository>;
