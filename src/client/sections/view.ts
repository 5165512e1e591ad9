import { useCallback, useSyncExternalStore } from 'react';
import { useLocation, useSearch } from 'wouter';

/**
 * A project's view (issue 23): the List or the Board. It lives in the address (`?view=board`) and
 * is remembered per project in localStorage, so opening the project again shows the last one chosen.
 */
export type TaskView = 'list' | 'board';
export const VIEW_PARAM = 'view';
const viewStorageKey = (projectId: number) => `tasklane.view.${projectId}`;

function storedView(projectId: number): TaskView {
  return localStorage.getItem(viewStorageKey(projectId)) === 'board' ? 'board' : 'list';
}

/** The view shown for `projectId` (the address's, else the remembered one) and a way to change it. */
export function useTaskView(projectId: number | undefined) {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const asked = new URLSearchParams(search).get(VIEW_PARAM);
  const view: TaskView =
    asked === 'board' || asked === 'list' ? asked : projectId === undefined ? 'list' : storedView(projectId);
  const setView = useCallback(
    (next: TaskView) => {
      if (projectId !== undefined) localStorage.setItem(viewStorageKey(projectId), next);
      const params = new URLSearchParams(window.location.search);
      if (next === 'board') params.set(VIEW_PARAM, next);
      else params.delete(VIEW_PARAM);
      const query = params.toString();
      navigate(query ? `${location}?${query}` : location, { replace: true });
    },
    [projectId, location, navigate],
  );
  return { view, setView };
}

/** Which sections of a project the list shows collapsed, kept per project in localStorage. */
const collapsedStorageKey = (projectId: number) => `tasklane.collapsed-sections.${projectId}`;
const collapseListeners = new Set<() => void>();
const collapsedCache = new Map<number, ReadonlySet<number>>();

function readCollapsed(projectId: number): ReadonlySet<number> {
  let cached = collapsedCache.get(projectId);
  if (!cached) {
    let ids: unknown;
    try {
      ids = JSON.parse(localStorage.getItem(collapsedStorageKey(projectId)) ?? '[]');
    } catch {
      ids = [];
    }
    cached = new Set(Array.isArray(ids) ? ids.filter((id): id is number => Number.isInteger(id)) : []);
    collapsedCache.set(projectId, cached);
  }
  return cached;
}

const EMPTY: ReadonlySet<number> = new Set();

export function useCollapsedSections(projectId: number | undefined) {
  const collapsed = useSyncExternalStore(
    (listener) => {
      collapseListeners.add(listener);
      return () => collapseListeners.delete(listener);
    },
    () => (projectId === undefined ? EMPTY : readCollapsed(projectId)),
  );
  const setCollapsed = useCallback(
    (sectionId: number, hidden: boolean) => {
      if (projectId === undefined) return;
      const next = new Set(readCollapsed(projectId));
      if (hidden) next.add(sectionId);
      else next.delete(sectionId);
      collapsedCache.set(projectId, next);
      localStorage.setItem(collapsedStorageKey(projectId), JSON.stringify([...next]));
      for (const listener of collapseListeners) listener();
    },
    [projectId],
  );
  return { collapsed, setCollapsed };
}
