import {
  AlarmClockIcon,
  BanIcon,
  CalendarIcon,
  CircleAlertIcon,
  ListChecksIcon,
  RepeatIcon,
} from 'lucide-react';
import { recurrenceText } from '../../common/recurrence';
import type { TaskSummary } from '../../common/tasks';
import { sameTimeZone } from '../../common/time-zone';
import { browserTimeZone } from '../auth/api';
import { CardPeople } from '../comments/People';
import { TaskFilesControl } from '../files/TaskFilesControl';
import { LabelChip, PriorityFlag } from '../labels/Tags';
import { cn } from '../lib/cn';
import { ProjectChip } from '../projects/ProjectChip';
import { Badge } from '../ui/badge';
import { formatDueDate, formatDueTime, taskUrgency } from './dates';
import { ParentLink, SubtaskProgress } from './SubtaskMeta';

const URGENCY = {
  overdue: { label: 'Overdue', icon: CircleAlertIcon, className: 'border-destructive/50 text-destructive' },
  today: { label: 'Due today', icon: AlarmClockIcon, className: 'border-primary/50 text-foreground' },
} as const;

/**
 * The row under a task's title, on active and archived cards alike: due date, checklist progress
 * ('2/5', issue 13), assignees' initials and the comment count (issue 21), then files. On an
 * active card an overdue or due-today date says so in words and with its own icon, not by colour
 * alone (issue 10); an archived task needs no alarm.
 */
export function TaskMeta({
  task,
  urgent = false,
  readOnly = false,
  parentLink = true,
}: {
  task: TaskSummary;
  urgent?: boolean;
  /** Issue 29: a sub-task away from its parent links to it ('in Plan trip'); under it, no need. */
  parentLink?: boolean;
  /** The files can be seen, not added or deleted (issue 21: a role that may not change tasks). */
  readOnly?: boolean;
}) {
  const urgency = urgent && task.dueDate ? taskUrgency(task) : null;
  // Asked only of a timed task (a board paints ~90 cards), and compared as zones: the browser names
  // some by ICU's old names ('Asia/Calcutta'), tasks by IANA's.
  const otherZone =
    task.dueTime && task.dueTimeZone && !sameTimeZone(task.dueTimeZone, browserTimeZone())
      ? task.dueTimeZone
      : null;
  const cue = urgency ? URGENCY[urgency] : null;
  const Icon = cue?.icon ?? CalendarIcon;
  return (
    <div className="flex flex-wrap items-center gap-2 pt-1 empty:hidden">
      {parentLink && <ParentLink task={task} />}
      <PriorityFlag priority={task.priority} />
      {task.blockedBy > 0 && (
        // Issue 29: while any blocker is open.
        <Badge
          variant="outline"
          className="font-medium"
          title={`Blocked by ${task.blockedBy} open ${task.blockedBy === 1 ? 'task' : 'tasks'}`}
        >
          <BanIcon aria-hidden />
          Blocked
        </Badge>
      )}
      <ProjectChip projectId={task.projectId} />
      {task.dueDate && (
        <Badge variant="outline" className={cn('font-normal text-muted-foreground', cue?.className)}>
          <Icon aria-hidden />
          {cue ? <span className="font-medium">{cue.label}:</span> : <span className="sr-only">Due </span>}
          {formatDueDate(task.dueDate)}
          {task.dueTime && (
            <span
              className="tabular-nums"
              title={otherZone ? `${formatDueTime(task.dueTime)} in ${otherZone}` : undefined}
            >
              {formatDueTime(task.dueTime)}
              {otherZone && <span className="sr-only"> {otherZone}</span>}
            </span>
          )}
        </Badge>
      )}
      {task.recurrence && (
        <Badge variant="outline" className="font-normal text-muted-foreground">
          <RepeatIcon aria-hidden />
          <span className="sr-only">Repeats: </span>
          {recurrenceText(task.recurrence)}
          {task.recurrenceFrom === 'completion' && <span className="sr-only"> from completion</span>}
        </Badge>
      )}
      {task.checklist.total > 0 && (
        <Badge variant="outline" className="font-normal text-muted-foreground">
          <ListChecksIcon aria-hidden />
          <span aria-hidden>
            {task.checklist.done}/{task.checklist.total}
          </span>
          <span className="sr-only">
            {task.checklist.done} of {task.checklist.total} checklist items done
          </span>
        </Badge>
      )}
      <SubtaskProgress task={task} />
      {task.labels.length > 0 && (
        <ul aria-label="Labels" className="flex flex-wrap items-center gap-1">
          {task.labels.map((label) => (
            <li key={label.id} className="flex">
              <LabelChip label={label} />
            </li>
          ))}
        </ul>
      )}
      <CardPeople task={task} />
      <TaskFilesControl taskId={task.id} readOnly={readOnly} />
    </div>
  );
}
