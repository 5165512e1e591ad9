import { useForm } from 'react-hook-form';
import { COPY, ERRORS, TIMINGS, TOASTS } from '../../common/spec';
import { errorMessage } from '../lib/api';
import { lazyZodResolver } from '../lib/lazy-zod-resolver';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { Textarea } from '../ui/textarea';
import { useSubmitError } from '../ui/use-submit-error';
import { toast } from '../ui/use-toast';
import { requestAccess } from './api';
import { BackToSignIn } from './BackToSignIn';

const resolver = lazyZodResolver(() => import('../../common/auth').then((m) => m.accessRequestBodySchema));

export function RequestAccessForm({ onBack }: { onBack: () => void }) {
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({ resolver, defaultValues: { email: '', requestedUsername: '', message: '' } });
  const failure = useSubmitError();

  const onSubmit = handleSubmit(async (values) => {
    failure.clear();
    try {
      const message = await requestAccess(values);
      toast({
        title: TOASTS.accessRequestSubmitted,
        description: message,
        duration: TIMINGS.toastAccessRequestMs,
      });
      onBack();
    } catch (error) {
      failure.report(errorMessage(error, ERRORS.accessRequest, ERRORS.accessRequestNetwork));
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate className="grid gap-4">
      <FormAlert>{failure.error}</FormAlert>
      <FormField label="Email" error={errors.email?.message}>
        <Input type="email" autoComplete="email" {...register('email')} />
      </FormField>
      <FormField label="Desired Username" error={errors.requestedUsername?.message}>
        <Input
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          {...register('requestedUsername')}
        />
      </FormField>
      <FormField label="Message (optional)" error={errors.message?.message}>
        <Textarea rows={3} {...register('message')} />
      </FormField>
      <SubmitButton pending={isSubmitting} className="w-full">
        {COPY.requestAccess}
      </SubmitButton>
      <BackToSignIn onClick={onBack} />
    </form>
  );
}
