import { FlagIcon, TagIcon } from 'lucide-react';
import type { TaskLabel } from '../../common/labels';
import type { Priority } from '../../common/tasks';
import { cn } from '../lib/cn';
import { PROJECT_COLOR_STYLES } from '../projects/colors';
import { Badge } from '../ui/badge';
import { PRIORITY_TEXT } from './copy';

/** How each priority's flag looks: the words say which, the colour only repeats it. */
const PRIORITY_STYLES: Record<Priority, string> = {
  1: 'border-red-600/50 text-red-700 dark:border-red-400/50 dark:text-red-300',
  2: 'border-orange-600/50 text-orange-800 dark:border-orange-400/50 dark:text-orange-300',
  3: 'border-blue-600/50 text-blue-700 dark:border-blue-400/50 dark:text-blue-300',
  4: 'text-muted-foreground',
};

/** A task's priority as a flag with its words ('P1'); P4 (none) shows nothing. */
export function PriorityFlag({ priority }: { priority: number }) {
  if (priority < 1 || priority > 3) return null;
  const p = priority as Priority;
  return (
    <Badge variant="outline" className={cn('font-medium', PRIORITY_STYLES[p])} title={PRIORITY_TEXT[p].long}>
      <FlagIcon aria-hidden />
      <span className="sr-only">Priority </span>
      <span>{PRIORITY_TEXT[p].short}</span>
    </Badge>
  );
}

/** A label on a task: its name on its colour (the name says which label it is). */
export function LabelChip({
  label,
  className,
}: {
  label: Pick<TaskLabel, 'name' | 'color'>;
  className?: string;
}) {
  return (
    <span
      className={cn(
        'inline-flex h-5 max-w-48 items-center gap-1 rounded-full px-2 text-xs font-medium [&_svg]:size-3',
        PROJECT_COLOR_STYLES[label.color].soft,
        className,
      )}
    >
      <TagIcon aria-hidden />
      <span className="sr-only">Label </span>
      <span className="truncate">{label.name}</span>
    </span>
  );
}
