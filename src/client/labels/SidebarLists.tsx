import { FilterIcon, PencilIcon, XIcon } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import type { Label } from '../../common/labels';
import { cn } from '../lib/cn';
import { ProjectDot } from '../projects/ProjectDot';
import { SIDEBAR_LINK_CLASSES } from '../projects/sidebar-styles';
import { Button } from '../ui/button';
import { errorToast, successToast } from '../ui/toasts';
import { useDeleteLabel, useDeleteSavedFilter, useLabels, useSavedFilters } from './api';
import { LABEL_COPY } from './copy';
import { EditLabelDialog } from './EditLabelDialog';
import { savedFilterHref } from './saved-filters';

type Entry = { id: number; href: string; name: string; icon: ReactNode };

/** A titled list of sidebar links, each with a button that deletes what it names. */
function SidebarLinks({
  id,
  heading,
  entries,
  onDelete,
  deleting,
  deleteLabel,
  onEdit,
  editLabel,
  onNavigate,
}: {
  id: string;
  heading: string;
  entries: Entry[];
  onDelete: (id: number) => void;
  deleting: boolean;
  deleteLabel: (name: string) => string;
  /** A button that edits what a link names, when there is one. */
  onEdit?: (id: number) => void;
  editLabel?: (name: string) => string;
  onNavigate?: () => void;
}) {
  const [location] = useLocation();
  const search = useSearch();
  if (entries.length === 0) return null;
  const here = search ? `${location}?${search}` : location;
  return (
    <section aria-labelledby={id} className="grid gap-1">
      <h2 id={id} className="px-2 text-xs font-medium text-muted-foreground">
        {heading}
      </h2>
      <ul className="grid gap-0.5">
        {entries.map((entry) => (
          <li key={entry.id} className="flex items-center gap-1">
            <Link
              href={entry.href}
              aria-current={entry.href === here ? 'page' : undefined}
              onClick={onNavigate}
              className={cn(SIDEBAR_LINK_CLASSES, 'min-w-0 flex-1')}
            >
              {entry.icon}
              <span className="min-w-0 flex-1 truncate">{entry.name}</span>
            </Link>
            {onEdit && editLabel && (
              <Button
                variant="ghost"
                size="icon"
                aria-label={editLabel(entry.name)}
                onClick={() => onEdit(entry.id)}
                className="size-8 shrink-0 text-muted-foreground"
              >
                <PencilIcon aria-hidden />
              </Button>
            )}
            <Button
              variant="ghost"
              size="icon"
              aria-label={deleteLabel(entry.name)}
              disabled={deleting}
              onClick={() => onDelete(entry.id)}
              className="size-8 shrink-0 text-muted-foreground"
            >
              <XIcon aria-hidden />
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The sidebar's saved filters (issue 23): each opens its list with its filter; nothing shows without any. */
export function SavedFilters({ onNavigate }: { onNavigate?: () => void }) {
  const { data: filters } = useSavedFilters();
  const remove = useDeleteSavedFilter();
  return (
    <SidebarLinks
      id="sidebar-filters"
      heading={LABEL_COPY.savedFilters}
      entries={(filters ?? []).map((filter) => ({
        id: filter.id,
        href: savedFilterHref(filter.query),
        name: filter.name,
        icon: <FilterIcon aria-hidden className="size-4 shrink-0 text-muted-foreground" />,
      }))}
      deleting={remove.isPending}
      deleteLabel={LABEL_COPY.deleteFilter}
      onDelete={(id) =>
        remove.mutate(id, {
          onSuccess: () => successToast(LABEL_COPY.filterDeleted),
          onError: () => errorToast(LABEL_COPY.deleteFilterFailed),
        })
      }
      onNavigate={onNavigate}
    />
  );
}

/** The sidebar's labels: each narrows the list shown to the tasks with it; deleting one takes it off every task. */
export function SidebarLabels({ onNavigate }: { onNavigate?: () => void }) {
  const { data: labels } = useLabels();
  const remove = useDeleteLabel();
  const [location] = useLocation();
  const [editing, setEditing] = useState<Label | null>(null);
  return (
    <>
      <SidebarLinks
        id="sidebar-labels"
        heading={LABEL_COPY.labels}
        entries={(labels ?? []).map((label) => ({
          id: label.id,
          href: `${location}?${new URLSearchParams({ label: label.name })}`,
          name: label.name,
          icon: <ProjectDot color={label.color} className="mx-0.5" />,
        }))}
        deleting={remove.isPending}
        deleteLabel={LABEL_COPY.deleteLabel}
        onDelete={(id) =>
          remove.mutate(id, {
            onSuccess: () => successToast(LABEL_COPY.labelDeleted),
            onError: () => errorToast(LABEL_COPY.deleteLabelFailed),
          })
        }
        editLabel={LABEL_COPY.editLabel}
        onEdit={(id) => setEditing(labels?.find((label) => label.id === id) ?? null)}
        onNavigate={onNavigate}
      />
      <EditLabelDialog label={editing} onClose={() => setEditing(null)} />
    </>
  );
}
