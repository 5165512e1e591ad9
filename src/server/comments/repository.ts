import { type Kysely, sql } from 'kysely';
import { DELETED_USER_NAME } from '../../common/activity';
import type { Comment } from '../../common/comments';
import type { Database } from '../db/schema';
import { nowIso, toIso, toIsoOrNull } from '../db/values';
import { versionBump } from '../tasks/version';

/** Comments and their mentions: queries only (the rules are in ./service). */
export function createCommentRepository(db: Kysely<Database>) {
  /** The comments with their authors' first names ('Deleted user' once an account is gone), oldest first. */
  const select = () =>
    db
      .selectFrom('comments')
      .leftJoin('users', 'users.id', 'comments.author_id')
      .select([
        'comments.id',
        'comments.task_id',
        'comments.author_id',
        'comments.body',
        'comments.created_at',
        'comments.edited_at',
        'users.first_name',
      ])
      .orderBy('comments.id');

  type Row = Awaited<ReturnType<ReturnType<typeof select>['executeTakeFirstOrThrow']>>;
  const toComment = (row: Row): Comment => ({
    id: row.id,
    taskId: row.task_id,
    authorId: row.author_id,
    authorName: row.first_name ?? DELETED_USER_NAME,
    body: row.body,
    createdAt: toIso(row.created_at),
    editedAt: toIsoOrNull(row.edited_at),
  });

  /** Keeps the task's comment count, and touches it so cached lists (and their counts) refresh. */
  const recount = (taskId: number) =>
    db
      .updateTable('tasks')
      .set({
        comment_count: sql<number>`(select count(*) from comments where task_id = ${taskId})`,
        updated_at: nowIso(),
        ...versionBump,
      })
      .where('id', '=', taskId)
      .execute();

  const setMentions = async (commentId: number, userIds: number[]) => {
    await db.deleteFrom('comment_mentions').where('comment_id', '=', commentId).execute();
    if (userIds.length === 0) return;
    await db
      .insertInto('comment_mentions')
      .values(userIds.map((userId) => ({ comment_id: commentId, user_id: userId })))
      .execute();
  };

  return {
    async list(taskId: number): Promise<Comment[]> {
      return (await select().where('comments.task_id', '=', taskId).execute()).map(toComment);
    },

    async find(id: number): Promise<Comment | undefined> {
      const row = await select().where('comments.id', '=', id).executeTakeFirst();
      return row && toComment(row);
    },

    /** A new comment with its mentions; the task's count follows. */
    async insert(taskId: number, authorId: number, body: string, mentioned: number[]): Promise<number> {
      const { id } = await db
        .insertInto('comments')
        .values({ task_id: taskId, author_id: authorId, body, created_at: nowIso() })
        .returning('id')
        .executeTakeFirstOrThrow();
      await setMentions(id, mentioned);
      await recount(taskId);
      return id;
    },

    /** A new body, stamped as edited, with the mentions it makes now. */
    async update(id: number, body: string, mentioned: number[]): Promise<void> {
      await db.updateTable('comments').set({ body, edited_at: nowIso() }).where('id', '=', id).execute();
      await setMentions(id, mentioned);
    },

    /** Deletes the comment (its mentions go with it); the task's count follows. */
    async delete(id: number, taskId: number): Promise<void> {
      await db.deleteFrom('comments').where('id', '=', id).execute();
      await recount(taskId);
    },
  };
}

export type CommentRepository = ReturnType<typeof createCommentRepository>;

/** Runs `work` in one transaction, with a repository bound to it (and the transaction, for activity). */
export function commentTransaction<T>(
  db: Kysely<Database>,
  work: (repository: CommentRepository, trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute((trx) => work(createCommentRepository(trx), trx));
}
