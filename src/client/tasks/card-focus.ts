import { rescueFocus } from '../lib/focus';
import { activeList } from './list-state';

/** The id of the main screen's 'Add Task' button: where focus goes when the last card leaves. */
export const ADD_TASK_BUTTON_ID = 'add-task';

const cardById = (id: number) => document.querySelector<HTMLElement>(`article[data-task-id="${id}"]`);

/**
 * Runs `then` with the card of task `id` once it is on the page, at most `timeoutMs` later (else with
 * null). In the virtualized active list it asks the list to scroll there first (issue 15).
 */
function withCard(
  id: number,
  align: 'auto' | 'center',
  then: (card: HTMLElement | null) => void,
  timeoutMs = 2000,
): void {
  const until = performance.now() + timeoutMs;
  let asked = false;
  const look = () => {
    const card = cardById(id);
    if (card) return then(card);
    if (!asked && activeList()?.ids().includes(id)) {
      asked = true;
      activeList()?.scrollTo(id, align);
    }
    if (performance.now() > until) return then(null);
    requestAnimationFrame(look);
  };
  look();
}

/** The id of the task before or after `id` in the active list, or null. */
function neighbourInList(id: number, step: 1 | -1): number | null {
  const ids = activeList()?.ids();
  const index = ids ? ids.indexOf(id) : -1;
  if (!ids || index === -1) return null;
  return ids[index + step] ?? null;
}

/**
 * Where focus goes once `card` leaves its list (issue 10): the next card, else the previous one, else
 * `fallback`. The neighbour is found now, while the card is still in the list; the returned function
 * moves focus later, once the card has gone, and only if focus was on the card or nowhere. In the
 * virtualized active list the neighbour may not be rendered: the list scrolls to it first.
 */
export function focusAfterRemoval(card: HTMLElement | null, fallback: () => HTMLElement | null) {
  const id = card?.dataset.taskId !== undefined ? Number(card.dataset.taskId) : null;
  const inList = id !== null ? (neighbourInList(id, 1) ?? neighbourInList(id, -1)) : null;
  const neighbour =
    inList === null && card
      ? ([card.nextElementSibling, card.previousElementSibling].find(
          (element): element is HTMLElement =>
            element instanceof HTMLElement && element.dataset.taskId !== undefined,
        ) ?? null)
      : null;
  const neighbourId = inList ?? (neighbour ? Number(neighbour.dataset.taskId) : null);
  return () => {
    if (neighbourId === null) return rescueFocus(fallback(), card);
    // Looked up again: a re-render may have replaced the element.
    if (cardById(neighbourId)) return rescueFocus(cardById(neighbourId), card);
    withCard(neighbourId, 'auto', (target) => rescueFocus(target ?? fallback(), card), 500);
  };
}

/** The task cards on screen, in list order. */
export function taskCards(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>('article[data-task-id]')];
}

/** The card that holds focus (the card itself or a control in it), if any. */
export function focusedCard(): HTMLElement | null {
  return document.activeElement?.closest<HTMLElement>('article[data-task-id]') ?? null;
}

/** 'j' and 'k' (issue 13): the next or previous card; with none focused, the first. */
export function focusNeighbourCard(step: 1 | -1): void {
  const current = focusedCard();
  const ids = activeList()?.ids();
  if (ids) {
    // The virtualized list (issue 15): the neighbour may not be rendered yet.
    if (ids.length === 0) return;
    const index = current ? ids.indexOf(Number(current.dataset.taskId)) : -1;
    const next = index === -1 ? ids[0]! : ids[Math.min(Math.max(index + step, 0), ids.length - 1)]!;
    withCard(next, 'auto', (card) => {
      card?.scrollIntoView({ block: 'nearest' });
      card?.focus({ preventScroll: true });
    });
    return;
  }
  const cards = taskCards();
  if (cards.length === 0) return;
  const index = current ? cards.indexOf(current) : -1;
  const next = index === -1 ? cards[0] : cards[Math.min(Math.max(index + step, 0), cards.length - 1)];
  next?.scrollIntoView({ block: 'nearest' });
  next?.focus({ preventScroll: true });
}

/**
 * Scrolls the card of task `id` into view and focuses it (the palette's 'jump to task'). The card may
 * not be on the page yet (the virtualized list renders the cards near the screen; the list may be
 * loading): the list is asked to scroll to it, and it is looked for at each frame for up to
 * `timeoutMs` (two seconds unless told). Resolves whether it was found.
 */
export function revealCard(id: number, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    withCard(
      id,
      'center',
      (card) => {
        if (!card) return resolve(false);
        card.scrollIntoView({ block: 'center' });
        card.focus({ preventScroll: true });
        resolve(true);
      },
      timeoutMs,
    );
  });
}

/** Asks the main screen to show its Active tab (the Archived tab leaves active cards off the page). */
const SHOW_ACTIVE_LIST = 'tasklane:show-active-list';
export const showActiveList = () => window.dispatchEvent(new Event(SHOW_ACTIVE_LIST));
export function onShowActiveList(listener: () => void): () => void {
  window.addEventListener(SHOW_ACTIVE_LIST, listener);
  return () => window.removeEventListener(SHOW_ACTIVE_LIST, listener);
}

/** Whether the card of task `id` is on the page or in the active list (which renders only part of it). */
export function isCardShown(id: number): boolean {
  return cardById(id) !== null || (activeList()?.ids().includes(id) ?? false);
}
