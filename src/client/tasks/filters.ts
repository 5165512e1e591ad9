import { useCallback, useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import {
  DUE_FILTERS,
  type DueFilter,
  PRIORITIES,
  type Priority,
  TASK_SORTS,
  type TaskSort,
} from '../../common/tasks';
import { searchParams } from '../lib/search-params';
import { VIEW_PARAM } from '../sections/view';

/**
 * The list filter of issue 13, kept in the address (`/?q=rent&due=overdue`) so a reload or a
 * bookmark keeps it. Values the server would refuse are dropped here rather than sent. Issue 23:
 * `priority=1,2`, `label=<name>` (repeatable: every one must be on the task) and `sort`.
 */
export type TaskFilter = {
  q?: string;
  due?: DueFilter;
  hasFiles?: boolean;
  agentId?: number;
  priority?: Priority[];
  label?: string[];
  sort?: TaskSort;
};

export const DUE_LABELS: Record<DueFilter, string> = {
  overdue: 'Overdue',
  today: 'Due today',
  week: 'Due this week',
  none: 'No due date',
};

export const SORT_LABELS: Record<TaskSort, string> = {
  manual: 'My order',
  due: 'Due date',
  priority: 'Priority',
  created: 'Newest first',
  title: 'Title',
};

export function parseFilter(search: string): TaskFilter {
  const params = new URLSearchParams(search);
  const filter: TaskFilter = {};
  const q = params.get('q');
  if (q?.trim()) filter.q = q;
  const due = params.get('due');
  if (due && (DUE_FILTERS as readonly string[]).includes(due)) filter.due = due as DueFilter;
  if (params.get('hasFiles') === 'true') filter.hasFiles = true;
  const agentId = Number(params.get('agentId'));
  if (Number.isInteger(agentId) && agentId > 0) filter.agentId = agentId;
  const priority = (params.get('priority') ?? '')
    .split(',')
    .map(Number)
    .filter((p): p is Priority => (PRIORITIES as readonly number[]).includes(p));
  if (priority.length > 0) filter.priority = [...new Set(priority)].sort();
  const labels = params
    .getAll('label')
    .map((name) => name.trim())
    .filter((name) => name.length > 0 && name.length <= 50);
  if (labels.length > 0) filter.label = [...new Set(labels)].slice(0, 20);
  const sort = params.get('sort');
  if (sort && sort !== 'manual' && (TASK_SORTS as readonly string[]).includes(sort))
    filter.sort = sort as TaskSort;
  return filter;
}

/** The filter as query parameters, in a fixed order (a stable query key), or null for no filter. */
export function filterParams(filter: TaskFilter): Record<string, string | string[]> | null {
  const params: Record<string, string | string[]> = {};
  if (filter.q?.trim()) params.q = filter.q.trim();
  if (filter.due) params.due = filter.due;
  if (filter.hasFiles) params.hasFiles = 'true';
  if (filter.agentId) params.agentId = String(filter.agentId);
  if (filter.priority?.length) params.priority = filter.priority.join(',');
  if (filter.label?.length) params.label = filter.label;
  if (filter.sort && filter.sort !== 'manual') params.sort = filter.sort;
  return Object.keys(params).length > 0 ? params : null;
}

/** The filter as the query part of an address (no '?'): what a saved filter holds. */
export const filterQuery = (filter: TaskFilter): string =>
  searchParams(filterParams(filter) ?? {}).toString();

/** The current page's filter and a way to change it (the address is replaced, not pushed). */
export function useTaskFilter() {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const filter = useMemo(() => parseFilter(search), [search]);
  const setFilter = useCallback(
    (next: TaskFilter) => {
      // The raw query is kept as typed (spaces included), so the field does not fight the person.
      const rest = filterQuery({ ...next, q: undefined });
      const params = new URLSearchParams();
      // The view (issue 23: ?view=board) is not the filter's: it stays.
      const view = new URLSearchParams(window.location.search).get(VIEW_PARAM);
      if (view) params.set(VIEW_PARAM, view);
      if (next.q) params.set('q', next.q);
      const query = [params.toString(), rest].filter(Boolean).join('&');
      navigate(query ? `${location}?${query}` : location, { replace: true });
    },
    [location, navigate],
  );
  return { filter, setFilter, filtered: filterParams(filter) !== null };
}
