import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { COPY, ERRORS } from '../../common/spec';
import type { Task, TaskSummary } from '../../common/tasks';
import { cn } from '../lib/cn';
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

  return (
    <button
      ref={displayRef}
      type="button"
      onClick={start}
      onDoubleClick={start}
      className={cn(
        '-mx-1 block w-[calc(100%+0.5rem)] cursor-text rounded-md px-1 text-left break-words outline-none transition-colors hover:bg-accent/60 focus-visible:ring-2 focus-visible:ring-ring',
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

export function TaskTitle({ task, update, done }: EditorProps) {
  const [title, commit] = usePendingSave(task.title, (next) => update({ title: next }), ERRORS.updateTitle);
  return (
    <h3 className="min-w-0 text-base leading-snug font-medium">
      <InlineEditable
        value={title}
        label="Title"
        onSave={commit}
        className="font-medium"
        displayClassName={cn(done && 'text-muted-foreground line-through')}
      />
    </h3>
  );
}

export function TaskDescription({ task, update, done, clamped }: EditorProps & { clamped: boolean }) {
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
      className="text-sm leading-relaxed whitespace-pre-wrap text-muted-foreground"
      displayClassName={cn(clamped && 'line-clamp-3', done && 'line-through')}
    />
  );
}
