import { Draggable, Droppable, type DropResult } from '@hello-pangea/dnd';
import { ChevronRightIcon, ListTodoIcon, type LucideIcon } from 'lucide-react';
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { COPY, ERRORS, LIMITS } from '../../common/spec';
import type { TaskSummary } from '../../common/tasks';
import { errorMessage } from '../lib/api';
import { cn } from '../lib/cn';
import { ListProjectContext } from '../projects/ProjectChip';
import { useScopeProjectId, useScopeSections } from '../sections/api';
import { SECTION_COPY } from '../sections/copy';
import { type HeaderRow, isHeader, type ListRow, listRows } from '../sections/grouping';
import { SectionActions } from '../sections/SectionControls';
import { useCollapsedSections } from '../sections/view';
import { errorToast } from '../ui/toasts';
import { INBOX_SCOPE, type TaskScope, useListTasks } from './api';
import { dropTarget, registerListDrop, usePointerDrag } from './drag';
import { EmptyState, LoadError, NoMatches } from './EmptyState';
import { useTaskFilter } from './filters';
import { pruneExpanded, registerList } from './list-state';
import {
  announce,
  arrangeTree,
  type DoneRow,
  dropPlace,
  indentOf,
  isDoneRow,
  registerTreeKeys,
  SUBTASK_COPY,
  setSubtasksCollapsed,
  siblingAbove,
  subtreeIds,
  type TreeInfo,
  type TreePlace,
  useCollapsedSubtasks,
  useTreeMove,
} from './subtasks';
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
  /** Issue 29: its place in the tree of sub-tasks. */
  depth: number;
  subtaskCount: number;
  collapsed: boolean;
};

const TaskRow = memo(function TaskRow({
  task,
  index,
  top,
  reorderable,
  measure,
  depth,
  subtaskCount,
  collapsed,
}: RowProps) {
  const placement = useMemo<CardPlacement>(
    () => ({ index, top, measure, depth }),
    [index, top, measure, depth],
  );
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
          subtaskCount={subtaskCount}
          subtasksCollapsed={collapsed}
          nestTarget={snapshot.combineTargetFor !== null && snapshot.combineTargetFor !== undefined}
        />
      )}
    </Draggable>
  );
});

/** Issue 29: '3 done' under a parent, a button that shows or hides its completed sub-tasks. */
const DoneRowView = memo(function DoneRowView({
  row,
  index,
  top,
  measure,
  onToggle,
}: {
  row: DoneRow;
  index: number;
  top: number;
  measure: (element: Element | null) => void;
  onToggle: (parentId: number, open: boolean) => void;
}) {
  return (
    <Draggable draggableId={row.id} index={index} isDragDisabled>
      {(provided) => (
        <div
          ref={(element) => {
            provided.innerRef(element);
            measure(element);
          }}
          {...provided.draggableProps}
          style={{
            position: 'absolute',
            top,
            left: 0,
            right: 0,
            marginInlineStart: indentOf(row.depth),
            ...provided.draggableProps.style,
          }}
          data-index={index}
          data-done-of={row.doneOf}
        >
          <button
            type="button"
            aria-expanded={row.open}
            onClick={() => onToggle(row.doneOf, !row.open)}
            className="flex items-center gap-1 rounded-md px-2 py-1 text-sm text-muted-foreground outline-none hover:bg-accent hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring"
          >
            <ChevronRightIcon
              aria-hidden
              className={cn('size-4 transition-transform', row.open && 'rotate-90')}
            />
            {SUBTASK_COPY.done(row.count)}
          </button>
        </div>
      )}
    </Draggable>
  );
});

const NO_TREE: TreeInfo = { depth: 0, children: 0, collapsed: false };

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
  tree,
  reorderable,
  editable,
  onCollapse,
  onToggleDone,
  reveal,
}: {
  tasks: ListRow[];
  /** Each card's place in the tree of sub-tasks (issue 29). */
  tree: ReadonlyMap<number, TreeInfo>;
  onToggleDone: (parentId: number, open: boolean) => void;
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
        ids: () => tasksRef.current.flatMap((row) => (typeof row.id === 'number' ? [row.id] : [])),
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
        ) : isDoneRow(row) ? (
          <DoneRowView
            key={row.id}
            row={row}
            index={index}
            top={top}
            measure={virtualizer.measureElement}
            onToggle={onToggleDone}
          />
        ) : (
          <TaskRow
            key={row.id}
            task={row}
            index={index}
            top={top}
            reorderable={reorderable}
            measure={virtualizer.measureElement}
            depth={(tree.get(row.id) ?? NO_TREE).depth}
            subtaskCount={(tree.get(row.id) ?? NO_TREE).children}
            collapsed={(tree.get(row.id) ?? NO_TREE).collapsed}
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
  // Issue 29: with the completed sub-tasks that stay under their open parents.
  const { data: tasks, isPending, isError, refetch } = useListTasks(scope, filtered ? filter : undefined);
  const collapsedSubtasks = useCollapsedSubtasks();
  const [doneOpen, setDoneOpen] = useState<ReadonlySet<number>>(() => new Set());
  const toggleDone = useCallback(
    (parentId: number, open: boolean) =>
      setDoneOpen((current) => {
        const next = new Set(current);
        if (open) next.add(parentId);
        else next.delete(parentId);
        return next;
      }),
    [],
  );
  // Issue 23: grouped by the sections of the Inbox or the project, when it has any.
  const projectId = useScopeProjectId(scope);
  const { sections, pending: sectionsPending } = useScopeSections(scope, tasks);
  const { collapsed, setCollapsed } = useCollapsedSections(projectId);
  const { rows, tree } = useMemo(() => {
    const info = new Map<number, TreeInfo>();
    const arranged = tasks
      ? listRows(tasks, sections, collapsed, (group) => arrangeTree(group, collapsedSubtasks, doneOpen, info))
      : [];
    return { rows: arranged, tree: info };
  }, [tasks, sections, collapsed, collapsedSubtasks, doneOpen]);
  const treeMove = useTreeMove(scope);
  const pointerDrag = usePointerDrag();
  const reveal = useCallback(
    (id: number) => {
      const byId = new Map(tasks?.map((task) => [task.id, task]));
      const task = byId.get(id);
      const sectionId = task?.sectionId;
      flushSync(() => {
        if (sectionId != null && collapsed.has(sectionId)) setCollapsed(sectionId, false);
        // Issue 29: its collapsed parents open, and a completed sub-task's '3 done'.
        if (task?.completed && task.parentId !== null) toggleDone(task.parentId, true);
        for (
          let parent = task && byId.get(task.parentId ?? -1);
          parent;
          parent = byId.get(parent.parentId ?? -1)
        )
          setSubtasksCollapsed(parent.id, false);
      });
    },
    [tasks, collapsed, setCollapsed, toggleDone],
  );

  const tasksRef = useRef(tasks);
  tasksRef.current = tasks;
  /** Puts task `id` at `place`; when its parent changes, says so through the list's announcer. */
  const moveInTree = useCallback(
    (id: number, place: TreePlace, options: { reorder: boolean; orderOptional?: boolean }) => {
      const list = tasksRef.current ?? [];
      const byId = new Map(list.map((task) => [task.id, task]));
      const task = byId.get(id);
      if (!task) return;
      const shownParent = task.parentId !== null && byId.has(task.parentId) ? task.parentId : null;
      const reparent = place.parentId !== shownParent;
      if (!reparent && !options.reorder) return;
      // The card stays on screen under its new parent, and keeps focus.
      if (place.parentId !== null) setSubtasksCollapsed(place.parentId, false);
      keepFocus(id);
      const parentTitle = place.parentId === null ? null : (byId.get(place.parentId)?.title ?? null);
      treeMove(id, place, { reparent, ...options })
        .then(() => {
          if (!reparent) return;
          announce(
            parentTitle === null
              ? SUBTASK_COPY.topLevel(task.title)
              : SUBTASK_COPY.nested(task.title, parentTitle),
          );
        })
        // A reorder's failure says what the spec says; a change of parent, what the server said.
        .catch((error: unknown) =>
          errorToast(reparent ? errorMessage(error, SUBTASK_COPY.nestFailed) : ERRORS.reorder),
        );
    },
    [treeMove],
  );

  useEffect(
    () =>
      registerTreeKeys({
        nest: (id) => {
          const list = tasksRef.current ?? [];
          const task = list.find((candidate) => candidate.id === id);
          if (!task) return;
          const above = siblingAbove(list, id);
          if (!above) return announce(SUBTASK_COPY.noCardAbove(task.title));
          moveInTree(id, { parentId: above.id, afterId: 'last' }, { reorder: false });
        },
        unnest: (id) => {
          const list = tasksRef.current ?? [];
          const byId = new Map(list.map((task) => [task.id, task]));
          const task = byId.get(id);
          const parent = task?.parentId == null ? undefined : byId.get(task.parentId);
          if (!task) return;
          if (!parent) return announce(SUBTASK_COPY.alreadyTopLevel(task.title));
          // Just after its old parent, among the parent's siblings.
          moveInTree(
            id,
            { parentId: parent.parentId, afterId: parent.id },
            { reorder: true, orderOptional: true },
          );
        },
      }),
    [moveInTree],
  );

  const onDrop = useCallback(
    ({ draggableId, source, destination, combine }: DropResult) => {
      const id = Number(draggableId);
      if (!tasks || !Number.isInteger(id)) return;
      if (combine) {
        // Dropped onto the middle of another card: it goes under that card, last of its sub-tasks.
        const target = Number(combine.draggableId);
        if (!Number.isInteger(target) || subtreeIds(tasks, id).has(target)) return;
        moveInTree(id, { parentId: target, afterId: 'last' }, { reorder: false });
        return;
      }
      if (!destination || destination.index === source.index) return;
      const place = dropPlace(rows, tasks, id, destination.index);
      if (!place) return;
      const sectionId =
        sections.length > 0 && place.parentId === null ? (place.sectionId ?? null) : undefined;
      moveInTree(id, { ...place, sectionId }, { reorder: true });
    },
    [tasks, rows, sections, moveInTree],
  );
  useEffect(() => registerListDrop(onDrop), [onDrop]);

  if (isPending || sectionsPending) return <TaskSkeletons />;
  // A failed refetch keeps the list on screen; only a list that never loaded shows the error.
  if (isError && !tasks) return <LoadError onRetry={() => void refetch()} />;

  return (
    // Combining (a card dropped onto the middle of another) nests it there (issue 29).
    <Droppable
      droppableId="active-tasks"
      mode="virtual"
      isCombineEnabled={pointerDrag && reorderable && !filtered}
    >
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
                tree={tree}
                onToggleDone={toggleDone}
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

/**
 * Keeps focus on the card of task `id` while a move re-renders the list: React may move the card's
 * element among its siblings, and an element taken out of the page loses focus.
 */
function keepFocus(id: number): void {
  const card = document.querySelector<HTMLElement>(`article[data-task-id="${id}"]`);
  if (!card?.contains(document.activeElement)) return;
  const focused = document.activeElement as HTMLElement;
  const onFocusOut = (event: FocusEvent) => {
    if (event.relatedTarget) return;
    requestAnimationFrame(() => {
      const target = focused.isConnected
        ? focused
        : document.querySelector<HTMLElement>(`article[data-task-id="${id}"]`);
      if (document.activeElement === document.body || document.activeElement === null)
        target?.focus({ preventScroll: true });
    });
  };
  card.addEventListener('focusout', onFocusOut);
  setTimeout(() => card.removeEventListener('focusout', onFocusOut), 3000);
}
