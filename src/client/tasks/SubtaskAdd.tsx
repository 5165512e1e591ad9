import { ListTreeIcon, PlusIcon } from 'lucide-react';
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { TASK_LIMITS, type TaskSummary } from '../../common/tasks';
import { errorMessage } from '../lib/api';
import { Button } from '../ui/button';
import { Input } from '../ui/input';
import { errorToast } from '../ui/toasts';
import { announce, requestAddSubtask, SUBTASK_COPY, useAddSubtask, useAddSubtaskRequested } from './subtasks';

/**
 * 'Add sub-task' in an expanded card (issue 29): a button that opens a title field; Enter creates
 * the sub-task (POST /api/tasks {title, parentId}) and leaves the field open for the next one,
 * Escape closes it. The palette's 'Add sub-task' opens it too.
 */
export function AddSubtask({ task }: { task: TaskSummary }) {
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState('');
  const [saving, setSaving] = useState(false);
  const add = useAddSubtask();
  const inputRef = useRef<HTMLInputElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const requested = useAddSubtaskRequested(task.id);
  const id = useId();

  useEffect(() => {
    if (!requested) return;
    requestAddSubtask(null);
    setOpen(true);
    requestAnimationFrame(() => inputRef.current?.focus());
  }, [requested]);

  const submit = async () => {
    const text = title.trim();
    if (!text || saving) return;
    setSaving(true);
    try {
      const created = await add(task, text);
      setTitle('');
      announce(SUBTASK_COPY.added(created.title, task.title));
    } catch (error) {
      errorToast(errorMessage(error, SUBTASK_COPY.addFailed));
    } finally {
      setSaving(false);
      requestAnimationFrame(() => inputRef.current?.focus());
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    // The card's own keys (Enter expands) must not see these.
    event.stopPropagation();
    if (event.key === 'Enter' && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setOpen(false);
      setTitle('');
      requestAnimationFrame(() => buttonRef.current?.focus());
    }
  };

  if (!open) {
    return (
      <div>
        <Button
          ref={buttonRef}
          type="button"
          variant="outline"
          size="sm"
          onClick={() => {
            setOpen(true);
            requestAnimationFrame(() => inputRef.current?.focus());
          }}
        >
          <ListTreeIcon aria-hidden />
          {SUBTASK_COPY.addSubtask}
        </Button>
      </div>
    );
  }
  return (
    <div className="grid gap-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        {SUBTASK_COPY.subtaskTitle}
      </label>
      <div className="flex gap-2">
        <Input
          ref={inputRef}
          id={id}
          name="subtask-title"
          value={title}
          maxLength={TASK_LIMITS.titleMax}
          autoComplete="off"
          onChange={(event) => setTitle(event.target.value)}
          onKeyDown={onKeyDown}
          onBlur={() => {
            if (!title.trim() && !saving) setOpen(false);
          }}
          placeholder="Press Enter to add, Escape to close"
          aria-busy={saving}
        />
        <Button
          type="button"
          size="sm"
          className="h-9"
          disabled={saving || !title.trim()}
          onClick={() => void submit()}
        >
          <PlusIcon aria-hidden />
          Add
        </Button>
      </div>
    </div>
  );
}
