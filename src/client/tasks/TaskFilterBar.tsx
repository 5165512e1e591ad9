import { SearchIcon, XIcon } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { COPY } from '../../common/spec';
import { DUE_FILTERS, type DueFilter } from '../../common/tasks';
import { useAgents } from '../agents/api';
import { cn } from '../lib/cn';
import { SEARCH_FIELD_ID } from '../lib/shortcuts';
import { Button } from '../ui/button';
import { fieldClasses, Input } from '../ui/input';
import { DUE_LABELS, useTaskFilter } from './filters';

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
  const [text, setText] = useState(filter.q ?? '');
  const pending = useRef<ReturnType<typeof setTimeout>>(undefined);

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
          className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground"
        />
        <Input
          id={SEARCH_FIELD_ID}
          type="search"
          aria-label={COPY.searchTasks}
          placeholder={`${COPY.searchTasks}…`}
          value={text}
          onChange={(event) => type(event.target.value)}
          className="pl-8"
        />
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
        <Button variant="ghost" size="sm" onClick={() => setFilter({})}>
          <XIcon aria-hidden />
          {COPY.clearFilter}
        </Button>
      )}
    </search>
  );
}
