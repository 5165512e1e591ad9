import { UserPlusIcon } from 'lucide-react';
import { useId, useState } from 'react';
import type { ProjectMember } from '../../common/projects';
import { TASK_LIMITS, type TaskSummary } from '../../common/tasks';
import { errorMessage } from '../lib/api';
import { Button } from '../ui/button';
import { Popover, PopoverContent, PopoverTrigger } from '../ui/popover';
import { errorToast } from '../ui/toasts';
import { COMMENT_ERRORS, useSetAssignees } from './api';
import { Initials, membersOf } from './People';

export const ASSIGNEE_COPY = {
  heading: 'Assignees',
  nobody: 'No one is assigned.',
  assign: 'Assign',
  pickerLabel: 'Assign people',
  atMost: `At most ${TASK_LIMITS.assigneesMax} people.`,
} as const;

type Props = {
  task: Pick<TaskSummary, 'id' | 'assigneeIds'>;
  members: ProjectMember[] | undefined;
  /** Editors and above: others see who is assigned, without the picker. */
  canAssign: boolean;
};

/**
 * Who the task is assigned to, and for an editor or more the picker: a popover of the project's
 * members as checkboxes (Tab, Space, Escape), each change saved at once (PATCH {assigneeIds}).
 */
export function AssigneePicker({ task, members, canAssign }: Props) {
  const headingId = useId();
  const setAssignees = useSetAssignees(task.id);
  // The choice shows at once; the server's answer replaces it.
  const [chosen, setChosen] = useState<number[] | null>(null);
  const shown = chosen ?? task.assigneeIds;
  const assigned = membersOf(shown, members);
  const full = shown.length >= TASK_LIMITS.assigneesMax;

  const toggle = (userId: number, on: boolean) => {
    const next = on ? [...shown, userId] : shown.filter((id) => id !== userId);
    setChosen(next);
    setAssignees(next)
      .catch((error: unknown) => errorToast(errorMessage(error, COMMENT_ERRORS.assign)))
      .finally(() => setChosen((current) => (current === next ? null : current)));
  };

  return (
    <section aria-labelledby={headingId} className="grid gap-2">
      <h3 id={headingId} className="text-sm leading-none font-medium">
        {ASSIGNEE_COPY.heading}
      </h3>
      <div className="flex flex-wrap items-center gap-2">
        {assigned.length === 0 ? (
          <p className="text-sm text-muted-foreground">{ASSIGNEE_COPY.nobody}</p>
        ) : (
          <ul className="flex flex-wrap gap-2">
            {assigned.map((member) => (
              <li
                key={member.userId}
                className="flex items-center gap-1.5 rounded-full border py-0.5 pr-2.5 pl-0.5 text-sm"
              >
                <Initials name={member.firstName} />
                {member.firstName}
              </li>
            ))}
          </ul>
        )}
        {canAssign && (
          <Popover>
            <PopoverTrigger asChild>
              <Button variant="outline" size="sm">
                <UserPlusIcon aria-hidden />
                {ASSIGNEE_COPY.assign}
              </Button>
            </PopoverTrigger>
            <PopoverContent align="start" className="w-64 p-2" aria-label={ASSIGNEE_COPY.pickerLabel}>
              <fieldset className="grid gap-0.5">
                <legend className="px-2 pt-1 pb-2 text-sm font-medium">{ASSIGNEE_COPY.pickerLabel}</legend>
                {(members ?? []).map((member) => {
                  const checked = shown.includes(member.userId);
                  const id = `assignee-${task.id}-${member.userId}`;
                  return (
                    <label
                      key={member.userId}
                      htmlFor={id}
                      className="flex cursor-pointer items-center gap-2 rounded-md px-2 py-1.5 text-sm hover:bg-accent has-disabled:cursor-default has-disabled:opacity-60"
                    >
                      <input
                        id={id}
                        type="checkbox"
                        className="size-4 accent-primary"
                        checked={checked}
                        disabled={!checked && full}
                        onChange={(event) => toggle(member.userId, event.target.checked)}
                      />
                      <Initials name={member.firstName} />
                      <span className="min-w-0 truncate">
                        {member.firstName} <span className="text-muted-foreground">@{member.username}</span>
                      </span>
                    </label>
                  );
                })}
                {full && <p className="px-2 pt-1 text-xs text-muted-foreground">{ASSIGNEE_COPY.atMost}</p>}
              </fieldset>
            </PopoverContent>
          </Popover>
        )}
      </div>
    </section>
  );
}
