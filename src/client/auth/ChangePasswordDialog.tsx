import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { changePasswordFormSchema } from '../../common/auth';
import { COPY, ERRORS, TOASTS, VALIDATION } from '../../common/spec';
import { errorMessage } from '../lib/api';
import { getSession } from '../lib/session';
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
import { useSubmitError } from '../ui/use-submit-error';
import { toast } from '../ui/use-toast';
import { changePassword } from './api';

const EMPTY = { currentPassword: '', newPassword: '', confirmPassword: '' };

export function ChangePasswordDialog({ open, onOpenChange }: ControlledDialogProps) {
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(changePasswordFormSchema), defaultValues: EMPTY });
  const failure = useSubmitError();

  // Reopening starts from a blank form: passwords must not linger in a closed dialog.
  const handleOpenChange = (next: boolean) => {
    if (!next) {
      reset(EMPTY);
      failure.clear();
    }
    onOpenChange(next);
  };

  const onSubmit = handleSubmit(async ({ currentPassword, newPassword }) => {
    failure.clear();
    if (!getSession()) {
      failure.report(VALIDATION.loginRequiredForPasswordChange);
      return;
    }
    try {
      await changePassword({ currentPassword, newPassword });
      toast({ title: TOASTS.passwordChanged });
      handleOpenChange(false);
    } catch (error) {
      failure.report(errorMessage(error, ERRORS.changePassword));
    }
  });

  return (
    <Dialog open={open} onOpenChange={handleOpenChange}>
      <DialogContent className="sm:max-w-md">
        <DialogHeader>
          <DialogTitle>{COPY.changePassword}</DialogTitle>
          <DialogDescription>Enter your current password, then choose a new one.</DialogDescription>
        </DialogHeader>
        <form onSubmit={onSubmit} noValidate className="grid gap-4">
          <FormAlert>{failure.error}</FormAlert>
          <FormField label="Current Password" error={errors.currentPassword?.message}>
            <Input type="password" autoComplete="current-password" {...register('currentPassword')} />
          </FormField>
          <FormField label="New Password" error={errors.newPassword?.message}>
            <Input type="password" autoComplete="new-password" {...register('newPassword')} />
          </FormField>
          <FormField label="Confirm New Password" error={errors.confirmPassword?.message}>
            <Input type="password" autoComplete="new-password" {...register('confirmPassword')} />
          </FormField>
          <DialogFooter className="pt-2">
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <SubmitButton pending={isSubmitting}>{COPY.changePassword}</SubmitButton>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
