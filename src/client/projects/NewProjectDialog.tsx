import { zodResolver } from '@hookform/resolvers/zod';
import { useRef } from 'react';
import { useController, useForm } from 'react-hook-form';
import { useLocation } from 'wouter';
import {
  type CreateProjectBody,
  createProjectBodySchema,
  DEFAULT_PROJECT_COLOR,
} from '../../common/projects';
import { focusScreenHeading, projectHref } from '../app/screens';
import { errorMessage } from '../lib/api';
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
import { successToast } from '../ui/toasts';
import { useSubmitError } from '../ui/use-submit-error';
import { useCreateProject } from './api';
import { ColorPicker } from './ColorPicker';
import { PROJECT_COPY } from './copy';

const EMPTY = { name: '', color: DEFAULT_PROJECT_COLOR } satisfies CreateProjectBody;

/** 'New project' (issue 21): a name and a colour; the new project's screen opens. */
export function NewProjectDialog({ open, onOpenChange }: ControlledDialogProps) {
  const [, navigate] = useLocation();
  const create = useCreateProject();
  const failure = useSubmitError({ inlineOnly: true });
  // Created: focus goes to the new screen's heading, not back to what opened the dialog.
  const created = useRef(false);
  const {
    register,
    control,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(createProjectBodySchema), defaultValues: EMPTY });
  const { field: color } = useController({ control, name: 'color' });

  const handleOpenChange = (next: boolean) => {
    if (!next) {
      reset(EMPTY);
      failure.clear();
    }
    onOpenChange(next);
  };

  const onSubmit = handleSubmit(async (body) => {
    failure.clear();
    try {
      const project = await create.mutateAsync(body);
      created.current = true;
      navigate(projectHref(project.id));
      successToast(PROJECT_COPY.projectCreated);
      handleOpenChange(false);
    } catch (error) {
      failure.report(errorMessage(error, PROJECT_COPY.createFailed));
    }
  });

  return (
    <Dialog open={open} onOpenChange={handleOpenChange}>
      <DialogContent
        className="sm:max-w-md"
        onCloseAutoFocus={(event) => {
          if (!created.current) return;
          created.current = false;
          event.preventDefault();
          focusScreenHeading();
        }}
      >
        <DialogHeader>
          <DialogTitle>{PROJECT_COPY.newProject}</DialogTitle>
          <DialogDescription>A list of its own, to share with others.</DialogDescription>
        </DialogHeader>
        <form onSubmit={onSubmit} noValidate className="grid gap-4">
          <FormAlert>{failure.error}</FormAlert>
          <FormField label={PROJECT_COPY.name} error={errors.name?.message}>
            <Input autoComplete="off" {...register('name')} />
          </FormField>
          <ColorPicker name="color" value={color.value ?? DEFAULT_PROJECT_COLOR} onChange={color.onChange} />
          <DialogFooter className="pt-2">
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <SubmitButton pending={isSubmitting}>{PROJECT_COPY.createProject}</SubmitButton>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
