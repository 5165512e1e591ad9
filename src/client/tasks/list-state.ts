import { useSyncExternalStore } from 'react';

/**
 * What the virtualized lists (issue 15) must keep mounted whatever the scroll position: the
 * expanded cards (a running AI draft, an unsaved note) and the card that holds focus. Cards write it,
 * the list reads it.
 */
const expanded = new Set<number>();
let focusedId: number | null = null;
const listeners = new Set<() => void>();
const emit = () => {
  for (const listener of listeners) listener();
};

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function setExpanded(id: number, open: boolean): void {
  if (expanded.has(id) === open) return;
  if (open) expanded.add(id);
  else expanded.delete(id);
  emit();
}

export function setFocusedTask(id: number | null): void {
  if (focusedId === id) return;
  focusedId = id;
  emit();
}

/** Whether the card of task `id` is expanded (it survives the card's unmounting and a drag's clone). */
export function useExpanded(id: number): boolean {
  return useSyncExternalStore(subscribe, () => expanded.has(id));
}

let version = 0;
listeners.add(() => {
  version += 1;
});
/** Changes whenever the set of cards to keep changes (for the list's range). */
export function useKeptVersion(): number {
  return useSyncExternalStore(subscribe, () => version);
}

/** The expanded cards' task ids, the last expanded last (the palette's 'Add sub-task' acts on it). */
export const expandedIds = (): number[] => [...expanded];

/** The ids of the cards that must stay mounted. */
export function keptIds(): number[] {
  return focusedId === null ? [...expanded] : [...expanded, focusedId];
}

/**
 * The active list's way to reach a card that may not be rendered (j/k, the palette's jump, focus after
 * a card leaves): the list registers itself while mounted.
 */
export interface ListHandle {
  /** The task ids in list order. */
  ids(): readonly number[];
  /** Scrolls so that the card of task `id` is rendered (and aligned as asked). */
  scrollTo(id: number, align: 'auto' | 'center'): void;
  /**
   * Before a drag captures the cards' places: mounts the cards around the screen and keeps exactly
   * those until `thaw` (the drag library cannot have cards come and go during a drag in a list that
   * scrolls with the page).
   */
  freeze(): void;
  thaw(): void;
}

let handle: ListHandle | null = null;
export function registerList(next: ListHandle): () => void {
  handle = next;
  return () => {
    if (handle === next) handle = null;
  };
}
export const activeList = () => handle;

/** Forgets the expanded state of cards no longer in the list (deleted, archived, filtered out). */
export function pruneExpanded(shown: ReadonlyMap<number | string, number>): void {
  let changed = false;
  for (const id of expanded) {
    if (!shown.has(id)) {
      expanded.delete(id);
      changed = true;
    }
  }
  if (changed) emit();
}
