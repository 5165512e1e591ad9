import type { DraggableProvided } from '@hello-pangea/dnd';
import { CheckIcon, ChevronDownIcon, ChevronRightIcon, GripVerticalIcon, Trash2Icon } from 'lucide-react';
import { type CSSProperties, type KeyboardEvent, memo, useCallback, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { COPY, ERRORS, TOASTS } from '../../common/spec';
import type { TaskSummary } from '../../common/tasks';
import { TaskAiPanel } from '../agents/TaskAiPanel';
import { ChecklistPanel } from '../checklist/ChecklistPanel';
import { TaskConversation } from '../comments/TaskConversation';
import { TaskTagsEditor } from '../labels/TaskTagsEditor';
import { cn } from '../lib/cn';
import { rescueFocus, rescueFocusAfterRender } from '../lib/focus';
import { shortcutFor } from '../lib/shortcuts';
import { useTaskPermissions } from '../projects/api';
import { DependenciesSection } from '../relations/DependenciesSection';
import { Button } from '../ui/button';
import { Skeleton } from '../ui/skeleton';
import { errorToast, successToast } from '../ui/toasts';
import { useCompleteTask, useDeleteTask, useTaskDetails, useUpdateTask } from './api';
import { CardTooltip } from './CardTooltip';
import { ADD_TASK_BUTTON_ID, focusAfterRemoval } from './card-focus';
import { celebrate } from './confetti';
import { formatDueDate } from './dates';
import { setExpanded as storeExpanded, useExpanded } from './list-state';
import { NotesBox, useNotesDraft } from './NotesBox';
import { AddSubtask } from './SubtaskAdd';
import { indentOf, listTreeKeys, SUBTASK_COPY, setSubtasksCollapsed } from './subtasks';
import { TaskDescription, TaskSchedule, TaskTitle } from './TaskEditors';
import { TaskMeta } from './TaskMeta';
import { TaskReminders } from './TaskReminders';
import { useCardCollapse } from './useCardCollapse';

const addTaskButton = () => document.getElementById(ADD_TASK_BUTTON_ID);

/** The toast of a completed occurrence of a recurring task (issue 22). */
const nextOccurrenceToast = (dueDate: string | null) =>
  dueDate ? `Completed. Next: ${formatDueDate(dueDate)}` : 'Completed.';

type TaskCardProps = {
  task: TaskSummary;
  provided: DraggableProvided;
  isDragging: boolean;
  /** Dropped on a project in the sidebar (issue 21): no drop animation back into the list. */
  leaving?: boolean;
  /** False while the list is filtered: no drag handle then (issue 13). */
  reorderable?: boolean;
  /** Where the virtualized list puts the card. */
  placement?: CardPlacement;
  /** Issue 29: how many sub-tasks the list shows under the card, and whether they are hidden. */
  subtaskCount?: number;
  subtasksCollapsed?: boolean;
  /** A dragged card is over this one's middle: dropped, it becomes a sub-task of this one. */
  nestTarget?: boolean;
};

/** A card's place in the virtualized list: its index, its offset from the list's top, its measurer. */
export type CardPlacement = {
  index: number;
  top: number;
  measure: (element: Element | null) => void;
  /** How deep the card is in the tree of sub-tasks (issue 29): 0 top-level. */
  depth?: number;
};

/**
 * One active task (spec §2 'Task card'). Memoized: in a long list only the card whose task changed
 * re-renders, because unchanged tasks keep their identity in the query cache.
 */
export const TaskCard = memo(function TaskCard({
  task,
  provided,
  isDragging,
  leaving = false,
  reorderable = true,
  placement,
  subtaskCount = 0,
  subtasksCollapsed = false,
  nestTarget = false,
}: TaskCardProps) {
  // Issues 21 and 28: what the caller's role lets them do decides which controls the card shows; a
  // viewer or commenter (or an archived project) gets none that changes the task.
  const can = useTaskPermissions(task.projectId);
  const editable = can.change;
  // Kept outside the card: the list keeps expanded cards mounted, and a drag's clone shows the same.
  const expanded = useExpanded(task.id);
  const setExpanded = useCallback((open: boolean) => storeExpanded(task.id, open), [task.id]);
  // Set while completing or reopening: the card shows the new state until the server has answered.
  const [pendingDone, setPendingDone] = useState<boolean | null>(null);
  const done = pendingDone ?? task.completed;
  const cardRef = useRef<HTMLElement | null>(null);
  const toggleRef = useRef<HTMLInputElement>(null);
  const deleteRef = useRef<HTMLButtonElement>(null);
  const notesRef = useRef<HTMLTextAreaElement>(null);
  const { mutateAsync: update } = useUpdateTask(task.id);
  const remove = useDeleteTask(task.id);
  const complete = useCompleteTask(task.id);
  // The list has no notes or AI draft (issue 15): an expanded card reads the task in full.
  const details = useTaskDetails(task.id, expanded).data;
  const notes = useNotesDraft(details, update);
  const { save: saveNotes } = notes;

  // Spec §4: collapsing saves notes that were edited.
  const collapse = useCallback(() => {
    saveNotes();
    setExpanded(false);
  }, [saveNotes, setExpanded]);
  const pointer = useCardCollapse(cardRef, expanded, collapse);

  const toggleDone = async () => {
    const completing = !done;
    const refocus = focusAfterRemoval(cardRef.current, addTaskButton);
    setPendingDone(completing);
    let result: Awaited<ReturnType<typeof update>>;
    // Issue 29: a completed sub-task stays under its parent, struck through, not in the archive.
    const subtask = task.parentId !== null;
    try {
      // Spec §4: completing archives; reopening brings it back to the active list. Issue 22: a
      // recurring task completed moves on to its next date and stays.
      result = await update(
        subtask ? { completed: completing } : { completed: completing, archived: completing },
      );
    } catch {
      flushSync(() => setPendingDone(null));
      rescueFocus(toggleRef.current);
      errorToast(ERRORS.updateStatus);
      return;
    }
    setPendingDone(null);
    if (completing && subtask && result.completed) {
      void celebrate();
      successToast(TOASTS.taskCompleted);
      // Behind its parent's '3 done' unless that is open: then focus goes on as for a card leaving.
      requestAnimationFrame(() => {
        if (cardRef.current?.isConnected) rescueFocus(toggleRef.current);
        else refocus();
      });
    } else if (completing && !result.archived) {
      void celebrate();
      successToast(nextOccurrenceToast(result.dueDate));
      rescueFocus(toggleRef.current);
    } else if (completing) {
      refocus();
      collapse();
      void celebrate();
      successToast(TOASTS.taskCompleted);
    } else {
      successToast(TOASTS.taskReopened);
    }
  };

  /** 'Complete forever' (issue 22): ends a recurring task's series and archives it. */
  const completeForever = async () => {
    const refocus = focusAfterRemoval(cardRef.current, addTaskButton);
    try {
      await complete.mutateAsync(true);
    } catch {
      errorToast(ERRORS.updateStatus);
      return;
    }
    refocus();
    collapse();
    void celebrate();
    successToast(TOASTS.taskCompleted);
  };

  const deleteTask = async () => {
    const refocus = focusAfterRemoval(cardRef.current, addTaskButton);
    try {
      await remove.mutateAsync();
    } catch {
      rescueFocusAfterRender(() => deleteRef.current);
      errorToast(ERRORS.deleteTask);
      return;
    }
    refocus();
    successToast(TOASTS.taskDeleted);
  };

  // Issue 13: the keys for the focused card (the card itself, not a control in it) are in lib/shortcuts.
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.target !== event.currentTarget) return;
    const shortcut = shortcutFor(event.nativeEvent);
    if (shortcut === 'expand') {
      if (expanded) collapse();
      else setExpanded(true);
    } else if (shortcut === 'edit-title' && editable) {
      cardRef.current?.querySelector<HTMLButtonElement>('h2 > button')?.click();
    } else if (shortcut === 'complete' && editable) {
      if (!done && pendingDone === null) void toggleDone();
    } else if (shortcut === 'delete' && editable) {
      if (!remove.isPending) void deleteTask();
    } else if ((shortcut === 'nest' || shortcut === 'unnest') && editable && listTreeKeys()) {
      // Issue 29: under the card above, or out a level; the list does it and says so.
      if (shortcut === 'nest') listTreeKeys()?.nest(task.id);
      else listTreeKeys()?.unnest(task.id);
    } else {
      return;
    }
    event.preventDefault();
    // Handled here: the app-wide listener must not act on the same key.
    event.stopPropagation();
  };

  const setRefs = (element: HTMLElement | null) => {
    cardRef.current = element;
    provided.innerRef(element);
    placement?.measure(element);
  };
  // The library's style (a transform while other cards make room) over the list's placement.
  const dragStyle = leaving
    ? // The library's own way to skip its drop animation.
      { ...provided.draggableProps.style, opacity: 0, transitionDuration: '0.001s' }
    : provided.draggableProps.style;
  const style: CSSProperties | undefined = placement
    ? {
        position: 'absolute',
        top: placement.top,
        left: 0,
        right: 0,
        // Issue 29: a sub-task under its parent, in logical CSS (right-to-left indents from the right).
        marginInlineStart: indentOf(placement.depth ?? 0),
        ...dragStyle,
      }
    : dragStyle;
  const depth = placement?.depth ?? 0;
  // A completed sub-task shows under its parent, struck through (not faded: its text keeps contrast).
  const completedSubtask = task.completed && task.parentId !== null && pendingDone === null;

  return (
    <article
      ref={setRefs}
      {...provided.draggableProps}
      style={style}
      data-index={placement?.index}
      onPointerEnter={pointer.onPointerEnter}
      onPointerLeave={pointer.onPointerLeave}
      onKeyDown={onKeyDown}
      aria-label={task.title}
      // Focusable by script only: focus lands on the next card when one leaves the list.
      tabIndex={-1}
      data-task-id={task.id}
      className={cn(
        'group mb-3 rounded-xl outline-none focus-visible:ring-2 focus-visible:ring-ring border bg-card text-card-foreground shadow-xs transition-[box-shadow,opacity,border-color] hover:border-ring/40 hover:shadow-md dark:shadow-none',
        expanded && 'border-ring/40 shadow-md',
        isDragging && 'shadow-xl ring-2 ring-ring/40',
        nestTarget && 'border-primary ring-2 ring-primary/50',
        done && !completedSubtask && 'opacity-60',
        completedSubtask && 'bg-muted/40 shadow-none',
      )}
    >
      <div className="flex items-start gap-2 p-3 sm:gap-3 sm:p-4">
        {subtaskCount > 0 && (
          <button
            type="button"
            aria-expanded={!subtasksCollapsed}
            aria-label={
              subtasksCollapsed ? SUBTASK_COPY.expand(task.title) : SUBTASK_COPY.collapse(task.title)
            }
            onClick={() => setSubtasksCollapsed(task.id, !subtasksCollapsed)}
            className="-ms-1 flex size-7 shrink-0 items-center justify-center rounded-md text-muted-foreground outline-none hover:bg-accent hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring"
          >
            <ChevronRightIcon
              aria-hidden
              className={cn(
                'size-4 transition-transform rtl:-scale-x-100',
                !subtasksCollapsed && 'rotate-90',
              )}
            />
          </button>
        )}
        {reorderable && editable ? (
          // biome-ignore lint/a11y/useSemanticElements: the library will not start a drag from a <button>
          <div
            role="button"
            tabIndex={0}
            {...provided.dragHandleProps}
            aria-label="Drag to reorder"
            className="-ml-1 flex h-7 w-5 shrink-0 cursor-grab items-center justify-center rounded-md text-muted-foreground/60 outline-none transition-colors group-hover:text-muted-foreground hover:bg-accent focus-visible:ring-2 focus-visible:ring-ring active:cursor-grabbing sm:w-6"
          >
            <GripVerticalIcon aria-hidden className="size-4" />
          </div>
        ) : (
          <span aria-hidden className="-ml-1 w-5 shrink-0 sm:w-6" />
        )}
        <span className="relative mt-1 flex size-5 shrink-0">
          {editable ? (
            <input
              ref={toggleRef}
              type="checkbox"
              name="completed"
              checked={done}
              aria-label={done ? 'Mark as incomplete' : 'Mark as complete'}
              disabled={pendingDone !== null}
              onChange={() => void toggleDone()}
              className="peer size-5 cursor-pointer appearance-none rounded-full border-2 border-muted-foreground/40 outline-none transition-colors checked:border-primary checked:bg-primary hover:border-primary focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 focus-visible:ring-offset-card disabled:cursor-default"
            />
          ) : (
            <span
              aria-hidden
              className="size-5 rounded-full border-2 border-dashed border-muted-foreground/40"
            />
          )}
          {done && (
            <CheckIcon
              aria-hidden
              strokeWidth={3}
              className="pointer-events-none absolute inset-0 m-auto size-3.5 text-primary-foreground"
            />
          )}
        </span>
        <div className="grid min-w-0 flex-1 gap-1">
          <TaskTitle task={task} update={update} done={done} readOnly={!editable} />
          <TaskDescription task={task} update={update} done={done} clamped={!expanded} readOnly={!editable} />
          <TaskMeta task={task} urgent readOnly={!editable} parentLink={depth === 0} />
        </div>
        <div className="-mr-1 flex shrink-0 items-center">
          {editable && (
            <CardTooltip content={COPY.deleteTask}>
              <Button
                ref={deleteRef}
                variant="ghost"
                size="icon"
                aria-label={COPY.deleteTask}
                disabled={remove.isPending}
                onClick={() => void deleteTask()}
                className="size-8 text-muted-foreground/70 group-hover:text-muted-foreground hover:bg-destructive/10 hover:text-destructive"
              >
                <Trash2Icon aria-hidden />
              </Button>
            </CardTooltip>
          )}
          <Button
            variant="ghost"
            size="icon"
            aria-expanded={expanded}
            aria-label={expanded ? 'Collapse task' : 'Expand task'}
            onClick={() => (expanded ? collapse() : setExpanded(true))}
            className="size-8 text-muted-foreground/70 group-hover:text-muted-foreground"
          >
            <ChevronDownIcon aria-hidden className={cn('transition-transform', expanded && 'rotate-180')} />
          </Button>
        </div>
      </div>
      {expanded && (
        <div className="grid gap-4 border-t px-4 pt-4 pb-4 sm:pl-[4.75rem]">
          {editable && (
            <TaskSchedule
              task={task}
              update={update}
              completing={complete.isPending}
              onCompleteForever={() => void completeForever()}
            />
          )}
          {editable && <TaskTagsEditor task={task} update={update} />}
          <ChecklistPanel taskId={task.id} can={can} />
          {editable && <AddSubtask task={task} />}
          <DependenciesSection task={task} can={can} />
          {editable && <TaskReminders task={task} />}
          {details ? (
            <>
              <TaskAiPanel
                task={details}
                editable={editable}
                onMovedToNotes={() => rescueFocus(notesRef.current)}
              />
              <NotesBox notes={notes} textareaRef={notesRef} editable={editable} />
            </>
          ) : (
            <div aria-hidden className="grid gap-3">
              <Skeleton className="h-9 w-64" />
              <Skeleton className="h-24" />
            </div>
          )}
          <TaskConversation task={task} can={can} />
        </div>
      )}
    </article>
  );
});
