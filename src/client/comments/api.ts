import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ActivityEntry, taskActivityPath } from '../../common/activity';
import { type Comment, commentPath, taskCommentsPath } from '../../common/comments';
import { apiRequest } from '../lib/api';
import { invalidateTask, useUpdateTask } from '../tasks/api';

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

export const usePostComment = (taskId: number) =>
  useCommentMutation(taskId, (body: string) => apiRequest('POST', taskCommentsPath(taskId), { body }));

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
