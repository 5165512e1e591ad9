import { FilterIcon, XIcon } from 'lucide-react';
import { Link, useLocation, useSearch } from 'wouter';
import { cn } from '../lib/cn';
import { SIDEBAR_LINK_CLASSES } from '../projects/sidebar-styles';
import { Button } from '../ui/button';
import { errorToast, successToast } from '../ui/toasts';
import { useDeleteSavedFilter, useSavedFilters } from './api';
import { LABEL_COPY } from './copy';
import { savedFilterHref } from './saved-filters';

/** The sidebar's saved filters (issue 23): each opens its list with its filter; nothing shows without any. */
export function SavedFilters({ onNavigate }: { onNavigate?: () => void }) {
  const { data: filters } = useSavedFilters();
  const remove = useDeleteSavedFilter();
  const [location] = useLocation();
  const search = useSearch();
  if (!filters || filters.length === 0) return null;
  const here = search ? `${location}?${search}` : location;
  return (
    <section aria-labelledby="sidebar-filters" className="grid gap-1">
      <h2 id="sidebar-filters" className="px-2 text-xs font-medium text-muted-foreground">
        {LABEL_COPY.savedFilters}
      </h2>
      <ul className="grid gap-0.5">
        {filters.map((filter) => {
          const href = savedFilterHref(filter.query);
          return (
            <li key={filter.id} className="flex items-center gap-1">
              <Link
                href={href}
                aria-current={href === here ? 'page' : undefined}
                onClick={onNavigate}
                className={cn(SIDEBAR_LINK_CLASSES, 'min-w-0 flex-1')}
              >
                <FilterIcon aria-hidden className="size-4 shrink-0 text-muted-foreground" />
                <span className="min-w-0 flex-1 truncate">{filter.name}</span>
              </Link>
              <Button
                variant="ghost"
                size="icon"
                aria-label={LABEL_COPY.deleteFilter(filter.name)}
                disabled={remove.isPending}
                onClick={() =>
                  remove.mutate(filter.id, {
                    onSuccess: () => successToast(LABEL_COPY.filterDeleted),
                    onError: () => errorToast(LABEL_COPY.deleteFilterFailed),
                  })
                }
                className="size-8 shrink-0 text-muted-foreground"
              >
                <XIcon aria-hidden />
              </Button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
