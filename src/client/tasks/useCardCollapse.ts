import { type PointerEvent, type RefObject, useCallback, useEffect, useLayoutEffect, useRef } from 'react';
import { TIMINGS } from '../../common/spec';

/** Radix poppers (menus, selects, popovers, tooltips) and modals live in portals outside the card. */
const PORTAL_SELECTOR =
  '[data-radix-popper-content-wrapper], [role="dialog"], [role="menu"], [role="listbox"]';

/** The toasts' list (ui/toast.tsx), in a portal too. */
const TOASTS_SELECTOR = '[data-toast-viewport]';

/**
 * Whether one is open: a control's own list kept in the page while closed (the Dependencies
 * combobox's listbox, issue 29) is hidden, and does not count.
 */
function portalOpen(): boolean {
  return [...document.querySelectorAll(PORTAL_SELECTOR)].some((element) => !element.closest('[hidden]'));
}

/**
 * Spec §2: an expanded card collapses about 300 ms after the mouse leaves it (unless it comes back),
 * and 100 ms after a click outside it, unless a popper or portal is open: the click was meant for it.
 * Returns the pointer handlers for the card.
 */
export function useCardCollapse(
  cardRef: RefObject<HTMLElement | null>,
  expanded: boolean,
  collapse: () => void,
) {
  const collapseRef = useRef(collapse);
  useLayoutEffect(() => {
    collapseRef.current = collapse;
  });
  const leaveTimer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    if (!expanded) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onPointerDown = (event: globalThis.PointerEvent) => {
      const target = event.target instanceof Element ? event.target : null;
      if (!target || cardRef.current?.contains(target)) return;
      if (target.closest(PORTAL_SELECTOR) || portalOpen()) return;
      clearTimeout(timer);
      timer = setTimeout(() => collapseRef.current(), TIMINGS.outsideClickCollapseMs);
    };
    document.addEventListener('pointerdown', onPointerDown, true);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown, true);
      clearTimeout(timer);
      clearTimeout(leaveTimer.current);
    };
  }, [expanded, cardRef]);

  const onPointerLeave = useCallback(
    (event: PointerEvent) => {
      // A finger "leaves" right after every tap, which would close the card it just opened.
      if (!expanded || event.pointerType !== 'mouse') return;
      // A toast that appeared under a still pointer (the card's own 'Copied to clipboard', say) is
      // not the person leaving the card.
      if (event.relatedTarget instanceof Element && event.relatedTarget.closest(TOASTS_SELECTOR)) return;
      clearTimeout(leaveTimer.current);
      leaveTimer.current = setTimeout(() => {
        // Moving into the card's own menu or picker (in a portal) is not leaving the card.
        if (!portalOpen()) collapseRef.current();
      }, TIMINGS.pointerLeaveCollapseMs);
    },
    [expanded],
  );
  const onPointerEnter = useCallback(() => clearTimeout(leaveTimer.current), []);

  return { onPointerLeave, onPointerEnter };
}
