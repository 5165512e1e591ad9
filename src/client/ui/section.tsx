import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Button } from './button';
import { Skeleton } from './skeleton';

type SectionProps = { title: string; count?: number; children: ReactNode };

/** One titled part of a dialog (User Management, Security). */
export function Section({ title, count, children }: SectionProps) {
  return (
    <section aria-label={title} className="grid gap-3">
      <h3 className="flex items-center gap-2 text-sm font-semibold">
        {title}
        {count !== undefined && (
          <span className="min-w-5 rounded-full bg-muted px-1.5 text-center text-xs leading-5 font-medium text-muted-foreground tabular-nums">
            {count}
          </span>
        )}
      </h3>
      {children}
    </section>
  );
}

type QueryListProps<T> = {
  query: UseQueryResult<T[]>;
  what: string;
  empty: string;
  children: (items: T[]) => ReactNode;
};

/** A list from the server: placeholders while it loads, a retry when it fails, a line when it is empty. */
export function QueryList<T>({ query, what, empty, children }: QueryListProps<T>) {
  if (query.isPending) {
    return (
      <div className="grid gap-2">
        <Skeleton className="h-16" />
        <Skeleton className="h-16" />
      </div>
    );
  }
  if (query.isError) {
    return (
      <div
        role="alert"
        className="rounded-md border border-destructive/40 bg-destructive/10 px-3 py-3 text-sm"
      >
        Could not load {what}.{' '}
        <Button variant="link" size="sm" className="h-auto px-0" onClick={() => void query.refetch()}>
          Try again
        </Button>
      </div>
    );
  }
  if (query.data.length === 0) {
    return (
      <p className="rounded-md border border-dashed px-3 py-6 text-center text-sm text-muted-foreground">
        {empty}
      </p>
    );
  }
  return <ul className="grid gap-2">{children(query.data)}</ul>;
}

export const formatDate = (iso: string) => new Date(iso).toLocaleDateString();
