import { PlusIcon } from 'lucide-react';
import { type FormEvent, useId, useRef, useState } from 'react';
import { INBOX_SCOPE, useCreateTask } from '../tasks/api';
import { Button } from '../ui/button';
import { Input } from '../ui/input';
import { errorToast } from '../ui/toasts';
import { VIEW_COPY } from './copy';

/**
 * Upcoming's 'Add a task' under a day (issue 23): a title, and the task goes to the Inbox due that
 * day. The form stays open for the next one; Escape or 'Cancel' closes it, and focus returns.
 */
export function AddDayTask({ day, dayLabel }: { day: string; dayLabel: string }) {
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState('');
  const create = useCreateTask(INBOX_SCOPE);
  const openButton = useRef<HTMLButtonElement>(null);
  const inputId = useId();

  const close = () => {
    setOpen(false);
    setTitle('');
    requestAnimationFrame(() => openButton.current?.focus());
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!title.trim()) return;
    try {
      await create.mutateAsync({ title: title.trim(), dueDate: day });
      setTitle('');
    } catch {
      errorToast(VIEW_COPY.addFailed);
    }
  };

  if (!open) {
    return (
      <Button
        ref={openButton}
        variant="ghost"
        size="sm"
        aria-label={`${VIEW_COPY.addTask}, ${dayLabel}`}
        onClick={() => setOpen(true)}
        className="justify-start gap-2 px-2 font-normal text-muted-foreground"
      >
        <PlusIcon aria-hidden />
        {VIEW_COPY.addTask}
      </Button>
    );
  }
  return (
    <form
      onSubmit={(event) => void submit(event)}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.stopPropagation();
          close();
        }
      }}
      className="flex flex-wrap items-center gap-2"
    >
      <label htmlFor={inputId} className="sr-only">
        {`${VIEW_COPY.taskName}, due ${dayLabel}`}
      </label>
      <Input
        id={inputId}
        autoFocus
        value={title}
        maxLength={200}
        placeholder={VIEW_COPY.taskName}
        onChange={(event) => setTitle(event.target.value)}
        className="min-w-0 flex-1"
      />
      <Button type="submit" size="sm" disabled={!title.trim() || create.isPending}>
        {VIEW_COPY.add}
      </Button>
      <Button type="button" variant="ghost" size="sm" onClick={close}>
        {VIEW_COPY.cancel}
      </Button>
    </form>
  );
}
