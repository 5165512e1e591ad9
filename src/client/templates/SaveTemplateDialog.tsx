import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import type { Project } from '../../common/projects';
import { applyTemplateBodySchema } from '../../common/templates';
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
import { useSaveTemplate } from './api';
import { TEMPLATE_COPY } from './copy';

/** The name is all the form asks: required, at most a project name's length. */
const nameFormSchema = applyTemplateBodySchema.pick({ name: true });

/**
 * 'Save as template' (issue 29), from a project's header: a name, the project's by default. The
 * template is the caller's own; a toast confirms it and focus goes back to the button.
 */
export function SaveTemplateDialog({
  project,
  open,
  onOpenChange,
}: ControlledDialogProps & { project: Pick<Project, 'id' | 'name'> }) {
  const save = useSaveTemplate(project.id);
  const failure = useSubmitError({ inlineOnly: true });
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(nameFormSchema), defaultValues: { name: project.name } });
  // Each opening starts from the project's name as it is now (it may have been renamed since).
  useEffect(() => {
    if (open) reset({ name: project.name });
  }, [open, project.name, reset]);

  const handleOpenChange = (next: boolean) => {
    if (!next) failure.clear();
    onOpenChange(next);
  };

  const onSubmit = handleSubmit(async (body) => {
    failure.clear();
    try {
      const template = await save.mutateAsync(body);
      successToast([TEMPLATE_COPY.saved, TEMPLATE_COPY.savedDescription(template.name)]);
      handleOpenChange(false);
    } catch (error) {
      failure.report(errorMessage(error, TEMPLATE_COPY.saveFailed));
    }
  });

  return (
    <Dialog open={open} onOpenChange={handleOpenChange}>
      <DialogContent className="sm:max-w-md">
        <DialogHeader>
          <DialogTitle>{TEMPLATE_COPY.saveAsTemplate}</DialogTitle>
          <DialogDescription>{TEMPLATE_COPY.saveDescription(project.name)}</DialogDescription>
        </DialogHeader>
        <form onSubmit={onSubmit} noValidate className="grid gap-4">
          <FormAlert>{failure.error}</FormAlert>
          <FormField label={TEMPLATE_COPY.templateName} error={errors.name?.message}>
            <Input autoComplete="off" {...register('name')} />
          </FormField>
          <DialogFooter className="pt-2">
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <SubmitButton pending={isSubmitting}>{TEMPLATE_COPY.saveTemplate}</SubmitButton>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
