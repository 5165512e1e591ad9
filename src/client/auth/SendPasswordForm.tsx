import { useForm } from 'react-hook-form';
import { COPY, ERRORS, TIMINGS, TOASTS } from '../../common/spec';
import { errorMessage, errorStatus } from '../lib/api';
import { lazyZodResolver } from '../lib/lazy-zod-resolver';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { useSubmitError } from '../ui/use-submit-error';
import { toast } from '../ui/use-toast';
import { sendPassword } from './api';
import { BackToSignIn } from './BackToSignIn';

const resolver = lazyZodResolver(() => import('../../common/auth').then((m) => m.sendPasswordBodySchema));

/** Spec §8: a 404 names the unknown address; any other failure, the server's message or a retry hint. */
function failureMessage(error: unknown): string {
  if (errorStatus(error) === 404) return ERRORS.emailNotFound;
  return errorMessage(error, ERRORS.sendPassword);
}

export function SendPasswordForm({ onBack }: { onBack: () => void }) {
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({ resolver, defaultValues: { email: '' } });
  const failure = useSubmitError();

  const onSubmit = handleSubmit(async (values) => {
    failure.clear();
    try {
      const message = await sendPassword(values);
      toast({ title: TOASTS.passwordSent, description: message, duration: TIMINGS.toastPasswordSentMs });
      onBack();
    } catch (error) {
      failure.report(failureMessage(error));
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate className="grid gap-4">
      <FormAlert>{failure.error}</FormAlert>
      <FormField label="Email" error={errors.email?.message}>
        <Input type="email" autoComplete="email" {...register('email')} />
      </FormField>
      <SubmitButton pending={isSubmitting} className="w-full">
        {COPY.sendMeMyPassword}
      </SubmitButton>
      <BackToSignIn onClick={onBack} />
    </form>
  );
}
