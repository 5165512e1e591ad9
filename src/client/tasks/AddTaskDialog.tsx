import { zodResolver } from '@hookform/resolvers/zod';
import { useController, useForm } from 'react-hook-form';
import { COPY, ERRORS, TOASTS } from '../../common/spec';
import { type CreateTaskBody, createTaskBodySchema, type Task } from '../../common/tasks';
import { AgentSelect } from '../agents/AgentSelect';
import { useTaskAttachments } from '../files/useTaskAttachments';
import { Button } from '../ui/button';
import {
  type ControlledDialogProps,
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { Textarea } from '../ui/textarea';
import { successToast } from '../ui/toasts';
import { useSubmitError } from '../ui/use-submit-error';
import { INBOX_SCOPE, type TaskScope, useCreateTask } from './api';
import { isTempTaskId } from './optimistic';

const EMPTY: CreateTaskBody = { title: '', description: '', dueDate: '', contextId: null };

/**
 * The Add New Task dialog (spec §2): creates the task, in the Inbox or the project of `scope`
 * (issue 21), then uploads the chosen files to it.
 */
export function AddTaskDialog({
  open,
  onOpenChange,
  scope = INBOX_SCOPE,
}: ControlledDialogProps & { scope?: TaskScope }) {
  const {
    register,
    control,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm({
    // The route's own schema (spec §5: only the title is required), so form and server agree.
    resolver: zodResolver(createTaskBodySchema),
    defaultValues: EMPTY,
  });
  // A plain field, not <Controller>, so the label's id reaches the picker through FormField.
  const { field: agent } = useController({ control, name: 'contextId' });
  const create = useCreateTask(scope);
  const attachments = useTaskAttachments();
  const failure = useSubmitError();

  const handleOpenChange = (next: boolean) => {
    // The files are still going up to the new task; closing now would hide their progress.
    if (!next && attachments.isUploading) return;
    if (!next) {
      reset(EMPTY);
      attachments.reset();
      failure.clear();
    }
    onOpenChange(next);
  };

  const onSubmit = handleSubmit(async ({ title, description, dueDate, contextId }) => {
    failure.clear();
    let task: Task;
    try {
      task = await create.mutateAsync({ title, description, dueDate, contextId });
    } catch {
      // The form keeps what was typed, so trying again is one click.
      failure.report(ERRORS.createTask);
      return;
    }
    // A failed upload has its own toast (from the attachments hook); the task exists either way.
    // Issue 31: a task kept offline has no files (uploads need a connection, and its field says so).
    if (isTempTaskId(task.id) || (await attachments.uploadFor(task.id))) successToast(TOASTS.taskCreated);
    reset(EMPTY);
    attachments.reset();
    onOpenChange(false);
  });

  const busy = isSubmitting || attachments.isUploading;

  return (
    <Dialog open={open} onOpenChange={handleOpenChange}>
      <DialogContent className="sm:max-w-lg">
        <DialogHeader>
          <DialogTitle>{COPY.addNewTask}</DialogTitle>
          <DialogDescription>Give it a title; everything else is optional.</DialogDescription>
        </DialogHeader>
        <form onSubmit={onSubmit} noValidate className="grid gap-4">
          <FormAlert>{failure.error}</FormAlert>
          <FormField label="Title" error={errors.title?.message}>
            <Input autoComplete="off" {...register('title')} />
          </FormField>
          <FormField label="Description">
            <Textarea rows={3} {...register('description')} />
          </FormField>
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField label="Due Date">
              <Input type="date" {...register('dueDate')} />
            </FormField>
            <FormField label="Agent">
              <AgentSelect
                value={typeof agent.value === 'number' ? agent.value : null}
                onChange={agent.onChange}
              />
            </FormField>
          </div>
          {attachments.field}
          <DialogFooter className="pt-2">
            <DialogClose asChild>
              <Button variant="outline" disabled={attachments.isUploading}>
                Cancel
              </Button>
            </DialogClose>
            <SubmitButton pending={busy}>{COPY.addTask}</SubmitButton>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
