import { useMemo } from 'react';
import type { TaskSummary } from '../../common/tasks';
import { type TaskPermissions, useMembers, useProject } from '../projects/api';
import { ActivityList } from './ActivityList';
import { AssigneePicker } from './AssigneePicker';
import { CommentThread } from './CommentThread';

/**
 * What an expanded card adds for working together (issue 21): its assignees (with the picker for
 * editors), the comment thread and the Activity. The Inbox has one member, so no assignees there.
 */
export function TaskConversation({ task, can }: { task: TaskSummary; can: TaskPermissions }) {
  const project = useProject(task.projectId).data;
  const { data: members } = useMembers(task.projectId);
  const usernames = useMemo(() => members?.map((member) => member.username) ?? [], [members]);
  return (
    <>
      {project && !project.inbox && <AssigneePicker task={task} members={members} canAssign={can.change} />}
      <CommentThread taskId={task.id} can={can} usernames={usernames} />
      <ActivityList taskId={task.id} />
    </>
  );
}
