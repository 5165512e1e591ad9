import { rescueFocus } from '../lib/focus';

/** The id of the main screen's 'Add Task' button: where focus goes when the last card leaves. */
export const ADD_TASK_BUTTON_ID = 'add-task';

/**
 * Where focus goes once `card` leaves its list (issue 10): the next card, else the previous one, else
 * `fallback`. The neighbour is found now, while the card is still in the list; the returned function
 * moves focus later, once the card has gone, and only if focus was on the card or nowhere.
 */
export function focusAfterRemoval(card: HTMLElement | null, fallback: () => HTMLElement | null) {
  const neighbour = card
    ? ([card.nextElementSibling, card.previousElementSibling].find(
        (element): element is HTMLElement =>
          element instanceof HTMLElement && element.dataset.taskId !== undefined,
      ) ?? null)
    : null;
  const neighbourId = neighbour?.dataset.taskId;
  return () => {
    // Looked up again: a re-render may have replaced the element.
    const target = neighbourId
      ? document.querySelector<HTMLElement>(`[data-task-id="${neighbourId}"]`)
      : null;
    rescueFocus(target ?? fallback(), card);
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
  const cards = taskCards();
  if (cards.length === 0) return;
  const current = focusedCard();
  const index = current ? cards.indexOf(current) : -1;
  const next = index === -1 ? cards[0] : cards[Math.min(Math.max(index + step, 0), cards.length - 1)];
  next?.scrollIntoView({ block: 'nearest' });
  next?.focus({ preventScroll: true });
}

const cardById = (id: number) => document.querySelector<HTMLElement>(`article[data-task-id="${id}"]`);

/**
 * Scrolls the card of task `id` into view and focuses it (the palette's 'jump to task'). The card may
 * not be on the page yet (a long list mounts in two steps; the list may be loading): it is looked for
 * at each frame for up to two seconds. Resolves whether it was found.
 */
export function revealCard(id: number): Promise<boolean> {
  return new Promise((resolve) => {
    const until = performance.now() + 2000;
    const look = () => {
      const card = cardById(id);
      if (card) {
        card.scrollIntoView({ block: 'center' });
        card.focus({ preventScroll: true });
        return resolve(true);
      }
      if (performance.now() > until) return resolve(false);
      requestAnimationFrame(look);
    };
    look();
  });
}

/** Asks the main screen to show its Active tab (the Archived tab leaves active cards off the page). */
const SHOW_ACTIVE_LIST = 'tasklane:show-active-list';
export const showActiveList = () => window.dispatchEvent(new Event(SHOW_ACTIVE_LIST));
export function onShowActiveList(listener: () => void): () => void {
  window.addEventListener(SHOW_ACTIVE_LIST, listener);
  return () => window.removeEventListener(SHOW_ACTIVE_LIST, listener);
}

export function isCardShown(id: number): boolean {
  return cardById(id) !== null;
}
