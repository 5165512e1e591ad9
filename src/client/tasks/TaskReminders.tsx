import { BellPlusIcon, Trash2Icon } from 'lucide-react';
import { useId, useState } from 'react';
import type { TaskSummary } from '../../common/tasks';
import { type Reminder, useAddReminder, useDeleteReminder, useReminders } from '../notifications/api';
import { NOTIFICATION_COPY } from '../notifications/copy';
import { useTaskPermissions } from '../projects/api';
import { Button } from '../ui/button';
import { Input } from '../ui/input';
import { Label } from '../ui/label';
import { errorToast } from '../ui/toasts';

const whenFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** How a reminder reads: '30 min before due' or 'Mon, 7 Dec 2026, 09:00'. */
export const reminderWords = (reminder: Reminder) =>
  reminder.relativeMinutes !== null
    ? NOTIFICATION_COPY.minutesBefore(reminder.relativeMinutes)
    : whenFormat.format(new Date(reminder.at ?? 0));

/**
 * The expanded card's reminders (issue 22): the list, adding one at a date and time or some minutes
 * before a due time, and deleting. Shown to those who may change the task (editors and up).
 */
export function TaskReminders({ task }: { task: TaskSummary }) {
  const canChange = useTaskPermissions(task.projectId).change;
  const reminders = useReminders(task.id);
  const add = useAddReminder(task.id);
  const remove = useDeleteReminder(task.id);
  const hasDueTime = task.dueDate !== null && task.dueTime !== null;
  const [mode, setMode] = useState<'at' | 'before'>('at');
  const [at, setAt] = useState('');
  const [minutes, setMinutes] = useState('30');
  const id = useId();

  if (!canChange) return null;
  const relative = hasDueTime && mode === 'before';

  const submit = () => {
    if (!relative && !at) return errorToast(NOTIFICATION_COPY.reminderNeedsTime);
    const body = relative ? { relativeMinutes: Number(minutes) } : { at: new Date(at).toISOString() };
    add.mutate(body, {
      onSuccess: () => setAt(''),
      onError: () => errorToast(NOTIFICATION_COPY.reminderAddFailed),
    });
  };

  return (
    <section aria-labelledby={`${id}-heading`} className="grid gap-2">
      <h3 id={`${id}-heading`} className="text-sm leading-none font-medium">
        {NOTIFICATION_COPY.remindersHeading}
      </h3>
      {reminders.data && reminders.data.length > 0 ? (
        <ul aria-labelledby={`${id}-heading`} className="grid gap-1">
          {reminders.data.map((reminder) => {
            const words = reminderWords(reminder);
            return (
              <li key={reminder.id} className="flex items-center gap-2 text-sm">
                <span className={reminder.firedAt ? 'text-muted-foreground line-through' : undefined}>
                  {words}
                </span>
                {reminder.firedAt && (
                  <span className="text-xs text-muted-foreground">{NOTIFICATION_COPY.reminderFired}</span>
                )}
                <Button
                  variant="ghost"
                  size="icon"
                  className="size-7 text-muted-foreground"
                  aria-label={NOTIFICATION_COPY.deleteReminder(words)}
                  onClick={() =>
                    remove.mutate(reminder.id, {
                      onError: () => errorToast(NOTIFICATION_COPY.reminderDeleteFailed),
                    })
                  }
                >
                  <Trash2Icon aria-hidden />
                </Button>
              </li>
            );
          })}
        </ul>
      ) : (
        reminders.isSuccess && (
          <p className="text-sm text-muted-foreground">{NOTIFICATION_COPY.remindersEmpty}</p>
        )
      )}
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        {hasDueTime && (
          <div className="grid gap-1">
            <Label htmlFor={`${id}-mode`} className="text-xs text-muted-foreground">
              {NOTIFICATION_COPY.reminderMode}
            </Label>
            <select
              id={`${id}-mode`}
              value={mode}
              onChange={(event) => setMode(event.target.value as 'at' | 'before')}
              className="h-9 rounded-md border bg-transparent px-2 text-sm"
            >
              <option value="at">{NOTIFICATION_COPY.modeAt}</option>
              <option value="before">{NOTIFICATION_COPY.modeBefore}</option>
            </select>
          </div>
        )}
        {relative ? (
          <div className="grid gap-1">
            <Label htmlFor={`${id}-minutes`} className="text-xs text-muted-foreground">
              {NOTIFICATION_COPY.reminderBefore}
            </Label>
            <Input
              id={`${id}-minutes`}
              type="number"
              min={0}
              max={40320}
              step={5}
              value={minutes}
              onChange={(event) => setMinutes(event.target.value)}
              className="w-28"
            />
          </div>
        ) : (
          <div className="grid gap-1">
            <Label htmlFor={`${id}-at`} className="text-xs text-muted-foreground">
              {NOTIFICATION_COPY.reminderAt}
            </Label>
            <Input
              id={`${id}-at`}
              type="datetime-local"
              value={at}
              onChange={(event) => setAt(event.target.value)}
              className="w-56"
            />
          </div>
        )}
        <Button type="submit" variant="outline" disabled={add.isPending}>
          <BellPlusIcon aria-hidden />
          {NOTIFICATION_COPY.addReminder}
        </Button>
      </form>
    </section>
  );
}
