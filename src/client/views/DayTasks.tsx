import { Draggable, Droppable, type DropResult } from '@hello-pangea/dnd';
import { useCallback, useEffect } from 'react';
import { dueDayIn } from '../../common/due';
import type { TaskSummary } from '../../common/tasks';
import { cn } from '../lib/cn';
import { dropTarget, registerListDrop } from '../tasks/drag';
import { TaskCard } from '../tasks/TaskCard';
import { useReschedule } from './api';
import { compareToday } from './order';

/** The droppable of a day (Upcoming, the calendar): a drop there moves the task to that day. */
export const DAY_DROPPABLE = 'day:';
export const dayDroppableId = (day: string) => `${DAY_DROPPABLE}${day}`;
/** The day a droppable stands for, or null for another droppable. */
export const dayOfDroppable = (id: string | undefined): string | null =>
  id?.startsWith(DAY_DROPPABLE) ? id.slice(DAY_DROPPABLE.length) : null;

/** The tasks by the day they fall on in `zone`, each day in Today's order. */
export function tasksByDay(tasks: readonly TaskSummary[], zone: string): Map<string, TaskSummary[]> {
  const byDay = new Map<string, TaskSummary[]>();
  for (const task of [...tasks].sort(compareToday(zone))) {
    const day = dueDayIn(task, zone);
    if (!day) continue;
    const list = byDay.get(day);
    if (list) list.push(task);
    else byDay.set(day, [task]);
  }
  return byDay;
}

/** A drop on another day's droppable reschedules the card's task to that day. */
export function useDayDrop(byDay: Map<string, TaskSummary[]>) {
  const reschedule = useReschedule();
  const onDrop = useCallback(
    ({ source, destination, draggableId }: DropResult) => {
      const from = dayOfDroppable(source.droppableId);
      const to = dayOfDroppable(destination?.droppableId);
      const task = from === null ? undefined : byDay.get(from)?.find((t) => t.id === Number(draggableId));
      if (task && from !== null && to !== null && from !== to) void reschedule(task, from, to);
    },
    [byDay, reschedule],
  );
  useEffect(() => registerListDrop(onDrop), [onDrop]);
}

type DayTasksProps = {
  droppableId: string;
  tasks: TaskSummary[];
  /** Cards can be dragged to another day (Upcoming); Today's groups only list them. */
  draggable: boolean;
};

/**
 * A group of task cards (issue 23): the list's own card, in a droppable of the screen's drag
 * context (TaskDragContext), so a card can go to another day here or to a project in the sidebar.
 */
export function DayTasks({ droppableId, tasks, draggable }: DayTasksProps) {
  return (
    <Droppable droppableId={droppableId} isDropDisabled={!draggable}>
      {(provided, snapshot) => (
        <div
          ref={provided.innerRef}
          {...provided.droppableProps}
          className={cn(
            'rounded-xl transition-colors',
            draggable && 'min-h-8',
            snapshot.isDraggingOver && 'bg-accent/60',
          )}
        >
          {tasks.map((task, index) => (
            <Draggable key={task.id} draggableId={String(task.id)} index={index} isDragDisabled={!draggable}>
              {(dragProvided, dragSnapshot) => (
                <TaskCard
                  task={task}
                  provided={dragProvided}
                  isDragging={dragSnapshot.isDragging}
                  leaving={dragSnapshot.isDropAnimating && dropTarget() !== null}
                  reorderable={draggable}
                />
              )}
            </Draggable>
          ))}
          {provided.placeholder}
        </div>
      )}
    </Droppable>
  );
}
