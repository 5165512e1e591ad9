import { KanbanIcon, ListIcon } from 'lucide-react';
import { cn } from '../lib/cn';
import { SECTION_COPY } from './copy';
import type { TaskView } from './view';

const VIEWS = [
  { view: 'list', label: SECTION_COPY.list, icon: ListIcon },
  { view: 'board', label: SECTION_COPY.board, icon: KanbanIcon },
] as const;

/** 'List | Board' (issue 23): two toggle buttons, the shown view pressed. */
export function ViewSwitch({ view, onChange }: { view: TaskView; onChange: (view: TaskView) => void }) {
  return (
    <fieldset aria-label={SECTION_COPY.view} className="inline-flex rounded-md border bg-background p-0.5">
      {VIEWS.map(({ view: option, label, icon: Icon }) => (
        <button
          key={option}
          type="button"
          aria-pressed={view === option}
          onClick={() => onChange(option)}
          className={cn(
            'inline-flex h-7 items-center gap-1.5 rounded-sm px-2.5 text-sm font-medium outline-none transition-colors focus-visible:ring-2 focus-visible:ring-ring',
            view === option
              ? 'bg-accent text-accent-foreground'
              : 'text-muted-foreground hover:text-foreground',
          )}
        >
          <Icon aria-hidden className="size-4" />
          {label}
        </button>
      ))}
    </fieldset>
  );
}
