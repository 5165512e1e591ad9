import { type LucideIcon, SearchXIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { COPY } from '../../common/spec';
import { Button } from '../ui/button';

type EmptyStateProps = { icon: LucideIcon; title: string; hint?: string; children?: ReactNode };

export function EmptyState({ icon: Icon, title, hint, children }: EmptyStateProps) {
  return (
    <div className="flex flex-col items-center gap-2 rounded-xl border border-dashed px-6 py-12 text-center">
      <div className="mb-1 flex size-11 items-center justify-center rounded-full bg-accent text-accent-foreground">
        <Icon aria-hidden className="size-5" />
      </div>
      <p className="font-medium">{title}</p>
      {hint && <p className="text-sm text-muted-foreground">{hint}</p>}
      {children}
    </div>
  );
}

/** A filtered list with nothing in it (issue 13). */
export function NoMatches({ onClear }: { onClear: () => void }) {
  return (
    <EmptyState icon={SearchXIcon} title={COPY.noTasksMatch}>
      <Button variant="outline" size="sm" className="mt-2" onClick={onClear}>
        {COPY.clearFilter}
      </Button>
    </EmptyState>
  );
}

/** A list that could not load: say so, and offer to try again. */
export function LoadError({ onRetry }: { onRetry: () => void }) {
  return (
    <div
      role="alert"
      className="rounded-xl border border-destructive/40 bg-destructive/10 px-4 py-6 text-center text-sm"
    >
      <p>Could not load your tasks.</p>
      <button
        type="button"
        onClick={onRetry}
        className="mt-2 font-medium text-primary underline-offset-4 hover:underline dark:text-ring"
      >
        Try again
      </button>
    </div>
  );
}
