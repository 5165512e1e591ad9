import { defaultRangeExtractor, type Range, useWindowVirtualizer } from '@tanstack/react-virtual';
import {
  type CSSProperties,
  type RefObject,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { keptIds, setFocusedTask, useKeptVersion } from './list-state';

/**
 * What the two virtualized lists (active and archived, issue 15) share: cards placed against the
 * page's own scroll, measured as they render, the ones that must stay mounted kept whatever the
 * scroll position.
 */

/** The space under each card. */
const CARD_GAP_PX = 12;
/** Cards rendered past each edge of the screen: enough for a fast wheel or a keyboard step. */
const OVERSCAN = 6;

/**
 * The rows of a list of tasks to render now, each with its index and its top within the list's
 * container (which takes `containerRef` and `style`). `frozen`, when set, is exactly the indexes to
 * render (during a drag). Rows other than cards (a section's header) have string ids.
 */
export function useWindowRows<T extends { id: number | string }>(
  tasks: T[],
  { estimatedCardPx, frozen = null }: { estimatedCardPx: number; frozen?: number[] | null },
) {
  const containerRef = useRef<HTMLDivElement>(null);
  const scrollMargin = useScrollMargin(containerRef);
  useFocusedCardKept(containerRef);
  const indexById = useMemo(() => new Map(tasks.map((task, index) => [task.id, index])), [tasks]);
  const keptRange = useKeptRange(indexById);
  const rangeExtractor = useCallback((range: Range) => frozen ?? keptRange(range), [frozen, keptRange]);
  const getItemKey = useCallback((index: number) => tasks[index]?.id ?? index, [tasks]);
  const virtualizer = useWindowVirtualizer({
    count: tasks.length,
    estimateSize: () => estimatedCardPx,
    gap: CARD_GAP_PX,
    overscan: OVERSCAN,
    scrollMargin,
    getItemKey,
    rangeExtractor,
  });
  const rows = virtualizer.getVirtualItems().flatMap((item) => {
    const task = tasks[item.index];
    return task ? [{ task, index: item.index, top: item.start - scrollMargin }] : [];
  });
  const style: CSSProperties = { position: 'relative', height: virtualizer.getTotalSize() };
  return { containerRef, style, rows, indexById, virtualizer };
}

/** The list's distance from the top of the page (below the header and filters), kept up to date. */
function useScrollMargin(containerRef: RefObject<HTMLElement | null>): number {
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
function useFocusedCardKept(containerRef: RefObject<HTMLElement | null>): void {
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
function useKeptRange(indexById: ReadonlyMap<number | string, number>): (range: Range) => number[] {
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
