import { DragDropContext, Draggable, Droppable, type DropResult } from '@hello-pangea/dnd';
import { ListTodoIcon } from 'lucide-react';
import { memo, startTransition, useCallback, useEffect, useState } from 'react';
import { COPY, ERRORS, LIMITS } from '../../common/spec';
import type { Task } from '../../common/tasks';
import { errorToast } from '../ui/toasts';
import { useActiveTasks, useReorderTasks } from './api';
import { EmptyState, LoadError, NoMatches } from './EmptyState';
import { useTaskFilter } from './filters';
import { TaskCard } from './TaskCard';
import { TaskSkeletons } from './TaskSkeleton';

type RowProps = { task: Task; index: number; reorderable: boolean };

const TaskRow = memo(function TaskRow({ task, index, reorderable }: RowProps) {
  return (
    <Draggable draggableId={String(task.id)} index={index} isDragDisabled={!reorderable}>
      {(provided, snapshot) => (
        <TaskCard
          task={task}
          provided={provided}
          isDragging={snapshot.isDragging}
          reorderable={reorderable}
        />
      )}
    </Draggable>
  );
});

/** Enough cards to fill a tall screen; they paint at once and the rest follow without blocking input. */
const FIRST_ROWS = 30;

/**
 * Kept apart so a drag, which re-renders the droppable, does not re-render every row (library advice).
 * A long list mounts in two steps, so a thousand tasks do not hold back the first paint.
 */
const TaskRows = memo(function TaskRows({ tasks, reorderable }: { tasks: Task[]; reorderable: boolean }) {
  const [limit, setLimit] = useState(FIRST_ROWS);
  useEffect(() => {
    if (tasks.length > limit) startTransition(() => setLimit(Number.POSITIVE_INFINITY));
  }, [tasks.length, limit]);
  const shown = tasks.length > limit ? tasks.slice(0, limit) : tasks;
  return shown.map((task, index) => (
    <TaskRow key={task.id} task={task} index={index} reorderable={reorderable} />
  ));
});

/**
 * The active list (spec §2), ordered by drag and drop. The library's defaults are the spec's constants:
 * 120 ms long press, 5 px threshold, auto-scroll and drop animation; Space, arrows and Space drag by keyboard.
 */
export function TaskList() {
  const { filter, filtered, setFilter } = useTaskFilter();
  // While a filter is on, the list shows only some tasks: their order is not the list's to change.
  const { data: tasks, isPending, isError, refetch } = useActiveTasks(filtered ? filter : undefined);
  const reorder = useReorderTasks();

  const onDragEnd = useCallback(
    ({ source, destination }: DropResult) => {
      if (!tasks || !destination || destination.index === source.index) return;
      const ordered = [...tasks];
      const [moved] = ordered.splice(source.index, 1);
      ordered.splice(destination.index, 0, moved!);
      reorder(ordered).catch(() => errorToast(ERRORS.reorder));
    },
    [tasks, reorder],
  );

  if (isPending) return <TaskSkeletons />;
  // A failed refetch keeps the list on screen; only a list that never loaded shows the error.
  if (isError && !tasks) return <LoadError onRetry={() => void refetch()} />;

  return (
    <DragDropContext onDragEnd={onDragEnd}>
      <Droppable droppableId="active-tasks">
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
            {provided.placeholder}
          </div>
        )}
      </Droppable>
    </DragDropContext>
  );
}
