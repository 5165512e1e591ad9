import type { DropResult } from '@hello-pangea/dnd';
import { useSyncExternalStore } from 'react';

/**
 * A task card dragged onto a project in the sidebar moves it there (issue 21). The target is the
 * project under the pointer, not a droppable of the drag library: the library picks the droppable
 * nearest the lifted card's centre, and a card as wide as the list has its centre far from the
 * pointer, over no sidebar project or the wrong one. Sidebar items that take drops carry
 * DROP_PROJECT_ATTRIBUTE with their project's id.
 */
export const DROP_PROJECT_ATTRIBUTE = 'data-drop-project';

let target: number | null = null;
const listeners = new Set<() => void>();
function setTarget(next: number | null) {
  if (next === target) return;
  target = next;
  for (const listener of listeners) listener();
}

const onPointerMove = (event: PointerEvent) => {
  // Under the pointer there is the lifted card first: look through it.
  const item = document
    .elementsFromPoint(event.clientX, event.clientY)
    .find((element) => element.hasAttribute(DROP_PROJECT_ATTRIBUTE));
  setTarget(item ? Number(item.getAttribute(DROP_PROJECT_ATTRIBUTE)) : null);
};

/** From a drag's start: follows the pointer over the sidebar. */
export function startDragTracking(): void {
  setTarget(null);
  window.addEventListener('pointermove', onPointerMove, { passive: true });
}

/** At a drag's end: stops following, and answers the project the card was dropped on, if any. */
export function stopDragTracking(): number | null {
  window.removeEventListener('pointermove', onPointerMove);
  const dropped = target;
  setTarget(null);
  return dropped;
}

/** The project under a dragged card's pointer now (a drop would move the card there). */
export const dropTarget = () => target;

/** Whether project `id` is under the pointer of a dragged card (its sidebar item lights up). */
export function useIsDropTarget(id: number | undefined): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => id !== undefined && target === id,
  );
}

/** The shown list's own handling of a drop within it (a reorder): the list registers it while mounted. */
type ListDrop = (result: DropResult) => void;
let listDrop: ListDrop | null = null;
export function registerListDrop(handler: ListDrop): () => void {
  listDrop = handler;
  return () => {
    if (listDrop === handler) listDrop = null;
  };
}
export const dropInList = (result: DropResult) => listDrop?.(result);

/**
 * The card being dragged, from the moment the library captures it until the drop: a virtualized
 * column of the board (issue 23) keeps it mounted whatever its scroll, as the library needs.
 */
let lifted: number | null = null;
const liftedListeners = new Set<() => void>();
export function setLifted(id: number | null): void {
  if (id === lifted) return;
  lifted = id;
  for (const listener of liftedListeners) listener();
}
export function useLifted(): number | null {
  return useSyncExternalStore(
    (listener) => {
      liftedListeners.add(listener);
      return () => liftedListeners.delete(listener);
    },
    () => lifted,
  );
}

/**
 * Whether the card being dragged follows a pointer (mouse or finger): only then does a drop onto the
 * middle of another card nest it there (issue 29). A keyboard drag moves between places, one step
 * at a time, as before.
 */
let pointerDrag = false;
const pointerDragListeners = new Set<() => void>();
export function setPointerDrag(next: boolean): void {
  if (next === pointerDrag) return;
  pointerDrag = next;
  for (const listener of pointerDragListeners) listener();
}
export function usePointerDrag(): boolean {
  return useSyncExternalStore(
    (listener) => {
      pointerDragListeners.add(listener);
      return () => pointerDragListeners.delete(listener);
    },
    () => pointerDrag,
  );
}
