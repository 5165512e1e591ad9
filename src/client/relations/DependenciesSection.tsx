import { LinkIcon, XIcon } from 'lucide-react';
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { RELATION_KINDS, RELATION_LABELS, type Relation, type RelationKind } from '../../common/relations';
import type { TaskSummary } from '../../common/tasks';
import { errorMessage } from '../lib/api';
import { cn } from '../lib/cn';
import { useTaskLink } from '../notifications/open-task';
import { useNeedsConnection } from '../offline/connection-status';
import type { TaskPermissions } from '../projects/api';
import { Button } from '../ui/button';
import { Input } from '../ui/input';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../ui/select';
import { errorToast } from '../ui/toasts';
import { RELATION_ERRORS, useAddRelation, useRelations, useRemoveRelation, useTaskSearch } from './api';

export const DEPENDENCIES_COPY = {
  heading: 'Dependencies',
  none: 'No dependencies.',
  kind: 'Kind of dependency',
  search: 'Search tasks to add as a dependency',
  placeholder: 'Search tasks by title…',
  options: 'Matching tasks',
  noMatch: 'No tasks match.',
  found: (count: number) => `${count} ${count === 1 ? 'task' : 'tasks'} found`,
  remove: (title: string) => `Remove dependency on "${title}"`,
  added: (kind: RelationKind, title: string) => `Added: ${RELATION_LABELS[kind]} ${title}`,
  removed: (title: string) => `Removed the dependency on ${title}`,
  done: ' (done)',
} as const;

/** What the add control offers first: the task in the card waits for the one chosen. */
const DEFAULT_KIND: RelationKind = 'blocked_by';
/** Search results offered at once. */
const OPTIONS_SHOWN = 8;
/** Typing pauses this long before the search is sent. */
const SEARCH_DELAY_MS = 200;

/**
 * The expanded card's dependencies (issue 29): each relation with its kind and a link to the other
 * task, and for those who may change the task a button to remove it and a control to add one (a kind,
 * then a task found by its title in a combobox, keyboard operable: arrows, Enter, Escape).
 */
export function DependenciesSection({ task, can }: { task: TaskSummary; can: TaskPermissions }) {
  const headingId = useId();
  const { data: relations, isPending, isError } = useRelations(task.id, task.blockedBy);
  const remove = useRemoveRelation(task.id);
  const linkOf = useTaskLink();
  const [announcement, setAnnouncement] = useState('');
  const addRef = useRef<HTMLInputElement>(null);

  const removeRelation = (relation: Relation) => {
    setAnnouncement(DEPENDENCIES_COPY.removed(relation.otherTitle));
    // The button goes with its row: focus goes back to the add control (or the heading's section).
    addRef.current?.focus();
    remove.mutate(relation, {
      onError: (error) => errorToast(errorMessage(error, RELATION_ERRORS.remove)),
    });
  };

  return (
    <section aria-labelledby={headingId} className="grid gap-2">
      <h3 id={headingId} className="text-sm leading-none font-medium">
        {DEPENDENCIES_COPY.heading}
      </h3>
      {isPending ? (
        <p className="text-sm text-muted-foreground">Loading dependencies…</p>
      ) : isError ? (
        <p className="text-sm text-destructive">{RELATION_ERRORS.load}</p>
      ) : relations.length === 0 ? (
        <p className="text-sm text-muted-foreground">{DEPENDENCIES_COPY.none}</p>
      ) : (
        <ul aria-labelledby={headingId} className="grid gap-1">
          {relations.map((relation) => {
            const link = linkOf({ projectId: relation.otherProjectId, taskId: relation.otherTaskId });
            return (
              <li key={relation.id} className="flex min-h-8 items-center gap-2 text-sm">
                <LinkIcon aria-hidden className="size-3.5 shrink-0 text-muted-foreground" />
                <span className="shrink-0 text-muted-foreground">{RELATION_LABELS[relation.kind]}</span>
                <a
                  href={link.href}
                  onClick={link.onClick}
                  className={cn(
                    'min-w-0 truncate rounded-sm underline-offset-4 outline-none hover:underline focus-visible:ring-2 focus-visible:ring-ring',
                    relation.otherCompleted && 'text-muted-foreground line-through',
                  )}
                >
                  {relation.otherTitle}
                  {relation.otherCompleted && <span className="sr-only">{DEPENDENCIES_COPY.done}</span>}
                </a>
                {can.change && (
                  <Button
                    variant="ghost"
                    size="icon"
                    aria-label={DEPENDENCIES_COPY.remove(relation.otherTitle)}
                    onClick={() => removeRelation(relation)}
                    className="ml-auto size-8 shrink-0 text-muted-foreground hover:text-destructive"
                  >
                    <XIcon aria-hidden />
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {can.change && (
        <AddDependency
          task={task}
          related={relations ?? []}
          inputRef={addRef}
          onAdded={(kind, title) => setAnnouncement(DEPENDENCIES_COPY.added(kind, title))}
        />
      )}
      <p role="status" className="sr-only">
        {announcement}
      </p>
    </section>
  );
}

/** The kind, then the other task: a combobox of task titles (ARIA 1.2's list autocomplete). */
function AddDependency({
  task,
  related,
  inputRef,
  onAdded,
}: {
  task: TaskSummary;
  related: Relation[];
  inputRef: React.RefObject<HTMLInputElement | null>;
  onAdded: (kind: RelationKind, title: string) => void;
}) {
  const listId = useId();
  const optionId = (index: number) => `${listId}-option-${index}`;
  const [kind, setKind] = useState<RelationKind>(DEFAULT_KIND);
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const add = useAddRelation(task.id);

  useEffect(() => {
    const timer = setTimeout(() => setQ(text), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);

  const search = useTaskSearch(q);
  // The server searches every project: offline, it cannot (issue 31).
  const needsConnection = useNeedsConnection();
  const taken = new Set(related.filter((r) => r.kind === kind).map((r) => r.otherTaskId));
  const options =
    q.trim() && text.trim()
      ? (search.data ?? []).filter((t) => t.id !== task.id && !taken.has(t.id)).slice(0, OPTIONS_SHOWN)
      : [];
  const showList = open && text.trim().length > 0 && q.trim().length > 0 && !search.isPending;
  const expanded = showList && options.length > 0;

  // The highlighted option, while the options still have it (a new search starts with none).
  const current = active < options.length ? active : -1;

  const choose = (option: TaskSummary) => {
    setOpen(false);
    add.mutate(
      { kind, taskId: option.id },
      {
        onSuccess: () => {
          setText('');
          setQ('');
          onAdded(kind, option.title);
        },
        onError: (error) => errorToast(errorMessage(error, RELATION_ERRORS.add)),
      },
    );
    inputRef.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.nativeEvent.isComposing) return;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        event.preventDefault();
        if (!open) setOpen(true);
        if (options.length === 0) return;
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActive(
          current < 0
            ? step > 0
              ? 0
              : options.length - 1
            : (current + step + options.length) % options.length,
        );
        return;
      }
      case 'Enter': {
        const option = expanded
          ? (options[current] ?? (options.length === 1 ? options[0] : undefined))
          : undefined;
        if (!option) return;
        event.preventDefault();
        choose(option);
        return;
      }
      case 'Escape':
        if (expanded) {
          event.preventDefault();
          // The list closes; the dialog or card around it stays.
          event.stopPropagation();
          setOpen(false);
        } else if (text) {
          event.preventDefault();
          event.stopPropagation();
          setText('');
        }
        return;
      default:
    }
  };

  return (
    <div className="flex flex-wrap items-start gap-2">
      <Select name="dependencyKind" value={kind} onValueChange={(value) => setKind(value as RelationKind)}>
        <SelectTrigger aria-label={DEPENDENCIES_COPY.kind} className="w-36 shrink-0">
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          {RELATION_KINDS.map((value) => (
            <SelectItem key={value} value={value}>
              {RELATION_LABELS[value]}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
      <div className="relative min-w-48 flex-1">
        <Input
          ref={inputRef}
          role="combobox"
          name="dependencySearch"
          aria-label={DEPENDENCIES_COPY.search}
          aria-autocomplete="list"
          aria-expanded={expanded}
          aria-controls={listId}
          aria-activedescendant={expanded && current >= 0 ? optionId(current) : undefined}
          placeholder={DEPENDENCIES_COPY.placeholder}
          autoComplete="off"
          value={text}
          disabled={add.isPending || needsConnection.offline}
          aria-describedby={needsConnection.control['aria-describedby']}
          onChange={(event) => {
            setText(event.target.value);
            setActive(-1);
            setOpen(true);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => setOpen(false)}
        />
        {needsConnection.note}
        <div
          id={listId}
          role="listbox"
          aria-label={DEPENDENCIES_COPY.options}
          hidden={!expanded}
          className="absolute top-full right-0 left-0 z-20 mt-1 grid max-h-64 overflow-y-auto rounded-md border bg-popover p-1 text-popover-foreground shadow-md"
        >
          {options.map((option, index) => (
            // biome-ignore lint/a11y/useFocusableInteractive: the APG's combobox: focus stays in the input, which points at the option (aria-activedescendant)
            // biome-ignore lint/a11y/useKeyWithClickEvents: the input's arrows and Enter choose it
            <div
              key={option.id}
              id={optionId(index)}
              role="option"
              aria-selected={index === current}
              // Keeps the focus in the input: the choice is made on click.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => choose(option)}
              onMouseMove={() => setActive(index)}
              className={cn(
                'cursor-default truncate rounded-sm px-2 py-1.5 text-sm',
                index === current && 'bg-accent text-accent-foreground',
              )}
            >
              {option.title}
            </div>
          ))}
        </div>
        <p role="status" className="sr-only">
          {showList
            ? options.length > 0
              ? DEPENDENCIES_COPY.found(options.length)
              : DEPENDENCIES_COPY.noMatch
            : ''}
        </p>
        {showList && options.length === 0 && (
          <p className="mt-1 text-xs text-muted-foreground">{DEPENDENCIES_COPY.noMatch}</p>
        )}
      </div>
    </div>
  );
}
