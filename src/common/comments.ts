import { z } from 'zod';
import { idParam } from './ids';
import { TASKS_PATH } from './tasks';

/** Comments on a task (issue 21): the API contract, shared with the client. */

export const COMMENTS_PATH = '/api/comments';
export const commentPath = (id: number) => `${COMMENTS_PATH}/${id}`;
/** A task's comments: also the query key its thread is cached under, and the live event naming it. */
export const taskCommentsPath = (taskId: number) => `${TASKS_PATH}/${taskId}/comments`;

export const COMMENT_LIMITS = { bodyMax: 10_000 } as const;

/** The words of every refusal about comments, in one place. */
export const COMMENT_MESSAGES = {
  bodyRequired: 'body is required',
  bodyTooLong: `body must be at most ${COMMENT_LIMITS.bodyMax.toLocaleString('en')} characters`,
  onlyAuthorEdits: 'Only its author can edit a comment',
  onlyAuthorOrAdminDeletes: 'Only its author or a project admin can delete a comment',
} as const;

/** GET /api/tasks/{id}/comments: one comment, as Markdown written by its author. */
export const commentSchema = z.object({
  id: z.number(),
  taskId: z.number(),
  /** Null once the author's account is deleted. */
  authorId: z.number().nullable(),
  /** The author's first name, or 'Deleted user'. */
  authorName: z.string(),
  /** Markdown, trimmed. Clients render it without raw HTML (decision 031). */
  body: z.string(),
  createdAt: z.string(),
  editedAt: z.string().nullable(),
});
export type Comment = z.infer<typeof commentSchema>;

/** POST /api/tasks/{id}/comments and PATCH /api/comments/{id}: the form and the route parse it alike. */
export const commentBodySchema = z
  .strictObject({
    body: z
      .string({ error: COMMENT_MESSAGES.bodyRequired })
      .trim()
      .min(1, COMMENT_MESSAGES.bodyRequired)
      .max(COMMENT_LIMITS.bodyMax, COMMENT_MESSAGES.bodyTooLong),
  })
  .meta({ example: { body: 'Draft is ready for review, @anna: see the **second** section.' } });
export type CommentBody = z.infer<typeof commentBodySchema>;

export const commentIdParamsSchema = z.object({ id: idParam() });

/**
 * `@username` where a word cannot be running into it (so an e-mail address is no mention). Usernames
 * are letters, digits and `. _ -`; a sentence's full stop after a name is not part of it.
 */
const MENTION = /(?<![\w@.-])@([A-Za-z0-9._-]*[A-Za-z0-9_])/g;

/** Where a text mentions one of `usernames` (any case), in order: the server stores them, the client highlights them. */
export function findMentions(
  text: string,
  usernames: Iterable<string>,
): Array<{ index: number; length: number; username: string }> {
  const known = new Map([...usernames].map((name) => [name.toLowerCase(), name]));
  return [...text.matchAll(MENTION)].flatMap((match) => {
    const username = known.get(match[1]!.toLowerCase());
    return username ? [{ index: match.index, length: match[0].length, username }] : [];
  });
}
