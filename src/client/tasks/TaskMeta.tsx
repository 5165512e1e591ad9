import { CalendarIcon } from 'lucide-react';
import type { Task } from '../../common/tasks';
import { TaskFilesControl } from '../files/TaskFilesControl';
import { Badge } from '../ui/badge';
import { formatDueDate } from './dates';

/** The row under a task's title, on active and archived cards alike: due date, then files. */
export function TaskMeta({ task }: { task: Task }) {
  return (
    <div className="flex flex-wrap items-center gap-2 pt-1 empty:hidden">
      {task.dueDate && (
        <Badge variant="outline" className="font-normal text-muted-foreground">
          <CalendarIcon aria-hidden />
          <span className="sr-only">Due </span>
          {formatDueDate(task.dueDate)}
        </Badge>
      )}
      <TaskFilesControl taskId={task.id} />
    </div>
  );
}
