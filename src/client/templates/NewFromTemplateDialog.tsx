import { zodResolver } from '@hookform/resolvers/zod';
import { Trash2Icon } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { useController, useForm } from 'react-hook-form';
import { useLocation } from 'wouter';
import { z } from 'zod';
import { applyTemplateBodySchema, type Template } from '../../common/templates';
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
import { Skeleton } from '../ui/skeleton';
import { errorToast, successToast } from '../ui/toasts';
import { useSubmitError } from '../ui/use-submit-error';
import { useViewZone } from '../views/api';
import { todayIn } from '../views/days';
import { useApplyTemplate, useDeleteTemplate, useTemplates } from './api';
import { TEMPLATE_COPY } from './copy';

const formSchema = applyTemplateBodySchema.extend({
  templateId: z.number({ error: TEMPLATE_COPY.chooseTemplate }),
});
type FormValues = z.input<typeof formSchema>;

/**
 * 'New project from template' (issue 29), beside 'New project': the caller's templates to choose
 * from (each with its delete button), the new project's name (the template's, until typed) and the
 * day its due dates count from (today by default). Created, its screen opens with focus on its heading.
 */
export function NewFromTemplateDialog({ open, onOpenChange }: ControlledDialogProps) {
  const [, navigate] = useLocation();
  const { data: templates, isPending, isError, refetch } = useTemplates(open);
  const apply = useApplyTemplate();
  const remove = useDeleteTemplate();
  const failure = useSubmitError({ inlineOnly: true });
  const today = todayIn(useViewZone());
  const created = useRef(false);
  const list = useRef<HTMLUListElement>(null);
  const nameField = useRef<HTMLInputElement | null>(null);
  const errorId = useId();
  /** A template was deleted from this row: focus goes to the row now there, or to the name. */
  const [refocusAt, setRefocusAt] = useState<number | null>(null);
  const {
    register,
    control,
    handleSubmit,
    reset,
    setValue,
    getFieldState,
    formState: { errors, isSubmitting },
  } = useForm<FormValues, unknown, z.output<typeof formSchema>>({
    resolver: zodResolver(formSchema),
    defaultValues: { name: '', startDate: today },
  });
  const { field: chosen } = useController({ control, name: 'templateId' });
  const { ref: nameRef, ...nameProps } = register('name');

  const choose = (template: Template | undefined) => {
    chosen.onChange(template?.id);
    // The name follows the template chosen until the person types one of their own.
    if (template && !getFieldState('name').isDirty) setValue('name', template.name);
  };

  // Each opening starts afresh: today's date, and the newest template chosen once they are known.
  useEffect(() => {
    if (open) reset({ templateId: undefined, name: '', startDate: today });
  }, [open, today, reset]);
  useEffect(() => {
    if (!open || !templates) return;
    if (chosen.value === undefined && templates.length === 0) return;
    if (!templates.some((template) => template.id === chosen.value)) choose(templates[0]);
  });
  useEffect(() => {
    if (refocusAt === null || !templates) return;
    setRefocusAt(null);
    const radios = list.current?.querySelectorAll<HTMLInputElement>('input[type="radio"]');
    const next = radios?.[Math.min(refocusAt, radios.length - 1)];
    (next ?? nameField.current)?.focus();
  }, [refocusAt, templates]);

  const handleOpenChange = (next: boolean) => {
    if (!next) failure.clear();
    onOpenChange(next);
  };

  const deleteTemplate = async (template: Template, index: number) => {
    try {
      await remove.mutateAsync(template.id);
      successToast(TEMPLATE_COPY.deleted);
      setRefocusAt(index);
    } catch (error) {
      errorToast(errorMessage(error, TEMPLATE_COPY.deleteFailed));
    }
  };

  const onSubmit = handleSubmit(async ({ templateId, ...body }) => {
    failure.clear();
    try {
      const project = await apply.mutateAsync({ id: templateId, body });
      created.current = true;
      navigate(projectHref(project.id));
      successToast(TEMPLATE_COPY.projectCreated);
      handleOpenChange(false);
    } catch (error) {
      failure.report(errorMessage(error, TEMPLATE_COPY.createFailed));
    }
  });

  const choice = errors.templateId?.message;
  return (
    <Dialog open={open} onOpenChange={handleOpenChange}>
      <DialogContent
        className="sm:max-w-lg"
        onCloseAutoFocus={(event) => {
          if (!created.current) return;
          created.current = false;
          event.preventDefault();
          focusScreenHeading();
        }}
      >
        <DialogHeader>
          <DialogTitle>{TEMPLATE_COPY.newFromTemplate}</DialogTitle>
          <DialogDescription>{TEMPLATE_COPY.newDescription}</DialogDescription>
        </DialogHeader>
        <form onSubmit={onSubmit} noValidate className="grid gap-4">
          <FormAlert>{failure.error}</FormAlert>
          <fieldset className="grid min-w-0 gap-2" aria-describedby={choice ? errorId : undefined}>
            <legend className="mb-2 text-sm leading-none font-medium">{TEMPLATE_COPY.template}</legend>
            {isPending ? (
              <div aria-hidden className="grid gap-2">
                <Skeleton className="h-12" />
                <Skeleton className="h-12" />
              </div>
            ) : isError && !templates ? (
              <div className="flex flex-wrap items-center gap-3 text-sm">
                <p className="text-destructive">{TEMPLATE_COPY.loadFailed}</p>
                <Button type="button" variant="outline" size="sm" onClick={() => void refetch()}>
                  {TEMPLATE_COPY.retry}
                </Button>
              </div>
            ) : templates.length === 0 ? (
              <p className="text-sm text-muted-foreground">{TEMPLATE_COPY.noTemplates}</p>
            ) : (
              <ul ref={list} className="grid max-h-64 gap-1.5 overflow-y-auto p-0.5">
                {templates.map((template, index) => (
                  <li
                    key={template.id}
                    className="flex items-center gap-1 rounded-md border pr-1 has-checked:border-ring has-checked:bg-accent"
                  >
                    <label className="flex min-w-0 flex-1 cursor-pointer items-center gap-3 py-2 pl-3">
                      <input
                        type="radio"
                        name="template"
                        value={template.id}
                        checked={chosen.value === template.id}
                        onChange={() => choose(template)}
                        className="size-4 shrink-0 accent-primary"
                      />
                      <span className="grid min-w-0">
                        <span className="truncate text-sm font-medium">{template.name}</span>
                        <span className="text-xs text-muted-foreground">
                          {TEMPLATE_COPY.taskCount(template.taskCount)}
                        </span>
                      </span>
                    </label>
                    <Button
                      type="button"
                      variant="ghost"
                      size="icon"
                      aria-label={TEMPLATE_COPY.deleteTemplate(template.name)}
                      disabled={remove.isPending}
                      onClick={() => void deleteTemplate(template, index)}
                    >
                      <Trash2Icon aria-hidden />
                    </Button>
                  </li>
                ))}
              </ul>
            )}
            {choice && (
              <p id={errorId} className="text-sm text-destructive">
                {choice}
              </p>
            )}
          </fieldset>
          <FormField label={TEMPLATE_COPY.projectName} error={errors.name?.message}>
            <Input
              autoComplete="off"
              {...nameProps}
              ref={(element) => {
                nameRef(element);
                nameField.current = element;
              }}
            />
          </FormField>
          <FormField label={TEMPLATE_COPY.startDate} error={errors.startDate?.message}>
            <Input type="date" required {...register('startDate')} />
          </FormField>
          <DialogFooter className="pt-2">
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <SubmitButton pending={isSubmitting} disabled={isSubmitting || !templates?.length}>
              {TEMPLATE_COPY.createProject}
            </SubmitButton>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
