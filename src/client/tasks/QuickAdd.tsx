import { CalendarIcon, PlusIcon, XIcon } from 'lucide-react';
import { type FormEvent, useRef, useState } from 'react';
import { ERRORS, TOASTS } from '../../common/spec';
import { Input } from '../ui/input';
import { errorToast, successToast } from '../ui/toasts';
import { useCreateTask } from './api';
import { formatDueDate } from './dates';
import type { QuickAdd as Parsed, parseQuickAdd as ParseQuickAdd } from './quick-add';

type Parser = typeof ParseQuickAdd;

// chrono-node is large: it loads when the field is first used, not with the list.
let parser: Promise<Parser> | undefined;
const loadParser = () => {
  parser ??= import('./quick-add').then((m) => m.parseQuickAdd);
  return parser;
};

const NO_DATE: Parsed = { title: '', dueDate: null, dateText: null };

/**
 * The one-line 'Add a task…' field above the list (issue 13). A date in the text ('Pay rent
 * tomorrow') shows as a chip and leaves the title; removing the chip keeps the words and saves no
 * date. Enter creates the task at the top, as the Add Task dialog does, with the same toast.
 */
export function QuickAdd() {
  const [text, setText] = useState('');
  const [parse, setParse] = useState<Parser | null>(null);
  // The date words the person took the chip off: those words stay in the title.
  const [dismissed, setDismissed] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const create = useCreateTask();

  const loadOnFirstUse = () => {
    if (!parse) void loadParser().then((fn) => setParse(() => fn));
  };

  const parsed = parse ? parse(text) : { ...NO_DATE, title: text.trim() };
  const dateKey = parsed.dueDate ? `${parsed.dateText}|${parsed.dueDate}` : null;
  const withDate = dateKey !== null && dateKey !== dismissed;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    // Enter may come before the parser has loaded: read the date now, as the chip would show it.
    const final = (await loadParser())(text);
    const finalKey = final.dueDate ? `${final.dateText}|${final.dueDate}` : null;
    const keepDate = finalKey !== null && finalKey !== dismissed;
    const title = keepDate ? final.title : text.trim().replace(/\s+/g, ' ');
    if (!title) return;
    try {
      await create.mutateAsync({
        title,
        description: '',
        dueDate: keepDate ? final.dueDate! : '',
        contextId: null,
      });
    } catch {
      errorToast(ERRORS.createTask);
      return;
    }
    successToast(TOASTS.taskCreated);
    setText('');
    setDismissed(null);
  };

  const dueLabel = parsed.dueDate ? formatDueDate(parsed.dueDate) : '';
  return (
    <form onSubmit={(event) => void onSubmit(event)} className="mb-4 flex items-center gap-2">
      <div className="relative flex-1">
        <PlusIcon
          aria-hidden
          className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground"
        />
        <Input
          ref={inputRef}
          aria-label="Add a task"
          aria-describedby={withDate ? 'quick-add-date' : undefined}
          placeholder="Add a task…"
          autoComplete="off"
          enterKeyHint="done"
          value={text}
          onFocus={loadOnFirstUse}
          onChange={(event) => {
            loadOnFirstUse();
            setText(event.target.value);
          }}
          className="pl-8"
        />
      </div>
      {withDate && (
        <button
          type="button"
          id="quick-add-date"
          aria-label={`Remove due date ${dueLabel}`}
          title={`Due ${dueLabel} (from “${parsed.dateText}”)`}
          onClick={() => {
            setDismissed(dateKey);
            inputRef.current?.focus();
          }}
          className="inline-flex h-9 shrink-0 items-center gap-1.5 rounded-md border bg-secondary px-2.5 text-sm text-secondary-foreground outline-none transition-colors hover:bg-accent focus-visible:ring-2 focus-visible:ring-ring [&_svg]:size-4"
        >
          <CalendarIcon aria-hidden className="text-muted-foreground" />
          <span>Due {dueLabel}</span>
          <XIcon aria-hidden className="text-muted-foreground" />
        </button>
      )}
    </form>
  );
}
