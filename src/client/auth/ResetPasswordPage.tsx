import { zodResolver } from '@hookform/resolvers/zod';
import { ArrowLeftIcon, CircleCheckIcon } from 'lucide-react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link } from 'wouter';
import { z } from 'zod';
import { newPasswordSchema } from '../../common/auth';
import { COPY, VALIDATION } from '../../common/spec';
import { errorMessage } from '../lib/api';
import { Button } from '../ui/button';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { useSubmitError } from '../ui/use-submit-error';
import { AuthCard } from './AuthCard';
import { resetPassword } from './api';

/** The same rules as changing a password (spec §5), without the current one: the e-mailed link stands for it. */
const resetPasswordFormSchema = z
  .object({ newPassword: newPasswordSchema, confirmPassword: z.string() })
  .refine((v) => v.newPassword === v.confirmPassword, {
    message: VALIDATION.passwordsDoNotMatch,
    path: ['confirmPassword'],
  });

const FALLBACK = 'Unable to reset your password. Please try again.';

/** Where the "Send Me My Password" email leads: sets a new password with the link's one-time token. */
export function ResetPasswordPage({ token }: { token: string }) {
  const [done, setDone] = useState<string>();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({
    resolver: zodResolver(resetPasswordFormSchema),
    defaultValues: { newPassword: '', confirmPassword: '' },
  });
  const failure = useSubmitError();

  const onSubmit = handleSubmit(async ({ newPassword }) => {
    failure.clear();
    try {
      setDone(await resetPassword({ token, newPassword }));
    } catch (error) {
      failure.report(errorMessage(error, FALLBACK));
    }
  });

  if (done) {
    return (
      <AuthCard title="Password Reset" description="You can now sign in with your new password.">
        <div className="grid gap-4">
          <p role="status" className="flex items-start gap-2 text-sm">
            <CircleCheckIcon aria-hidden className="mt-0.5 size-4 shrink-0 text-primary dark:text-ring" />
            {done}
          </p>
          <Button asChild className="w-full">
            <Link href="/">{COPY.signIn}</Link>
          </Button>
        </div>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Set a New Password" description="Choose a new password for your account.">
      <form onSubmit={onSubmit} noValidate className="grid gap-4">
        <FormAlert>{failure.error}</FormAlert>
        <FormField label="New Password" error={errors.newPassword?.message}>
          <Input type="password" autoComplete="new-password" {...register('newPassword')} />
        </FormField>
        <FormField label="Confirm New Password" error={errors.confirmPassword?.message}>
          <Input type="password" autoComplete="new-password" {...register('confirmPassword')} />
        </FormField>
        <SubmitButton pending={isSubmitting} className="w-full">
          Set Password
        </SubmitButton>
        <Button asChild variant="link" className="h-auto justify-self-center p-0">
          <Link href="/">
            <ArrowLeftIcon aria-hidden />
            {COPY.backToSignIn}
          </Link>
        </Button>
      </form>
    </AuthCard>
  );
}
