import { CheckCheckIcon } from 'lucide-react';
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { recurrenceText } from '../../common/recurrence';
import { COPY, ERRORS } from '../../common/spec';
import type { Task, TaskSummary } from '../../common/tasks';
import { cn } from '../lib/cn';
import { Button } from '../ui/button';
import { Input } from '../ui/input';
import { Textarea } from '../ui/textarea';
import { errorToast } from '../ui/toasts';
import type { TaskUpdates } from './api';

type InlineEditableProps = {
  value: string;
  /** The field's accessible name while editing. */
  label: string;
  multiline?: boolean;
  placeholder?: string;
  /** An empty text (after trimming) is saved only when this is true; otherwise the old text stays. */
  allowEmpty?: boolean;
  /** Called with the trimmed text, only when it differs from `value`. */
  onSave(next: string): void;
  /** Shown as text, not a control (issue 21: a role that may not change tasks). */
  readOnly?: boolean;
  className?: string;
  displayClassName?: string;
};

/**
 * Text that turns into a field on click (spec §2, §4): Enter or leaving the field saves, Escape puts the
 * original back. In a multi-line field Shift+Enter starts a new line.
 */
function InlineEditable({
  value,
  label,
  multiline = false,
  placeholder,
  allowEmpty = false,
  onSave,
  readOnly = false,
  className,
  displayClassName,
}: InlineEditableProps) {
  const [editing, setEditing] = useState(false);
  // Enter or Escape unmounts the field, which may also fire blur: only the first way out counts.
  const finished = useRef(false);
  const refocus = useRef(false);
  const displayRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    // After Enter or Escape, keyboard users carry on from the text they edited, not from the page top.
    if (!editing && refocus.current) {
      refocus.current = false;
      displayRef.current?.focus();
    }
  }, [editing]);

  const start = () => {
    finished.current = false;
    setEditing(true);
  };

  const finish = (text: string | null, viaKeyboard: boolean) => {
    if (finished.current) return;
    finished.current = true;
    refocus.current = viaKeyboard;
    setEditing(false);
    if (text === null) return;
    const next = text.trim();
    if ((next || allowEmpty) && next !== value) onSave(next);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      finish(null, true);
    } else if (event.key === 'Enter' && !(multiline && event.shiftKey) && !event.nativeEvent.isComposing) {
      event.preventDefault();
      finish(event.currentTarget.value, true);
    }
  };

  if (editing) {
    const field = {
      'aria-label': label,
      name: label.toLowerCase(),
      autoFocus: true,
      defaultValue: value,
      placeholder,
      onKeyDown,
      onBlur: (event: { currentTarget: { value: string } }) => finish(event.currentTarget.value, false),
    };
    return multiline ? (
      <Textarea {...field} className={cn('field-sizing-content min-h-16 resize-none', className)} />
    ) : (
      <Input {...field} className={cn('h-auto py-1', className)} />
    );
  }

  if (readOnly) {
    return value ? (
      <span className={cn('block break-words', className, displayClassName)}>{value}</span>
    ) : null;
  }

  return (
    <button
      ref={displayRef}
      type="button"
      onClick={start}
      onDoubleClick={start}
      className={cn(
        '-mx-1 block min-h-6 w-[calc(100%+0.5rem)] cursor-text rounded-md px-1 text-left break-words outline-none transition-colors hover:bg-accent/60 focus-visible:ring-2 focus-visible:ring-ring',
        className,
        displayClassName,
      )}
    >
      {value || <span className="text-muted-foreground italic">{placeholder}</span>}
    </button>
  );
}

type EditorProps = {
  task: TaskSummary;
  update(updates: TaskUpdates): Promise<Task>;
  /** Completed tasks are struck through (spec §2). */
  done: boolean;
  readOnly?: boolean;
};

/**
 * Shows the new text while it is being saved; a failure puts the saved text back. Returns what to show
 * and a save function.
 */
function usePendingSave(saved: string, save: (next: string) => Promise<unknown>, failure: string) {
  const [pending, setPending] = useState<string | null>(null);
  const commit = (next: string) => {
    setPending(next);
    save(next)
      .catch(() => errorToast(failure))
      .finally(() => setPending(null));
  };
  return [pending ?? saved, commit] as const;
}

export function TaskTitle({ task, update, done, readOnly }: EditorProps) {
  const [title, commit] = usePendingSave(task.title, (next) => update({ title: next }), ERRORS.updateTitle);
  return (
    <h2 className="min-w-0 text-base leading-snug font-medium">
      <InlineEditable
        value={title}
        label="Title"
        onSave={commit}
        readOnly={readOnly}
        className="font-medium"
        displayClassName={cn(done && 'text-muted-foreground line-through')}
      />
    </h2>
  );
}

export function TaskDescription({
  task,
  update,
  done,
  clamped,
  readOnly,
}: EditorProps & { clamped: boolean }) {
  const [description, commit] = usePendingSave(
    task.description ?? '',
    // Spec §5: an emptied description is saved as null.
    (next) => update({ description: next || null }),
    ERRORS.updateDescription,
  );
  return (
    <InlineEditable
      value={description}
      label="Description"
      multiline
      allowEmpty
      placeholder={COPY.descriptionPlaceholder}
      onSave={commit}
      readOnly={readOnly}
      className="text-sm leading-relaxed whitespace-pre-wrap text-muted-foreground"
      displayClassName={cn(clamped && 'line-clamp-3', done && 'line-through')}
    />
  );
}

/** The rules the card offers (issue 22); a task's own rule that is none of these is offered too. */
export const COMMON_RULES = [
  'FREQ=DAILY',
  'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
  'FREQ=WEEKLY',
  'FREQ=WEEKLY;INTERVAL=2',
  'FREQ=MONTHLY',
  'FREQ=YEARLY',
] as const;

export const SCHEDULE_COPY = {
  dueDate: 'Due date',
  dueTime: 'Due time',
  repeat: 'Repeat',
  noRepeat: 'Does not repeat',
  fromCompletion: 'From completion',
  completeForever: 'Complete forever',
  needsDate: 'Set a due date first',
} as const;

/**
 * The expanded card's due date, due time and repeat (issue 22): each saved as it changes. A time
 * and a repeat need a date (the controls say so and stay disabled without one); clearing the date
 * clears both. 'From completion' counts the next date from the day the task is completed.
 */
export function TaskSchedule({
  task,
  update,
  onCompleteForever,
  completing = false,
}: {
  task: TaskSummary;
  update(updates: TaskUpdates): Promise<Task>;
  onCompleteForever(): void;
  completing?: boolean;
}) {
  // The select and the checkbox show the choice at once; the saved value once the server answers.
  const [pending, setPending] = useState<Pick<TaskUpdates, 'recurrence' | 'recurrenceFrom'> | null>(null);
  const save = (updates: TaskUpdates) => {
    if ('recurrence' in updates || 'recurrenceFrom' in updates) setPending(updates);
    update(updates)
      .catch(() => errorToast(ERRORS.updateStatus))
      .finally(() => setPending(null));
  };
  const recurrence = pending?.recurrence !== undefined ? pending.recurrence : task.recurrence;
  const recurrenceFrom = pending?.recurrenceFrom ?? task.recurrenceFrom;
  const idBase = `task-${task.id}-schedule`;
  const rules: string[] = [...COMMON_RULES];
  if (task.recurrence && !rules.includes(task.recurrence)) rules.push(task.recurrence);
  // (`recurrence` below is the pending choice, when there is one.)
  const noDate = !task.dueDate;
  return (
    <fieldset className="grid gap-3 sm:grid-cols-[auto_auto_1fr] sm:items-end">
      <legend className="sr-only">Schedule</legend>
      <div className="grid gap-1">
        <label htmlFor={`${idBase}-date`} className="text-xs font-medium text-muted-foreground">
          {SCHEDULE_COPY.dueDate}
        </label>
        <Input
          id={`${idBase}-date`}
          type="date"
          name="dueDate"
          className="h-9 w-40"
          defaultValue={task.dueDate ?? ''}
          key={`date-${task.dueDate}`}
          onBlur={(event) => {
            const next = event.currentTarget.value || null;
            if (next !== task.dueDate) save({ dueDate: next });
          }}
        />
      </div>
      <div className="grid gap-1">
        <label htmlFor={`${idBase}-time`} className="text-xs font-medium text-muted-foreground">
          {SCHEDULE_COPY.dueTime}
        </label>
        <Input
          id={`${idBase}-time`}
          type="time"
          name="dueTime"
          className="h-9 w-32"
          disabled={noDate}
          title={noDate ? SCHEDULE_COPY.needsDate : undefined}
          defaultValue={task.dueTime ?? ''}
          key={`time-${task.dueTime}-${task.dueDate}`}
          onBlur={(event) => {
            const next = event.currentTarget.value.slice(0, 5) || null;
            if (next !== task.dueTime) save({ dueTime: next });
          }}
        />
      </div>
      <div className="flex flex-wrap items-end gap-3">
        <div className="grid gap-1">
          <label htmlFor={`${idBase}-repeat`} className="text-xs font-medium text-muted-foreground">
            {SCHEDULE_COPY.repeat}
          </label>
          <select
            id={`${idBase}-repeat`}
            name="recurrence"
            disabled={noDate}
            title={noDate ? SCHEDULE_COPY.needsDate : undefined}
            value={recurrence ?? ''}
            onChange={(event) => save({ recurrence: event.currentTarget.value || null })}
            className="h-9 rounded-md border border-input bg-background px-2 text-sm outline-none focus-visible:ring-2 focus-visible:ring-ring disabled:opacity-50"
          >
            <option value="">{SCHEDULE_COPY.noRepeat}</option>
            {rules.map((rule) => (
              <option key={rule} value={rule}>
                {recurrenceText(rule)}
              </option>
            ))}
          </select>
        </div>
        {recurrence && (
          <label className="flex h-9 items-center gap-2 text-sm">
            <input
              type="checkbox"
              name="recurrenceFrom"
              checked={recurrenceFrom === 'completion'}
              onChange={(event) =>
                save({ recurrenceFrom: event.currentTarget.checked ? 'completion' : 'due' })
              }
              className="size-4 accent-primary"
            />
            {SCHEDULE_COPY.fromCompletion}
          </label>
        )}
        {task.recurrence && (
          <Button type="button" variant="outline" size="sm" disabled={completing} onClick={onCompleteForever}>
            <CheckCheckIcon aria-hidden />
            {SCHEDULE_COPY.completeForever}
          </Button>
        )}
      </div>
    </fieldset>
  );
}
