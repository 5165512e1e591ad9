import {
  Draggable,
  type DraggableProvided,
  type DraggableStateSnapshot,
  Droppable,
  type DropResult,
} from '@hello-pangea/dnd';
import { defaultRangeExtractor, type Range, useVirtualizer } from '@tanstack/react-virtual';
import { GripVerticalIcon, PlusIcon } from 'lucide-react';
import {
  type CSSProperties,
  type FormEvent,
  memo,
  startTransition,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import type { Section } from '../../common/sections';
import type { TaskSummary } from '../../common/tasks';
import { errorMessage } from '../lib/api';
import { cn } from '../lib/cn';
import { ListProjectContext } from '../projects/ProjectChip';
import { type TaskScope, useActiveTasks, useCreateTask } from '../tasks/api';
import { dropTarget, registerListDrop, useLifted } from '../tasks/drag';
import { LoadError } from '../tasks/EmptyState';
import { useTaskFilter } from '../tasks/filters';
import { TaskMeta } from '../tasks/TaskMeta';
import { TaskSkeletons } from '../tasks/TaskSkeleton';
import { Button } from '../ui/button';
import { Input } from '../ui/input';
import { errorToast } from '../ui/toasts';
import { useMoveTaskToPlace, useScopeSections, useSectionActions } from './api';
import { SECTION_COPY } from './copy';
import { groupBySection, type SectionGroup } from './grouping';
import { SectionActions } from './SectionControls';

/** A card with a one-line title and a row of chips. */
const ESTIMATED_CARD_PX = 76;
const CARD_GAP_PX = 8;
/** Cards rendered past each end of a column's visible part. */
const OVERSCAN = 4;
/** A column's width and the gap after it (w-72, gap-3). */
const COLUMN_PX = 300;
/**
 * How many columns get their cards in the first paint: at most those a screen this wide can show.
 * The rest get theirs right after, in a transition that yields to the browser, so a board of
 * many columns paints its first cards without waiting for the ones out of sight (issue 28).
 */
const firstColumns = () => Math.ceil(window.innerWidth / COLUMN_PX);

/** The board's droppables: the row of columns, and each column's cards (`none` for 'No section'). */
export const COLUMNS_DROPPABLE = 'board-columns';
export const COLUMN_TYPE = 'column';
const NONE = 'none';
const columnDroppableId = (section: Section | null) => `column:${section?.id ?? NONE}`;
const sectionOfDroppable = (droppableId: string): number | null => {
  const id = droppableId.slice('column:'.length);
  return id === NONE ? null : Number(id);
};

type CardProps = {
  task: TaskSummary;
  provided: DraggableProvided;
  snapshot: DraggableStateSnapshot;
  editable: boolean;
  /** Where the column's virtualizer puts the card. */
  placement: { index: number; top: number; measure: (element: Element | null) => void };
};

/** One task on the board: its title and chips, and a handle to drag it by mouse, finger or keyboard. */
const BoardCard = memo(function BoardCard({ task, provided, snapshot, editable, placement }: CardProps) {
  const dragStyle =
    snapshot.isDropAnimating && dropTarget() !== null
      ? { ...provided.draggableProps.style, opacity: 0, transitionDuration: '0.001s' }
      : provided.draggableProps.style;
  // The library's style over the column's placement: while dragged, the card is fixed to the
  // screen, so it shows outside its column's scroll.
  const style: CSSProperties = {
    position: 'absolute',
    top: placement.top,
    left: 0,
    width: '100%',
    ...dragStyle,
  };
  return (
    <article
      ref={(element) => {
        provided.innerRef(element);
        placement.measure(element);
      }}
      {...provided.draggableProps}
      style={style}
      data-index={placement.index}
      data-task-id={task.id}
      aria-label={task.title}
      className={cn(
        'flex items-start gap-1.5 rounded-lg border bg-card p-2.5 text-sm text-card-foreground shadow-xs',
        snapshot.isDragging && 'shadow-xl ring-2 ring-ring/40',
      )}
    >
      {editable ? (
        // biome-ignore lint/a11y/useSemanticElements: the library will not start a drag from a <button>
        <div
          role="button"
          tabIndex={0}
          {...provided.dragHandleProps}
          aria-label={SECTION_COPY.moveCard}
          className="-ml-1 flex h-6 w-5 shrink-0 cursor-grab items-center justify-center rounded-md text-muted-foreground outline-none hover:bg-accent focus-visible:ring-2 focus-visible:ring-ring active:cursor-grabbing"
        >
          <GripVerticalIcon aria-hidden className="size-4" />
        </div>
      ) : null}
      <div className="grid min-w-0 flex-1 gap-0.5">
        <h3 className="break-words font-medium leading-6">{task.title}</h3>
        <TaskMeta task={task} urgent readOnly />
      </div>
    </article>
  );
});

type RowProps = {
  task: TaskSummary;
  index: number;
  top: number;
  editable: boolean;
  measure: (element: Element | null) => void;
};

/**
 * A card in its column. Memoized on plain props: a column re-renders on every scroll step and
 * measurement, and only the cards whose place changed re-render with it (as the list's rows).
 */
const BoardRow = memo(function BoardRow({ task, index, top, editable, measure }: RowProps) {
  const placement = useMemo(() => ({ index, top, measure }), [index, top, measure]);
  return (
    <Draggable draggableId={String(task.id)} index={index} isDragDisabled={!editable}>
      {(provided, snapshot) => (
        <BoardCard
          task={task}
          provided={provided}
          snapshot={snapshot}
          editable={editable}
          placement={placement}
        />
      )}
    </Draggable>
  );
});

/** 'Add a task' at a column's foot: a title, added to that column's section (none for 'No section'). */
function AddCard({ scope, section }: { scope: TaskScope; section: Section | null }) {
  const [adding, setAdding] = useState(false);
  const [title, setTitle] = useState('');
  const create = useCreateTask(scope);
  const name = section?.name ?? SECTION_COPY.noSection;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!title.trim()) return;
    create.mutate(
      {
        title: title.trim(),
        description: '',
        dueDate: null,
        contextId: null,
        sectionId: section?.id ?? null,
      },
      {
        onSuccess: () => setTitle(''),
        onError: (error) => errorToast(errorMessage(error, SECTION_COPY.saveFailed)),
      },
    );
  };
  if (!adding) {
    return (
      <Button
        variant="ghost"
        size="sm"
        className="w-full justify-start text-muted-foreground"
        aria-label={SECTION_COPY.addTaskTo(name)}
        onClick={() => setAdding(true)}
      >
        <PlusIcon aria-hidden />
        {SECTION_COPY.addATask}
      </Button>
    );
  }
  return (
    <form onSubmit={submit} className="grid gap-2">
      <Input
        autoFocus
        aria-label={SECTION_COPY.taskTitle}
        value={title}
        disabled={create.isPending}
        onChange={(event) => setTitle(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.stopPropagation();
            setAdding(false);
          }
        }}
      />
      <div className="flex gap-2">
        <Button type="submit" size="sm" disabled={create.isPending}>
          {SECTION_COPY.addATask}
        </Button>
        <Button type="button" size="sm" variant="ghost" onClick={() => setAdding(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

/**
 * A column's cards, virtualized against the column's own scroll. The lifted card is the card itself,
 * kept mounted whatever the scroll: not a clone, which would unmount it, and a touch drag's events
 * go to the element the finger first touched (gone, they would reach no listener).
 */
const ColumnCards = memo(function ColumnCards({
  group,
  name,
  editable,
  deferred,
}: {
  group: SectionGroup;
  name: string;
  editable: boolean;
  /** Its cards are still to come (firstColumns): the column has its height, not yet its cards. */
  deferred: boolean;
}) {
  const { tasks } = group;
  const scrollRef = useRef<HTMLDivElement | null>(null);
  const lifted = useLifted();
  const liftedIndex = lifted === null ? -1 : tasks.findIndex((task) => task.id === lifted);
  const rangeExtractor = useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      if (liftedIndex === -1 || indexes.includes(liftedIndex)) return indexes;
      return [...indexes, liftedIndex].sort((a, b) => a - b);
    },
    [liftedIndex],
  );
  const virtualizer = useVirtualizer({
    count: tasks.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_CARD_PX,
    gap: CARD_GAP_PX,
    overscan: OVERSCAN,
    getItemKey: (index) => tasks[index]?.id ?? index,
    rangeExtractor,
  });
  return (
    <Droppable droppableId={columnDroppableId(group.section)} mode="virtual">
      {(provided, snapshot) => (
        <div
          ref={(element) => {
            scrollRef.current = element;
            provided.innerRef(element);
          }}
          {...provided.droppableProps}
          // Without handles to tab through, the column itself takes focus, so a keyboard scrolls it.
          {...(editable ? {} : { role: 'group', 'aria-label': SECTION_COPY.columnCards(name), tabIndex: 0 })}
          className={cn(
            'h-[calc(100dvh-22rem)] min-h-72 overflow-y-auto rounded-md px-1 pb-1 outline-none focus-visible:ring-2 focus-visible:ring-ring',
            snapshot.isDraggingOver && 'bg-accent/50',
          )}
        >
          <div
            style={{
              position: 'relative',
              height:
                virtualizer.getTotalSize() +
                (snapshot.isUsingPlaceholder ? ESTIMATED_CARD_PX + CARD_GAP_PX : 0),
            }}
          >
            {(deferred ? [] : virtualizer.getVirtualItems()).map((item) => {
              const task = tasks[item.index];
              return task ? (
                <BoardRow
                  key={task.id}
                  task={task}
                  index={item.index}
                  top={item.start}
                  editable={editable}
                  measure={virtualizer.measureElement}
                />
              ) : null;
            })}
          </div>
        </div>
      )}
    </Droppable>
  );
});

type ColumnProps = {
  group: SectionGroup;
  index: number;
  scope: TaskScope;
  editable: boolean;
  /** False while a filter is on: the cards shown are not the whole order. */
  movable: boolean;
  /** Its cards come after the first paint (firstColumns). */
  deferred: boolean;
};

/** One column: its name and count, its section's Rename and Delete, its cards and 'Add a task'. */
const BoardColumn = memo(function BoardColumn({
  group,
  index,
  scope,
  editable,
  movable,
  deferred,
}: ColumnProps) {
  const { section } = group;
  const name = section?.name ?? SECTION_COPY.noSection;
  return (
    <Draggable
      draggableId={`section:${section?.id ?? NONE}`}
      index={index}
      // 'No section' stays first; a viewer moves nothing.
      isDragDisabled={!movable || section === null}
    >
      {(provided, snapshot) => (
        <section
          ref={provided.innerRef}
          {...provided.draggableProps}
          aria-label={name}
          data-section-id={section?.id ?? NONE}
          className={cn(
            'flex w-72 shrink-0 flex-col gap-2 rounded-xl border bg-muted/40 p-2',
            snapshot.isDragging && 'shadow-xl ring-2 ring-ring/40',
          )}
        >
          <div className="flex min-h-8 items-center gap-1 px-1">
            {movable && section !== null && (
              // biome-ignore lint/a11y/useSemanticElements: the library will not start a drag from a <button>
              <div
                role="button"
                tabIndex={0}
                {...provided.dragHandleProps}
                aria-label={SECTION_COPY.moveColumn(name)}
                className="flex h-7 w-5 shrink-0 cursor-grab items-center justify-center rounded-md text-muted-foreground outline-none hover:bg-accent focus-visible:ring-2 focus-visible:ring-ring"
              >
                <GripVerticalIcon aria-hidden className="size-4" />
              </div>
            )}
            <h2 className="min-w-0 flex-1 truncate text-sm font-semibold">{name}</h2>
            <span className="text-xs text-muted-foreground tabular-nums">
              <span aria-hidden>{group.tasks.length}</span>
              <span className="sr-only">{SECTION_COPY.taskCount(group.tasks.length)}</span>
            </span>
            {editable && section !== null && <SectionActions section={section} />}
          </div>
          <ColumnCards group={group} name={name} editable={movable} deferred={deferred} />
          {editable && <AddCard scope={scope} section={section} />}
        </section>
      )}
    </Draggable>
  );
});

/**
 * The Board (issue 23): a column per section plus 'No section', cards dragged within and between
 * columns (mouse, touch, keyboard: the drag library of the list, in the screen's drag context),
 * columns reordered by drag. Each column is virtualized against its own scroll, so thousands of
 * cards cost only the ones on screen. At a phone's width the row of columns scrolls sideways in
 * its own region, never the page.
 */
export function Board({
  scope,
  projectId,
  editable,
}: {
  scope: TaskScope;
  projectId: number;
  editable: boolean;
}) {
  const { filter, filtered } = useTaskFilter();
  const { data: tasks, isPending, isError, refetch } = useActiveTasks(scope, filtered ? filter : undefined);
  const { sections, pending: sectionsPending } = useScopeSections(scope, tasks);
  const groups = useMemo(() => groupBySection(tasks ?? [], sections), [tasks, sections]);
  const moveTask = useMoveTaskToPlace(scope);
  const { move: moveSection } = useSectionActions(projectId);
  const movable = editable && !filtered;
  const [withCards, setWithCards] = useState(firstColumns);
  useEffect(() => {
    if (withCards < groups.length) startTransition(() => setWithCards(Number.POSITIVE_INFINITY));
  }, [withCards, groups.length]);

  const onDrop = useCallback(
    ({ type, draggableId, source, destination }: DropResult) => {
      if (!destination) return;
      if (type === COLUMN_TYPE) {
        // Index 0 is 'No section', which stays first.
        const to = Math.max(destination.index, 1) - 1;
        const from = source.index - 1;
        if (to === from) return;
        const rest = sections.filter((_, index) => index !== from);
        const afterId = to === 0 ? null : rest[to - 1]!.id;
        moveSection(sections[from]!.id, afterId).catch((error: unknown) =>
          errorToast(errorMessage(error, SECTION_COPY.columnMoveFailed)),
        );
        return;
      }
      if (destination.droppableId === source.droppableId && destination.index === source.index) return;
      const sectionId = sectionOfDroppable(destination.droppableId);
      const id = Number(draggableId);
      const column = groups.find((group) => (group.section?.id ?? null) === sectionId);
      const others = (column?.tasks ?? []).filter((task) => task.id !== id);
      const afterId = destination.index === 0 ? null : (others[destination.index - 1]?.id ?? null);
      moveTask(id, { sectionId, afterId }).catch((error: unknown) =>
        errorToast(errorMessage(error, SECTION_COPY.moveFailed)),
      );
    },
    [groups, sections, moveSection, moveTask],
  );
  useEffect(() => registerListDrop(onDrop), [onDrop]);

  if (isPending || sectionsPending) return <TaskSkeletons />;
  if (isError && !tasks) return <LoadError onRetry={() => void refetch()} />;

  return (
    <section
      aria-label={SECTION_COPY.board}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways takes focus, to scroll by keyboard
      tabIndex={0}
      // Positioned: what is placed absolutely inside (the counts' screen-reader words) scrolls with it.
      className="relative -mx-1 overflow-x-auto px-1 pb-2 outline-none focus-visible:ring-2 focus-visible:ring-ring"
    >
      <Droppable droppableId={COLUMNS_DROPPABLE} direction="horizontal" type={COLUMN_TYPE}>
        {(provided) => (
          <div ref={provided.innerRef} {...provided.droppableProps} className="flex w-max items-start gap-3">
            <ListProjectContext value={projectId}>
              {groups.map((group, index) => (
                <BoardColumn
                  key={group.section?.id ?? NONE}
                  group={group}
                  index={index}
                  scope={scope}
                  editable={editable}
                  movable={movable}
                  deferred={index >= withCards}
                />
              ))}
            </ListProjectContext>
            {provided.placeholder}
          </div>
        )}
      </Droppable>
    </section>
  );
}
