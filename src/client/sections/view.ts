import { useCallback, useEffect, useSyncExternalStore } from 'react';
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

/**
 * The view shown: the one the address names, else the remembered one (`undefined` for the lists
 * across projects, which have the List alone); `fromAddress` says which it was.
 */
export function shownView(
  search: string,
  remembered: TaskView | undefined,
): { view: TaskView; fromAddress: boolean } {
  const asked = new URLSearchParams(search).get(VIEW_PARAM);
  if (asked === 'board' || asked === 'list') return { view: asked, fromAddress: true };
  return { view: remembered ?? 'list', fromAddress: false };
}

/** `search` saying `view`, the other parameters kept: `view=board`, or no parameter for the List. */
export function searchWithView(search: string, view: TaskView): string {
  const params = new URLSearchParams(search);
  if (view === 'board') params.set(VIEW_PARAM, view);
  else params.delete(VIEW_PARAM);
  const query = params.toString();
  return query ? `?${query}` : '';
}

/** The view shown for `projectId`, read alone (the shell's width follows it). */
export function useShownTaskView(projectId: number | undefined): TaskView {
  return shownView(useSearch(), projectId === undefined ? undefined : storedView(projectId)).view;
}

/**
 * The view shown for `projectId` and a way to change it, for the list that shows it. The address
 * and the memory are kept saying the same: a view named in the address (a link, a reload) is
 * remembered, and a remembered board is written into the address, replacing its history entry.
 */
export function useTaskView(projectId: number | undefined) {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const { view, fromAddress } = shownView(
    search,
    projectId === undefined ? undefined : storedView(projectId),
  );
  const setView = useCallback(
    (next: TaskView) => {
      if (projectId !== undefined) localStorage.setItem(viewStorageKey(projectId), next);
      navigate(`${location}${searchWithView(window.location.search, next)}`, { replace: true });
    },
    [projectId, location, navigate],
  );
  useEffect(() => {
    if (projectId === undefined) return;
    if (fromAddress) localStorage.setItem(viewStorageKey(projectId), view);
    else if (view === 'board') setView(view);
  }, [projectId, view, fromAddress, setView]);
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
