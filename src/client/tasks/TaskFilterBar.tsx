import { BookmarkPlusIcon, SearchIcon, XIcon } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { COPY } from '../../common/spec';
import {
  DUE_FILTERS,
  type DueFilter,
  PRIORITIES,
  type Priority,
  TASK_SORTS,
  type TaskSort,
} from '../../common/tasks';
import { useAgents } from '../agents/api';
import { useScreen } from '../app/screens';
import { useLabels } from '../labels/api';
import { LABEL_COPY, PRIORITY_TEXT } from '../labels/copy';
import { SaveFilterDialog } from '../labels/SaveFilterDialog';
import { savedFilterQuery } from '../labels/saved-filters';
import { cn } from '../lib/cn';
import { SEARCH_FIELD_ID } from '../lib/shortcuts';
import { useNeedsConnection } from '../offline/connection-status';
import { Button } from '../ui/button';
import { fieldClasses, Input } from '../ui/input';
import { DUE_LABELS, filterQuery, SORT_LABELS, useTaskFilter } from './filters';

/** How long typing may pause before the list asks the server again. */
const TYPING_PAUSE_MS = 150;

/**
 * Search and filters above a task list (issue 13); '/' focuses the search field (lib/shortcuts.ts).
 * What is typed shows at once; the address (and so the query) follows after a short pause, so a fast
 * typist sends one request, not one a key.
 */
export function TaskFilterBar() {
  const { filter, setFilter, filtered } = useTaskFilter();
  const agents = useAgents();
  const labels = useLabels();
  const screen = useScreen();
  const [saving, setSaving] = useState(false);
  const [text, setText] = useState(filter.q ?? '');
  const pending = useRef<ReturnType<typeof setTimeout>>(undefined);
  // The server searches: offline, only the stored lists are there (issue 31).
  const needsConnection = useNeedsConnection();

  // The address changed by other means (back, Clear filter): the field follows it.
  useEffect(() => {
    if (pending.current === undefined) setText(filter.q ?? '');
  }, [filter.q]);
  useEffect(() => () => clearTimeout(pending.current), []);

  const type = (value: string) => {
    setText(value);
    clearTimeout(pending.current);
    pending.current = setTimeout(() => {
      pending.current = undefined;
      setFilter({ ...filter, q: value });
    }, TYPING_PAUSE_MS);
  };

  const selectClasses = cn(fieldClasses, 'h-9 w-auto pr-8');
  return (
    <search aria-label="Filter tasks" className="mb-4 flex flex-wrap items-center gap-2">
      <div className="relative min-w-48 flex-1">
        <SearchIcon
          aria-hidden
          // Centred on the field (h-9), not on the box, which holds 'Needs a connection' below it offline.
          className="pointer-events-none absolute top-2.5 left-2.5 size-4 text-muted-foreground"
        />
        <Input
          id={SEARCH_FIELD_ID}
          type="search"
          aria-label={COPY.searchTasks}
          placeholder={`${COPY.searchTasks}…`}
          value={text}
          onChange={(event) => type(event.target.value)}
          className="pl-8"
          {...needsConnection.control}
        />
        {needsConnection.note}
      </div>
      <select
        name="due"
        aria-label="Due date"
        className={selectClasses}
        value={filter.due ?? ''}
        onChange={(event) => setFilter({ ...filter, due: (event.target.value || undefined) as DueFilter })}
      >
        <option value="">Any due date</option>
        {DUE_FILTERS.map((due) => (
          <option key={due} value={due}>
            {DUE_LABELS[due]}
          </option>
        ))}
      </select>
      {agents.data && agents.data.length > 0 && (
        <select
          name="agentId"
          aria-label="Agent"
          className={selectClasses}
          value={filter.agentId ?? ''}
          onChange={(event) =>
            setFilter({ ...filter, agentId: event.target.value ? Number(event.target.value) : undefined })
          }
        >
          <option value="">Any agent</option>
          {agents.data.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.title}
            </option>
          ))}
        </select>
      )}
      <select
        name="priority"
        aria-label={LABEL_COPY.priority}
        className={selectClasses}
        value={filter.priority?.join(',') ?? ''}
        onChange={(event) =>
          setFilter({
            ...filter,
            priority: event.target.value
              ? (event.target.value.split(',').map(Number) as Priority[])
              : undefined,
          })
        }
      >
        <option value="">{LABEL_COPY.anyPriority}</option>
        {/* A list the address holds that is none of these is offered too. */}
        {filter.priority && filter.priority.length > 1 && (
          <option value={filter.priority.join(',')}>
            {filter.priority.map((p) => PRIORITY_TEXT[p].short).join(', ')}
          </option>
        )}
        {PRIORITIES.map((priority) => (
          <option key={priority} value={priority}>
            {PRIORITY_TEXT[priority].long}
          </option>
        ))}
      </select>
      {((labels.data && labels.data.length > 0) || filter.label) && (
        <select
          name="label"
          aria-label={LABEL_COPY.labels}
          className={selectClasses}
          value={filter.label?.join('\n') ?? ''}
          onChange={(event) =>
            setFilter({ ...filter, label: event.target.value ? event.target.value.split('\n') : undefined })
          }
        >
          <option value="">{LABEL_COPY.anyLabel}</option>
          {filter.label && !labels.data?.some((label) => filter.label?.join('\n') === label.name) && (
            <option value={filter.label.join('\n')}>
              {filter.label.map((name) => `@${name}`).join(' ')}
            </option>
          )}
          {labels.data?.map((label) => (
            <option key={label.id} value={label.name}>
              @{label.name}
            </option>
          ))}
        </select>
      )}
      <select
        name="sort"
        aria-label={LABEL_COPY.sort}
        className={selectClasses}
        value={filter.sort ?? 'manual'}
        onChange={(event) =>
          setFilter({
            ...filter,
            sort: event.target.value === 'manual' ? undefined : (event.target.value as TaskSort),
          })
        }
      >
        {TASK_SORTS.map((sort) => (
          <option key={sort} value={sort}>
            {`Sort: ${SORT_LABELS[sort]}`}
          </option>
        ))}
      </select>
      <label className="flex h-9 cursor-pointer items-center gap-2 rounded-md border px-3 text-sm">
        <input
          type="checkbox"
          name="hasFiles"
          checked={filter.hasFiles ?? false}
          onChange={(event) => setFilter({ ...filter, hasFiles: event.target.checked || undefined })}
          className="size-4 accent-primary"
        />
        Has files
      </label>
      {filtered && (
        <Button variant="ghost" size="sm" onClick={() => setSaving(true)}>
          <BookmarkPlusIcon aria-hidden />
          {LABEL_COPY.saveFilter}
        </Button>
      )}
      {filtered && (
        <Button variant="ghost" size="sm" onClick={() => setFilter({})}>
          <XIcon aria-hidden />
          {COPY.clearFilter}
        </Button>
      )}
      <SaveFilterDialog
        open={saving}
        onOpenChange={setSaving}
        query={savedFilterQuery(screen, filterQuery(filter))}
      />
    </search>
  );
}
