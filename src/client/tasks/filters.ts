import { useCallback, useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import { DUE_FILTERS, type DueFilter } from '../../common/tasks';
import { VIEW_PARAM } from '../sections/view';

/**
 * The list filter of issue 13, kept in the address (`/?q=rent&due=overdue`) so a reload or a
 * bookmark keeps it. Values the server would refuse are dropped here rather than sent.
 */
export type TaskFilter = { q?: string; due?: DueFilter; hasFiles?: boolean; agentId?: number };

export const DUE_LABELS: Record<DueFilter, string> = {
  overdue: 'Overdue',
  today: 'Due today',
  week: 'Due this week',
  none: 'No due date',
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
  return filter;
}

/** The filter as query parameters, in a fixed order (a stable query key), or null for no filter. */
export function filterParams(filter: TaskFilter): Record<string, string> | null {
  const params: Record<string, string> = {};
  if (filter.q?.trim()) params.q = filter.q.trim();
  if (filter.due) params.due = filter.due;
  if (filter.hasFiles) params.hasFiles = 'true';
  if (filter.agentId) params.agentId = String(filter.agentId);
  return Object.keys(params).length > 0 ? params : null;
}

/** The current page's filter and a way to change it (the address is replaced, not pushed). */
export function useTaskFilter() {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const filter = useMemo(() => parseFilter(search), [search]);
  const setFilter = useCallback(
    (next: TaskFilter) => {
      // The raw query is kept as typed (spaces included), so the field does not fight the person.
      const params = new URLSearchParams();
      // The view (issue 23: ?view=board) is not the filter's: it stays.
      const view = new URLSearchParams(window.location.search).get(VIEW_PARAM);
      if (view) params.set(VIEW_PARAM, view);
      if (next.q) params.set('q', next.q);
      for (const [key, value] of Object.entries(filterParams({ ...next, q: undefined }) ?? {})) {
        params.set(key, value);
      }
      const query = params.toString();
      navigate(query ? `${location}?${query}` : location, { replace: true });
    },
    [location, navigate],
  );
  return { filter, setFilter, filtered: filterParams(filter) !== null };
}
