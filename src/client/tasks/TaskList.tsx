import { Draggable, Droppable, type DropResult } from '@hello-pangea/dnd';
import { ListTodoIcon, type LucideIcon } from 'lucide-react';
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { COPY, ERRORS, LIMITS } from '../../common/spec';
import type { TaskSummary } from '../../common/tasks';
import { errorToast } from '../ui/toasts';
import { INBOX_SCOPE, type TaskScope, useActiveTasks, useReorderTasks } from './api';
import { dropTarget, registerListDrop } from './drag';
import { EmptyState, LoadError, NoMatches } from './EmptyState';
import { useTaskFilter } from './filters';
import { pruneExpanded, registerList } from './list-state';
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
          // Dropped on a project in the sidebar: it leaves the list where it is, not by gliding back.
          leaving={snapshot.isDropAnimating && dropTarget() !== null}
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

/** What an empty list says: the spec's words for the Inbox and a project's list. */
export type EmptyCopy = { icon: LucideIcon; title: string; hint?: string };
const NO_TASKS: EmptyCopy = { icon: ListTodoIcon, title: COPY.noTasks, hint: COPY.noTasksHint };

type TaskListProps = {
  /** Whose tasks (issue 21): the Inbox unless a project's or the caller's assigned tasks. */
  scope?: TaskScope;
  /** False where the order is not the person's to change (a role below editor, a list across projects). */
  reorderable?: boolean;
  empty?: EmptyCopy;
};

/**
 * The active list (spec §2), ordered by drag and drop. The library's defaults are the spec's constants:
 * 120 ms long press, 5 px threshold, auto-scroll and drop animation; Space, arrows and Space drag by keyboard.
 * The droppable is in the library's virtual mode. The lifted card is the card itself, not a clone: a
 * clone would unmount it, and the library cannot have cards come and go during a drag in a list that
 * scrolls with the page (it would cancel the drag); the rows are frozen while a card is dragged.
 * The drag-and-drop context is the screen's (TaskDragContext), shared with the sidebar's projects.
 */
export function TaskList({ scope = INBOX_SCOPE, reorderable = true, empty = NO_TASKS }: TaskListProps) {
  const { filter, filtered, setFilter } = useTaskFilter();
  // While a filter is on, the list shows only some tasks: their order is not the list's to change.
  const { data: tasks, isPending, isError, refetch } = useActiveTasks(scope, filtered ? filter : undefined);
  const reorder = useReorderTasks(scope);

  const onDrop = useCallback(
    ({ source, destination }: DropResult) => {
      if (tasks && destination && destination.index !== source.index) {
        const ordered = [...tasks];
        const [moved] = ordered.splice(source.index, 1);
        ordered.splice(destination.index, 0, moved!);
        reorder(ordered).catch(() => errorToast(ERRORS.reorder));
      }
    },
    [tasks, reorder],
  );
  useEffect(() => registerListDrop(onDrop), [onDrop]);

  if (isPending) return <TaskSkeletons />;
  // A failed refetch keeps the list on screen; only a list that never loaded shows the error.
  if (isError && !tasks) return <LoadError onRetry={() => void refetch()} />;

  return (
    <Droppable droppableId="active-tasks" mode="virtual">
      {(provided) => (
        <div
          ref={provided.innerRef}
          {...provided.droppableProps}
          style={{ minHeight: LIMITS.listMinHeightPx }}
        >
          {reorderable && filtered && tasks.length > 0 && (
            <p className="mb-3 text-sm text-muted-foreground">{COPY.clearFilterToReorder}</p>
          )}
          {tasks.length === 0 ? (
            filtered ? (
              <NoMatches onClear={() => setFilter({})} />
            ) : (
              <EmptyState icon={empty.icon} title={empty.title} hint={empty.hint} />
            )
          ) : (
            <TaskRows tasks={tasks} reorderable={reorderable && !filtered} />
          )}
        </div>
      )}
    </Droppable>
  );
}
