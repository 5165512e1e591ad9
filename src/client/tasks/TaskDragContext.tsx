import { DragDropContext, type DropResult } from '@hello-pangea/dnd';
import { type ReactNode, useCallback } from 'react';
import { useProjects } from '../projects/api';
import { projectName } from '../projects/names';
import { dropInList, setLifted, setPointerDrag, startDragTracking, stopDragTracking } from './drag';
import { activeList } from './list-state';
import { useMoveTask } from './move-to-project';

/**
 * The drag-and-drop context of the signed-in screens, around the list and the sidebar, so a card
 * can be dropped on a project in the sidebar (issue 21; the project under the pointer, ./drag). A
 * drop anywhere else is the list's to handle (a reorder).
 */
export function TaskDragContext({ children }: { children: ReactNode }) {
  const move = useMoveTask();
  const { data: projects } = useProjects();
  const onDragEnd = useCallback(
    (result: DropResult) => {
      const projectId = stopDragTracking();
      setLifted(null);
      setPointerDrag(false);
      // Only a card goes to a project; a board's column (issue 23) is a type of its own.
      const project =
        result.type === 'DEFAULT' ? projects?.find((candidate) => candidate.id === projectId) : undefined;
      if (project) void move(Number(result.draggableId), { id: project.id, name: projectName(project) });
      else dropInList(result);
      activeList()?.thaw();
    },
    [projects, move],
  );
  return (
    <DragDropContext
      onBeforeCapture={({ draggableId }) => {
        // A card's id is its task's; a board column's is not a number.
        setLifted(/^\d+$/.test(draggableId) ? Number(draggableId) : null);
        activeList()?.freeze();
      }}
      onDragStart={(start) => {
        startDragTracking();
        // Issue 29: a mouse's or a finger's drag may nest the card by dropping it onto another.
        setPointerDrag(start.mode === 'FLUID');
      }}
      onDragEnd={onDragEnd}
    >
      {children}
    </DragDropContext>
  );
}
