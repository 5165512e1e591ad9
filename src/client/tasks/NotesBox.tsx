import { CopyIcon, EraserIcon } from 'lucide-react';
import { type RefObject, useCallback, useId, useLayoutEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { COPY, ERRORS, TOASTS } from '../../common/spec';
import type { Task } from '../../common/tasks';
import { cn } from '../lib/cn';
import { rescueFocus } from '../lib/focus';
import { Button } from '../ui/button';
import { Label } from '../ui/label';
import { Textarea } from '../ui/textarea';
import { errorToast, successToast } from '../ui/toasts';
import type { TaskUpdates } from './api';
import { CardTooltip } from './CardTooltip';

export type NotesDraft = ReturnType<typeof useNotesDraft>;

const NOTES_HEADING = 'Notes';
/** A role that may not change the task reads the notes; none yet says so. */
const NO_NOTES = 'No notes.';

/**
 * The notes being typed on a card. They are saved when the card collapses (spec §4), so they live in
 * the card rather than in the box, which unmounts when the card collapses. Until the person types, the
 * box follows the server, so a draft moved into notes elsewhere shows up.
 */
export function useNotesDraft(
  /** The task in full; undefined until an expanded card has read it (the list has no notes). */
  task: Pick<Task, 'notes'> | undefined,
  update: (updates: TaskUpdates) => Promise<Task>,
) {
  const [draft, setDraft] = useState<string | null>(null);
  const value = draft ?? task?.notes ?? '';
  // Timers call save() after renders it did not see; it must read the latest draft and task.
  const latest = useRef({ draft, task });
  useLayoutEffect(() => {
    latest.current = { draft, task };
  });
  const saving = useRef<string | null>(null);

  /** Saves typed notes that differ from the saved ones; a failure is only logged (spec §8). */
  const save = useCallback(() => {
    const { draft, task } = latest.current;
    if (draft === null || draft === saving.current || !task) return;
    const notes = draft.trim() ? draft : null;
    if (notes === task.notes) {
      setDraft(null);
      return;
    }
    saving.current = draft;
    update({ notes })
      // Typing may have gone on while saving: only a draft that is now saved gives way to the server's.
      .then(() => setDraft((current) => (current === draft ? null : current)))
      .catch((error: unknown) => console.warn('Could not save the task notes', error))
      .finally(() => {
        saving.current = null;
      });
  }, [update]);

  /** Resolves true once cleared. */
  const clear = useCallback(async () => {
    try {
      await update({ notes: null });
    } catch {
      // Spec §8: nothing else changes, so the text stays as it was.
      errorToast(ERRORS.clearNotes);
      return false;
    }
    setDraft(null);
    successToast(TOASTS.notesCleared);
    return true;
  }, [update]);

  return { value, edited: draft !== null, setDraft, save, clear };
}

export function NotesBox({
  notes,
  textareaRef,
  editable,
}: {
  notes: NotesDraft;
  /** The card moves focus here when a draft lands in the notes. */
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  /** The caller may change the task (useTaskPermissions); else the notes are read, and copied (issue 28). */
  editable: boolean;
}) {
  const id = useId();
  const [clearing, setClearing] = useState(false);
  const clearRef = useRef<HTMLButtonElement>(null);

  const clear = async () => {
    setClearing(true);
    const cleared = await notes.clear();
    flushSync(() => setClearing(false));
    // Clear disables itself while it works (and stays disabled over empty notes): focus goes to the notes.
    rescueFocus(cleared ? textareaRef.current : clearRef.current);
  };

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(notes.value);
    } catch {
      errorToast(ERRORS.copyNotes);
      return;
    }
    successToast(TOASTS.copied);
  };

  return (
    <div className="grid gap-2">
      <div className="flex items-center justify-between gap-2">
        {editable ? (
          <Label htmlFor={id}>{NOTES_HEADING}</Label>
        ) : (
          <h3 className="text-sm leading-none font-medium">{NOTES_HEADING}</h3>
        )}
        <div className="flex items-center gap-1">
          {editable && (
            <Button
              ref={clearRef}
              variant="ghost"
              size="sm"
              aria-label="Clear notes"
              disabled={clearing || !notes.value}
              onClick={() => void clear()}
            >
              <EraserIcon aria-hidden />
              Clear
            </Button>
          )}
          <CardTooltip content="Copy notes">
            <Button
              variant="ghost"
              size="icon"
              className="size-8"
              aria-label="Copy notes"
              disabled={!notes.value}
              onClick={() => void copy()}
            >
              <CopyIcon aria-hidden />
            </Button>
          </CardTooltip>
        </div>
      </div>
      {editable ? (
        <Textarea
          ref={textareaRef}
          id={id}
          value={notes.value}
          placeholder={COPY.notesPlaceholder}
          onChange={(event) => notes.setDraft(event.target.value)}
          className="field-sizing-content min-h-24 resize-y"
        />
      ) : (
        <p
          className={cn(
            'rounded-md border bg-muted/40 px-3 py-2 text-sm break-words whitespace-pre-wrap',
            !notes.value && 'text-muted-foreground',
          )}
        >
          {notes.value || NO_NOTES}
        </p>
      )}
    </div>
  );
}
