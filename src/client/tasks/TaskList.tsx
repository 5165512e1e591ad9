import { Draggable, Droppable, type DropResult } from '@hello-pangea/dnd';
import { ChevronRightIcon, ListTodoIcon, type LucideIcon } from 'lucide-react';
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { COPY, ERRORS, LIMITS } from '../../common/spec';
import type { TaskSummary } from '../../common/tasks';
import { errorMessage } from '../lib/api';
import { cn } from '../lib/cn';
import { ListProjectContext } from '../projects/ProjectChip';
import { useMoveTaskToPlace, useScopeProjectId, useScopeSections } from '../sections/api';
import { SECTION_COPY } from '../sections/copy';
import { type HeaderRow, isHeader, type ListRow, listRows, placeAt } from '../sections/grouping';
import { SectionActions } from '../sections/SectionControls';
import { useCollapsedSections } from '../sections/view';
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

type HeaderProps = {
  row: HeaderRow;
  index: number;
  top: number;
  editable: boolean;
  measure: (element: Element | null) => void;
  onCollapse: (sectionId: number, collapsed: boolean) => void;
};

const SectionHeaderRow = memo(function SectionHeaderRow({
  row,
  index,
  top,
  editable,
  measure,
  onCollapse,
}: HeaderProps) {
  const { section, count, collapsed } = row;
  return (
    <Draggable draggableId={row.id} index={index} isDragDisabled>
      {(provided) => (
        <div
          ref={(element) => {
            provided.innerRef(element);
            measure(element);
          }}
          {...provided.draggableProps}
          style={{ position: 'absolute', top, left: 0, width: '100%', ...provided.draggableProps.style }}
          data-index={index}
          data-section-id={section.id}
          className="flex items-center gap-1 border-b pt-3 pb-1"
        >
          <button
            type="button"
            aria-expanded={!collapsed}
            aria-label={collapsed ? SECTION_COPY.expand(section.name) : SECTION_COPY.collapse(section.name)}
            onClick={() => onCollapse(section.id, !collapsed)}
            className="flex min-w-0 flex-1 items-center gap-1.5 rounded-md py-1 text-left outline-none focus-visible:ring-2 focus-visible:ring-ring"
          >
            <ChevronRightIcon
              aria-hidden
              className={cn(
                'size-4 shrink-0 text-muted-foreground transition-transform',
                !collapsed && 'rotate-90',
              )}
            />
            <span className="truncate font-semibold">{section.name}</span>
            <span className="text-sm text-muted-foreground tabular-nums">
              <span aria-hidden>{count}</span>
              <span className="sr-only">{SECTION_COPY.taskCount(count)}</span>
            </span>
          </button>
          {editable && <SectionActions section={section} />}
        </div>
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
  editable,
  onCollapse,
  reveal,
}: {
  tasks: ListRow[];
  reorderable: boolean;
  /** Whether section headers show their Rename and Delete. */
  editable: boolean;
  onCollapse: (sectionId: number, collapsed: boolean) => void;
  /** Opens the collapsed section task `id` is in, if it is in one (the palette's jump reaches it). */
  reveal: (id: number) => void;
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
  const revealRef = useRef(reveal);
  revealRef.current = reveal;
  useEffect(
    () =>
      registerList({
        ids: () => tasksRef.current.flatMap((row) => (isHeader(row) ? [] : [row.id])),
        scrollTo: (id, align) => {
          revealRef.current(id);
          const index = tasksRef.current.findIndex((row) => row.id === id);
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
      {rows.map(({ task: row, index, top }) =>
        isHeader(row) ? (
          <SectionHeaderRow
            key={row.id}
            row={row}
            index={index}
            top={top}
            editable={editable}
            measure={virtualizer.measureElement}
            onCollapse={onCollapse}
          />
        ) : (
          <TaskRow
            key={row.id}
            task={row}
            index={index}
            top={top}
            reorderable={reorderable}
            measure={virtualizer.measureElement}
          />
        ),
      )}
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
  // Issue 23: grouped by the sections of the Inbox or the project, when it has any.
  const projectId = useScopeProjectId(scope);
  const { sections, pending: sectionsPending } = useScopeSections(scope, tasks);
  const { collapsed, setCollapsed } = useCollapsedSections(projectId);
  const rows = useMemo(
    () => (tasks ? listRows(tasks, sections, collapsed) : []),
    [tasks, sections, collapsed],
  );
  const moveTask = useMoveTaskToPlace(scope);
  const reveal = useCallback(
    (id: number) => {
      const sectionId = tasks?.find((task) => task.id === id)?.sectionId;
      if (sectionId != null && collapsed.has(sectionId)) flushSync(() => setCollapsed(sectionId, false));
    },
    [tasks, collapsed, setCollapsed],
  );

  const onDrop = useCallback(
    ({ draggableId, source, destination }: DropResult) => {
      if (!tasks || !destination || destination.index === source.index) return;
      if (sections.length > 0) {
        const place = placeAt(rows, Number(draggableId), destination.index);
        moveTask(Number(draggableId), place).catch((error: unknown) =>
          errorToast(errorMessage(error, ERRORS.reorder)),
        );
        return;
      }
      const ordered = [...tasks];
      const [moved] = ordered.splice(source.index, 1);
      ordered.splice(destination.index, 0, moved!);
      reorder(ordered).catch(() => errorToast(ERRORS.reorder));
    },
    [tasks, rows, sections, reorder, moveTask],
  );
  useEffect(() => registerListDrop(onDrop), [onDrop]);

  if (isPending || sectionsPending) return <TaskSkeletons />;
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
          {rows.length === 0 ? (
            filtered ? (
              <NoMatches onClear={() => setFilter({})} />
            ) : (
              <EmptyState icon={empty.icon} title={empty.title} hint={empty.hint} />
            )
          ) : (
            <ListProjectContext value={projectId}>
              <TaskRows
                tasks={rows}
                reorderable={reorderable && !filtered}
                editable={reorderable}
                onCollapse={setCollapsed}
                reveal={reveal}
              />
            </ListProjectContext>
          )}
        </div>
      )}
    </Droppable>
  );
}
