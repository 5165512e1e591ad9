import { DragDropContext, Draggable, Droppable, type DropResult } from '@hello-pangea/dnd';
import { ListTodoIcon } from 'lucide-react';
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { COPY, ERRORS, LIMITS } from '../../common/spec';
import type { TaskSummary } from '../../common/tasks';
import { errorToast } from '../ui/toasts';
import { useActiveTasks, useReorderTasks } from './api';
import { EmptyState, LoadError, NoMatches } from './EmptyState';
import { useTaskFilter } from './filters';
import { activeList, pruneExpanded, registerList } from './list-state';
import { type CardPlacement, TaskCard } from './TaskCard';
import { TaskSkeletons } from './TaskSkeleton';
import { useWindowRows } from './window-rows';

/** A collapsed card with a one-line title and no description. */
const ESTIMATED_CARD_PX = 78;
/** Cards mounted past each edge of the screen while a card is dragged: how far a drag can go. */
const DRAG_REACH = 20;

type RowProps = {
  task: TaskSummary;
  index: number;
  top: number;
  reorderable: boolean;
  measure: (element: Element | null) => void;
};

const TaskRow = memo(function TaskRow({ task, index, top, reorderable, measure }: RowProps) {
  const placement = useMemo<CardPlacement>(() => ({ index, top, measure }), [index, top, measure]);
  return (
    <Draggable draggableId={String(task.id)} index={index} isDragDisabled={!reorderable}>
      {(provided, snapshot) => (
        <TaskCard
          task={task}
          provided={provided}
          isDragging={snapshot.isDragging}
          reorderable={reorderable}
          placement={placement}
        />
      )}
    </Draggable>
  );
});

/**
 * The rows, virtualized against the page's own scroll (issue 15): only the cards near the screen are
 * mounted, plus the expanded ones and the one that holds focus, whatever the scroll position. Each card
 * is placed absolutely at its measured offset, so a card lifted by a drag leaves its space, and the
 * library moves the others with transforms as in a plain list.
 * Kept apart so a drag, which re-renders the droppable, does not re-render every row (library advice).
 */
const TaskRows = memo(function TaskRows({
  tasks,
  reorderable,
}: {
  tasks: TaskSummary[];
  reorderable: boolean;
}) {
  // During a drag, the cards mounted at its start, and no others.
  const [frozen, setFrozen] = useState<number[] | null>(null);
  const { containerRef, style, rows, indexById, virtualizer } = useWindowRows(tasks, {
    estimatedCardPx: ESTIMATED_CARD_PX,
    frozen,
  });
  useEffect(() => pruneExpanded(indexById), [indexById]);

  const tasksRef = useRef(tasks);
  tasksRef.current = tasks;
  useEffect(
    () =>
      registerList({
        ids: () => tasksRef.current.map((task) => task.id),
        scrollTo: (id, align) => {
          const index = tasksRef.current.findIndex((task) => task.id === id);
          if (index !== -1) virtualizer.scrollToIndex(index, { align });
        },
        freeze: () => {
          const count = tasksRef.current.length;
          const start = Math.max(0, (virtualizer.range?.startIndex ?? 0) - DRAG_REACH);
          const end = Math.min(count - 1, (virtualizer.range?.endIndex ?? 0) + DRAG_REACH);
          const indexes = new Set(Array.from({ length: end - start + 1 }, (_, i) => start + i));
          for (const item of virtualizer.getVirtualItems()) indexes.add(item.index);
          // Synchronously: the library measures the cards right after its onBeforeCapture.
          flushSync(() => setFrozen([...indexes].sort((a, b) => a - b)));
        },
        thaw: () => setFrozen(null),
      }),
    [virtualizer],
  );

  return (
    <div ref={containerRef} style={style}>
      {rows.map(({ task, index, top }) => (
        <TaskRow
          key={task.id}
          task={task}
          index={index}
          top={top}
          reorderable={reorderable}
          measure={virtualizer.measureElement}
        />
      ))}
    </div>
  );
});

/**
 * The active list (spec §2), ordered by drag and drop. The library's defaults are the spec's constants:
 * 120 ms long press, 5 px threshold, auto-scroll and drop animation; Space, arrows and Space drag by keyboard.
 * The droppable is in the library's virtual mode. The lifted card is the card itself, not a clone: a
 * clone would unmount it, and the library cannot have cards come and go during a drag in a list that
 * scrolls with the page (it would cancel the drag); the rows are frozen while a card is dragged.
 */
export function TaskList() {
  const { filter, filtered, setFilter } = useTaskFilter();
  // While a filter is on, the list shows only some tasks: their order is not the list's to change.
  const { data: tasks, isPending, isError, refetch } = useActiveTasks(filtered ? filter : undefined);
  const reorder = useReorderTasks();

  const onDragEnd = useCallback(
    ({ source, destination }: DropResult) => {
      if (tasks && destination && destination.index !== source.index) {
        const ordered = [...tasks];
        const [moved] = ordered.splice(source.index, 1);
        ordered.splice(destination.index, 0, moved!);
        reorder(ordered).catch(() => errorToast(ERRORS.reorder));
      }
      activeList()?.thaw();
    },
    [tasks, reorder],
  );

  if (isPending) return <TaskSkeletons />;
  // A failed refetch keeps the list on screen; only a list that never loaded shows the error.
  if (isError && !tasks) return <LoadError onRetry={() => void refetch()} />;

  return (
    <DragDropContext onBeforeCapture={() => activeList()?.freeze()} onDragEnd={onDragEnd}>
      <Droppable droppableId="active-tasks" mode="virtual">
        {(provided) => (
          <div
            ref={provided.innerRef}
            {...provided.droppableProps}
            style={{ minHeight: LIMITS.listMinHeightPx }}
          >
            {filtered && tasks.length > 0 && (
              <p className="mb-3 text-sm text-muted-foreground">{COPY.clearFilterToReorder}</p>
            )}
            {tasks.length === 0 ? (
              filtered ? (
                <NoMatches onClear={() => setFilter({})} />
              ) : (
                <EmptyState icon={ListTodoIcon} title={COPY.noTasks} hint={COPY.noTasksHint} />
              )
            ) : (
              <TaskRows tasks={tasks} reorderable={!filtered} />
            )}
          </div>
        )}
      </Droppable>
    </DragDropContext>
  );
}
