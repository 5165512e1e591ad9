import { useState } from 'react';
import type { Task, TaskSummary } from '../../common/tasks';
import { PRIORITIES, type Priority } from '../../common/tasks';
import type { TaskUpdates } from '../tasks/api';
import { errorToast } from '../ui/toasts';
import { useLabels } from './api';
import { LABEL_COPY, PRIORITY_TEXT } from './copy';
import { LabelChip } from './Tags';

/**
 * The expanded card's priority and labels (issue 23): a select and a checkbox per label of the
 * person's own, each saved as it changes. Other people's labels on the task stay (the server keeps
 * them); the card's row shows everyone's.
 */
export function TaskTagsEditor({
  task,
  update,
}: {
  task: TaskSummary;
  update(updates: TaskUpdates): Promise<Task>;
}) {
  const labels = useLabels().data ?? [];
  const [pendingPriority, setPendingPriority] = useState<number | null>(null);
  const [pendingLabels, setPendingLabels] = useState<number[] | null>(null);
  const mine = new Set(labels.map((label) => label.id));
  const checked = new Set(
    pendingLabels ?? task.labels.filter((label) => mine.has(label.id)).map((l) => l.id),
  );
  const save = (updates: TaskUpdates) =>
    update(updates)
      .catch(() => errorToast(LABEL_COPY.updateFailed))
      .finally(() => {
        setPendingPriority(null);
        setPendingLabels(null);
      });
  const toggle = (id: number, on: boolean) => {
    const next = new Set(checked);
    if (on) next.add(id);
    else next.delete(id);
    const labelIds = labels.filter((label) => next.has(label.id)).map((label) => label.id);
    setPendingLabels(labelIds);
    void save({ labelIds });
  };
  const idBase = `task-${task.id}-tags`;
  return (
    <div className="grid gap-3 sm:grid-cols-[auto_1fr] sm:items-start">
      <div className="grid gap-1">
        <label htmlFor={`${idBase}-priority`} className="text-xs font-medium text-muted-foreground">
          {LABEL_COPY.priority}
        </label>
        <select
          id={`${idBase}-priority`}
          name="priority"
          value={pendingPriority ?? task.priority}
          onChange={(event) => {
            const priority = Number(event.currentTarget.value) as Priority;
            setPendingPriority(priority);
            void save({ priority });
          }}
          className="h-9 rounded-md border border-input bg-background px-2 text-sm outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          {PRIORITIES.map((priority) => (
            <option key={priority} value={priority}>
              {PRIORITY_TEXT[priority].long}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="grid gap-1">
        <legend className="mb-1 text-xs font-medium text-muted-foreground">{LABEL_COPY.labels}</legend>
        {labels.length === 0 ? (
          <p className="text-sm text-muted-foreground">{LABEL_COPY.noLabelsYet}</p>
        ) : (
          <ul className="flex flex-wrap gap-2">
            {labels.map((label) => (
              <li key={label.id}>
                <label className="flex h-8 cursor-pointer items-center gap-1.5 rounded-md border px-2 text-sm has-focus-visible:ring-2 has-focus-visible:ring-ring">
                  <input
                    type="checkbox"
                    name="labelIds"
                    value={label.id}
                    checked={checked.has(label.id)}
                    onChange={(event) => toggle(label.id, event.currentTarget.checked)}
                    className="size-4 accent-primary outline-none"
                  />
                  <LabelChip label={label} />
                </label>
              </li>
            ))}
          </ul>
        )}
      </fieldset>
    </div>
  );
}
