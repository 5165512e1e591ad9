import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { ArchiveIcon } from 'lucide-react';
import { useCallback, useMemo, useRef } from 'react';
import { COPY } from '../../common/spec';
import type { Task } from '../../common/tasks';
import { ArchivedTaskCard } from './ArchivedTaskCard';
import { useArchivedTasks } from './api';
import { EmptyState, LoadError, NoMatches } from './EmptyState';
import { useTaskFilter } from './filters';
import { TaskSkeletons } from './TaskSkeleton';
import { useFocusedCardKept, useKeptRange, useScrollMargin } from './window-rows';

/** An archived card with a one-line title, and the space under each card. */
const ESTIMATED_CARD_PX = 90;
const CARD_GAP_PX = 12;
/** Cards rendered past each edge of the screen. */
const OVERSCAN = 6;

/**
 * The archive grows with every completed task, so it is virtualized like the active list (issue 15):
 * only the cards near the screen are mounted, plus the one that holds focus.
 */
function ArchivedRows({ tasks }: { tasks: Task[] }) {
  const containerRef = useRef<HTMLDivElement>(null);
  const scrollMargin = useScrollMargin(containerRef);
  useFocusedCardKept(containerRef);
  const indexById = useMemo(() => new Map(tasks.map((task, index) => [task.id, index])), [tasks]);
  const rangeExtractor = useKeptRange(indexById);
  const getItemKey = useCallback((index: number) => tasks[index]?.id ?? index, [tasks]);
  const virtualizer = useWindowVirtualizer({
    count: tasks.length,
    estimateSize: () => ESTIMATED_CARD_PX,
    gap: CARD_GAP_PX,
    overscan: OVERSCAN,
    scrollMargin,
    getItemKey,
    rangeExtractor,
  });

  return (
    <div ref={containerRef} style={{ position: 'relative', height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((item) => {
        const task = tasks[item.index];
        return task ? (
          <ArchivedTaskCard
            key={task.id}
            task={task}
            index={item.index}
            top={item.start - scrollMargin}
            measure={virtualizer.measureElement}
          />
        ) : null;
      })}
    </div>
  );
}

/** Archived tasks, most recently archived first (the server's order). */
export function ArchivedTaskList() {
  const { filter, filtered, setFilter } = useTaskFilter();
  const { data: tasks, isPending, isError, refetch } = useArchivedTasks(filtered ? filter : undefined);
  if (isPending) return <TaskSkeletons />;
  // A failed refetch keeps the list on screen; only a list that never loaded shows the error.
  if (isError && !tasks) return <LoadError onRetry={() => void refetch()} />;
  if (tasks.length === 0) {
    return filtered ? (
      <NoMatches onClear={() => setFilter({})} />
    ) : (
      <EmptyState icon={ArchiveIcon} title={COPY.noArchivedTasks} />
    );
  }
  return <ArchivedRows tasks={tasks} />;
}
