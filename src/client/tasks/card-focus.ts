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
