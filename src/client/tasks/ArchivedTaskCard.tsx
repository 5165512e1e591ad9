import { useQueryClient } from '@tanstack/react-query';
import { CircleCheckIcon, RotateCcwIcon } from 'lucide-react';
import { memo, useCallback, useRef } from 'react';
import { COPY, ERRORS, TOASTS } from '../../common/spec';
import type { Task } from '../../common/tasks';
import { rescueFocusAfterRender } from '../lib/focus';
import { useTaskPermissions } from '../projects/api';
import { Badge } from '../ui/badge';
import { Button } from '../ui/button';
import { errorToast, successToast } from '../ui/toasts';
import { useUpdateTask } from './api';
import { focusAfterRemoval } from './card-focus';
import { showRestored } from './optimistic';
import { TaskMeta } from './TaskMeta';

/**
 * An archived task (spec §2): Completed badge, crossed-out text, read-only notes and a restore button.
 * Placed by the virtualized archive at `top`, its height measured as it renders.
 */
export const ArchivedTaskCard = memo(function ArchivedTaskCard({
  task,
  index,
  top,
  measure,
}: {
  task: Task;
  index: number;
  top: number;
  measure: (element: Element | null) => void;
}) {
  const update = useUpdateTask(task.id);
  const queryClient = useQueryClient();
  // Issue 21: restoring is changing the task, which a viewer or commenter may not do.
  const editable = useTaskPermissions(task.projectId).change;
  const cardRef = useRef<HTMLElement>(null);
  const restoreRef = useRef<HTMLButtonElement>(null);

  const restore = async () => {
    // With no archived task left, focus goes to the screen's heading.
    const refocus = focusAfterRemoval(cardRef.current, () => document.querySelector<HTMLElement>('main h1'));
    try {
      const restored = await update.mutateAsync({ completed: false, archived: false });
      // Issue 31: offline, it leaves the archive and joins its list at once (online, the refetch does).
      showRestored(queryClient, restored);
    } catch {
      rescueFocusAfterRender(() => restoreRef.current);
      errorToast(ERRORS.restore, ERRORS.restoreTitle);
      return;
    }
    refocus();
    successToast(TOASTS.taskRestored);
  };

  const setRefs = useCallback(
    (element: HTMLElement | null) => {
      cardRef.current = element;
      measure(element);
    },
    [measure],
  );

  return (
    <article
      ref={setRefs}
      style={{ position: 'absolute', top, left: 0, width: '100%' }}
      data-index={index}
      aria-label={task.title}
      tabIndex={-1}
      data-task-id={task.id}
      className="flex items-start gap-3 rounded-xl border bg-card p-4 outline-none focus-visible:ring-2 focus-visible:ring-ring text-card-foreground shadow-xs dark:shadow-none"
    >
      <CircleCheckIcon aria-hidden className="mt-0.5 size-5 shrink-0 text-primary dark:text-ring" />
      <div className="grid min-w-0 flex-1 gap-1.5">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <h2 className="min-w-0 break-words font-medium text-muted-foreground line-through">{task.title}</h2>
          <Badge variant="secondary">{COPY.completed}</Badge>
        </div>
        {task.description && (
          <p className="text-sm break-words whitespace-pre-wrap text-muted-foreground line-through">
            {task.description}
          </p>
        )}
        {task.notes && (
          <section aria-label="Notes" className="mt-1 rounded-lg bg-muted/70 px-3 py-2 text-sm">
            <p className="mb-1 text-xs font-medium text-muted-foreground">Notes</p>
            <p className="break-words whitespace-pre-wrap">{task.notes}</p>
          </section>
        )}
        <TaskMeta task={task} readOnly={!editable} />
      </div>
      {editable && (
        <Button
          ref={restoreRef}
          variant="outline"
          size="sm"
          aria-label="Restore task"
          disabled={update.isPending}
          onClick={() => void restore()}
        >
          <RotateCcwIcon aria-hidden />
          <span className="hidden sm:inline">Restore</span>
        </Button>
      )}
    </article>
  );
});
