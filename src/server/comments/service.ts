import type { Kysely } from 'kysely';
import { taskActivityPath } from '../../common/activity';
import { COMMENT_MESSAGES, type Comment, findMentions, taskCommentsPath } from '../../common/comments';
import { PROJECT_MESSAGES, roleAtLeast } from '../../common/projects';
import { ARCHIVED_TASKS_PATH, TASKS_PATH, taskPath } from '../../common/tasks';
import { ACCESS_MESSAGES, type Access, type TaskAccess } from '../access';
import { recordActivity } from '../activity/repository';
import type { Database } from '../db/schema';
import { conflict, forbidden, HttpError, notFound } from '../http/errors';
import type { ChangeEvent, ProjectEvents } from '../live/projects';
import type { NotificationService } from '../notifications/service';
import { commentTransaction, createCommentRepository } from './repository';

export interface CommentServiceDeps {
  db: Kysely<Database>;
  access: Access;
  /** The project's members' streams (../live/projects). */
  projectEvents: ProjectEvents;
  /** Who is told of a new comment: those mentioned, then the task's assignees and creator. */
  notifications?: Pick<NotificationService, 'notify'>;
}

const commentNotFound = () => notFound('Comment');

/**
 * Comment rules (issue 21). Who may see a task's comments, and who may write one, is the access
 * module's answer for the task (viewer sees, commenter writes); a comment on a task the caller cannot
 * see does not exist (404). Editing is its author's alone, while still commenter or more; deleting
 * is its author's, or any admin's of the project. `@username` of a member of the task's project is
 * a mention, stored with the comment; anyone else's is plain text.
 */
export function createCommentService({ db, access, projectEvents, notifications }: CommentServiceDeps) {
  const comments = createCommentRepository(db);
  const user = (id: number) => ({ id });

  /** Every member's open thread, activity and task lists (the comment count) refetch. */
  const changed = (projectId: number, taskId: number, events?: ChangeEvent[]) =>
    projectEvents(
      [projectId],
      [taskCommentsPath(taskId), taskActivityPath(taskId), TASKS_PATH, ARCHIVED_TASKS_PATH, taskPath(taskId)],
      events,
    );

  /** The members of the task's project whom the body mentions, by user id. */
  const mentioned = async (projectId: number, body: string): Promise<number[]> => {
    const members = await access.projectMembers(projectId);
    const byName = new Map(members.map((member) => [member.username, member.userId]));
    return [...new Set(findMentions(body, byName.keys()).map((mention) => byName.get(mention.username)!))];
  };

  /** The comment and the caller's access to its task; 404 'Comment not found' when they cannot see it. */
  const visible = async (userId: number, id: number): Promise<{ comment: Comment; task: TaskAccess }> => {
    const comment = await comments.find(id);
    if (!comment) throw commentNotFound();
    try {
      return { comment, task: await access.requireTask(user(userId), comment.taskId, 'viewer') };
    } catch (error) {
      throw error instanceof HttpError && error.statusCode === 404 ? commentNotFound() : error;
    }
  };

  /** The comment as just written (404 should it have been deleted since). */
  const reread = async (id: number): Promise<Comment> => {
    const comment = await comments.find(id);
    if (!comment) throw commentNotFound();
    return comment;
  };

  /**
   * `mentioned` to each person @named; `commented` to the task's assignees and creator who were not
   * (the author never; the notification service drops whoever cannot see the task).
   */
  const tellAbout = async (
    task: TaskAccess['task'],
    comment: Comment,
    mentions: number[],
    assignees: number[],
  ) => {
    if (!notifications) return;
    const excerpt = comment.body.length > 300 ? `${comment.body.slice(0, 299)}…` : comment.body;
    const about = { taskId: task.id, projectId: task.project_id, actorId: comment.authorId, body: excerpt };
    const mentioned = new Set(mentions);
    const others = [...new Set([...assignees, task.user_id])].filter((userId) => !mentioned.has(userId));
    await notifications.notify([
      ...mentions.map((userId) => ({
        ...about,
        userId,
        kind: 'mentioned' as const,
        title: `${comment.authorName} mentioned you on "${task.title}"`,
      })),
      ...others.map((userId) => ({
        ...about,
        userId,
        kind: 'commented' as const,
        title: `${comment.authorName} commented on "${task.title}"`,
      })),
    ]);
  };

  /** A write to a task in an archived project waits until it is restored (409). */
  const assertWritable = (task: TaskAccess) => {
    if (task.projectArchived) throw conflict(PROJECT_MESSAGES.archived);
  };

  return {
    async list(userId: number, taskId: number): Promise<Comment[]> {
      const { task } = await access.requireTask(user(userId), taskId, 'viewer');
      return comments.list(task.id);
    },

    /** The comment, its mentions, the task's count and a `commented` activity: one transaction. */
    async create(userId: number, taskId: number, body: string): Promise<Comment> {
      const { task } = await access.requireTask(user(userId), taskId, 'commenter');
      const mentions = await mentioned(task.project_id, body);
      const id = await commentTransaction(db, async (repository, trx) => {
        const inserted = await repository.insert(task.id, userId, body, mentions);
        await recordActivity(trx, [
          { taskId: task.id, actorId: userId, kind: 'commented', data: { commentId: inserted } },
        ]);
        return inserted;
      });
      const comment = await reread(id);
      const assigneeIds = (
        await db.selectFrom('task_assignees').select('user_id').where('task_id', '=', task.id).execute()
      ).map((row) => row.user_id);
      await changed(task.project_id, task.id, [
        { type: 'comment.created', projectId: task.project_id, assigneeIds, data: comment },
      ]);
      await tellAbout(task, comment, mentions, assigneeIds);
      return comment;
    },

    async update(userId: number, id: number, body: string): Promise<Comment> {
      const { comment, task } = await visible(userId, id);
      if (comment.authorId !== userId) throw forbidden(COMMENT_MESSAGES.onlyAuthorEdits);
      if (!roleAtLeast(task.role, 'commenter')) throw forbidden(ACCESS_MESSAGES.commenter);
      assertWritable(task);
      const mentions = await mentioned(task.task.project_id, body);
      await commentTransaction(db, (repository) => repository.update(id, body, mentions));
      await changed(task.task.project_id, comment.taskId);
      return reread(id);
    },

    async remove(userId: number, id: number): Promise<void> {
      const { comment, task } = await visible(userId, id);
      if (comment.authorId === userId) {
        if (!roleAtLeast(task.role, 'commenter')) throw forbidden(ACCESS_MESSAGES.commenter);
      } else if (!roleAtLeast(task.role, 'admin')) {
        throw forbidden(COMMENT_MESSAGES.onlyAuthorOrAdminDeletes);
      }
      assertWritable(task);
      await commentTransaction(db, (repository) => repository.delete(id, comment.taskId));
      await changed(task.task.project_id, comment.taskId);
    },
  };
}

export type CommentService = ReturnType<typeof createCommentService>;
