import { defaultRangeExtractor, type Range } from '@tanstack/react-virtual';
import { type RefObject, useCallback, useEffect, useLayoutEffect, useState } from 'react';
import { keptIds, setFocusedTask, useKeptVersion } from './list-state';

/**
 * What the two virtualized lists (active and archived, issue 15) share: where the list starts on the
 * page, and which cards stay mounted whatever the scroll position.
 */

/** The list's distance from the top of the page (below the header and filters), kept up to date. */
export function useScrollMargin(containerRef: RefObject<HTMLElement | null>): number {
  const [scrollMargin, setScrollMargin] = useState(0);
  useLayoutEffect(() => {
    const measure = () => {
      const container = containerRef.current;
      if (!container) return;
      setScrollMargin(Math.round(container.getBoundingClientRect().top + window.scrollY));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, [containerRef]);
  return scrollMargin;
}

const cardIdOf = (target: EventTarget | null): number | null => {
  const card = target instanceof Element ? target.closest<HTMLElement>('article[data-task-id]') : null;
  return card ? Number(card.dataset.taskId) : null;
};

/** The card that holds focus stays mounted while it is scrolled away (focus survives scrolling). */
export function useFocusedCardKept(containerRef: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const onFocusIn = (event: FocusEvent) => setFocusedTask(cardIdOf(event.target));
    const onFocusOut = (event: FocusEvent) => {
      // Focus leaving for a card's menu or picker (in a portal), or for nowhere, still belongs to the card.
      const next = event.relatedTarget;
      if (next instanceof Element && !next.closest('[data-radix-popper-content-wrapper], [role="dialog"]'))
        setFocusedTask(cardIdOf(next));
    };
    container.addEventListener('focusin', onFocusIn);
    container.addEventListener('focusout', onFocusOut);
    return () => {
      container.removeEventListener('focusin', onFocusIn);
      container.removeEventListener('focusout', onFocusOut);
    };
  }, [containerRef]);
}

/** The virtualizer's range, plus the cards that must stay mounted (focused, expanded) wherever they are. */
export function useKeptRange(indexById: ReadonlyMap<number, number>): (range: Range) => number[] {
  const kept = useKeptVersion();
  return useCallback(
    (range: Range) => {
      void kept;
      const indexes = defaultRangeExtractor(range);
      const extra: number[] = [];
      for (const id of keptIds()) {
        const index = indexById.get(id);
        if (index !== undefined && (index < indexes[0]! || index > indexes.at(-1)!)) extra.push(index);
      }
      return extra.length === 0 ? indexes : [...new Set([...indexes, ...extra])].sort((a, b) => a - b);
    },
    [indexById, kept],
  );
}
