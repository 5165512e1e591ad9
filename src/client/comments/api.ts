import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ActivityEntry, taskActivityPath } from '../../common/activity';
import { type Comment, commentPath, taskCommentsPath } from '../../common/comments';
import type { TaskSummary } from '../../common/tasks';
import { apiRequest } from '../lib/api';
import { getSession } from '../lib/session';
import { sendOrKeep } from '../offline/outbox';
import { cachedTask, invalidateTask, tasksKey, useUpdateTask } from '../tasks/api';

/**
 * Query keys are exactly the URLs the server's live updates name (`/api/tasks/<id>/comments`,
 * `/api/tasks/<id>/activity`), so a comment written in another browser refetches the thread here.
 */
export const commentsKey = (taskId: number) => [taskCommentsPath(taskId)] as const;
export const activityKey = (taskId: number) => [taskActivityPath(taskId)] as const;
export const COMMENT_ERRORS = {
  load: 'Could not load the comments',
  post: 'Could not post the comment',
  edit: 'Could not save the comment',
  remove: 'Could not delete the comment',
  assign: 'Could not change the assignees',
} as const;

/** Fetched only while the card is expanded (the thread mounts then). */
export const useComments = (taskId: number) => useQuery<Comment[]>({ queryKey: commentsKey(taskId) });

/** Newest first, as the server sends it. */
export const useActivity = (taskId: number) => useQuery<ActivityEntry[]>({ queryKey: activityKey(taskId) });

/** After any comment change: the thread, the activity, and the task's count in the lists. */
function useCommentMutation<V>(taskId: number, call: (variables: V) => Promise<Response>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: commentsKey(taskId) }),
        queryClient.invalidateQueries({ queryKey: activityKey(taskId) }),
        invalidateTask(queryClient, taskId),
      ]),
  });
}

/**
 * Issue 31: through the outbox. Kept offline, the comment shows at once at the end of the thread,
 * by the person, under a temporary (negative) id, and the task's count grows; the outbox refetches
 * the thread once it is sent.
 */
export function usePostComment(taskId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    networkMode: 'always',
    mutationFn: async (body: string) => {
      const title = cachedTask(queryClient, taskId)?.title ?? '';
      const res = await sendOrKeep({
        method: 'POST',
        url: taskCommentsPath(taskId),
        body: { body },
        task: { id: taskId, title },
      });
      if (!res) showKeptComment(queryClient, taskId, body);
      return res;
    },
    onSettled: (res, error) =>
      !error && !res
        ? undefined
        : Promise.all([
            queryClient.invalidateQueries({ queryKey: commentsKey(taskId) }),
            queryClient.invalidateQueries({ queryKey: activityKey(taskId) }),
            invalidateTask(queryClient, taskId),
          ]),
  });
}

let lastCommentId = 0;
/** A comment kept in the outbox has a negative id: it cannot be edited or deleted until it is saved. */
export const isKeptComment = (comment: Pick<Comment, 'id'>): boolean => comment.id < 0;

function showKeptComment(queryClient: QueryClient, taskId: number, body: string): void {
  const user = getSession()?.user;
  lastCommentId -= 1;
  const comment: Comment = {
    id: lastCommentId,
    taskId,
    authorId: user?.id ?? null,
    authorName: user?.firstName ?? '',
    body: body.trim(),
    createdAt: new Date().toISOString(),
    editedAt: null,
  };
  queryClient.setQueryData<Comment[]>(commentsKey(taskId), (comments) => [...(comments ?? []), comment]);
  queryClient.setQueriesData<TaskSummary[]>({ queryKey: tasksKey }, (tasks) =>
    tasks?.map((task) => (task.id === taskId ? { ...task, commentCount: task.commentCount + 1 } : task)),
  );
}

export const useEditComment = (taskId: number) =>
  useCommentMutation(taskId, ({ id, body }: { id: number; body: string }) =>
    apiRequest('PATCH', commentPath(id), { body }),
  );

export const useDeleteComment = (taskId: number) =>
  useCommentMutation(taskId, (id: number) => apiRequest('DELETE', commentPath(id)));

/** PATCH {assigneeIds}: the lists take the answer, and the card's Activity tells of it. */
export function useSetAssignees(taskId: number) {
  const queryClient = useQueryClient();
  const { mutateAsync } = useUpdateTask(taskId);
  return async (assigneeIds: number[]) => {
    await mutateAsync({ assigneeIds });
    void queryClient.invalidateQueries({ queryKey: activityKey(taskId) });
  };
}
