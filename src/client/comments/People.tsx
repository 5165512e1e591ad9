import { MessageSquareIcon } from 'lucide-react';
import { memo } from 'react';
import { counted } from '../../common/plural';
import type { ProjectMember } from '../../common/projects';
import type { TaskSummary } from '../../common/tasks';
import { cn } from '../lib/cn';
import { useMembers } from '../projects/api';
import { initialsOf } from '../projects/MemberAvatar';
import { Badge } from '../ui/badge';
import { nameList } from './activity';

/** A round badge with a person's initials; the name is told by whatever holds it. */
export function Initials({ name, className }: { name: string; className?: string }) {
  return (
    <span
      aria-hidden
      className={cn(
        'inline-flex size-6 shrink-0 items-center justify-center rounded-full border border-card bg-secondary text-[0.625rem] font-semibold text-secondary-foreground',
        className,
      )}
    >
      {initialsOf(name)}
    </span>
  );
}

/** The members with the given ids, in the order given (ids not, or not yet, known left out). */
export const membersOf = (ids: number[], members: ProjectMember[] | undefined): ProjectMember[] =>
  ids.flatMap((id) => members?.find((member) => member.userId === id) ?? []);

/**
 * On a collapsed card (issue 21): the assignees' initials, named for screen readers and on hover,
 * and the comment count when there are comments. The members are asked for only when someone is
 * assigned, once per project whatever the number of cards.
 */
export const CardPeople = memo(function CardPeople({
  task,
}: {
  task: Pick<TaskSummary, 'assigneeIds' | 'commentCount' | 'projectId'>;
}) {
  const { data: members } = useMembers(task.projectId, task.assigneeIds.length > 0);
  const assigned = membersOf(task.assigneeIds, members);
  const names = nameList(assigned.map((member) => member.firstName));
  return (
    <>
      {assigned.length > 0 && (
        <span className="flex items-center" title={`Assigned to ${names}`}>
          <span className="sr-only">Assigned to {names}</span>
          {assigned.map((member, index) => (
            <Initials
              key={member.userId}
              name={member.firstName}
              className={index > 0 ? '-ml-1.5' : undefined}
            />
          ))}
        </span>
      )}
      {task.commentCount > 0 && (
        <Badge variant="outline" className="font-normal text-muted-foreground">
          <MessageSquareIcon aria-hidden />
          <span aria-hidden>{task.commentCount}</span>
          <span className="sr-only">{counted(task.commentCount, 'comment', 'comments')}</span>
        </Badge>
      )}
    </>
  );
});
