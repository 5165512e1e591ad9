import { useForm } from 'react-hook-form';
import { COPY, ERRORS, TOASTS } from '../../common/spec';
import { loadSignedInApp } from '../app/signed-in-module';
import { errorMessage } from '../lib/api';
import { lazyZodResolver } from '../lib/lazy-zod-resolver';
import { Button } from '../ui/button';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { useSubmitError } from '../ui/use-submit-error';
import { toast } from '../ui/use-toast';
import { signIn } from './api';

const resolver = lazyZodResolver(() => import('../../common/auth').then((m) => m.loginBodySchema));

type SignInFormProps = {
  onSendPassword: () => void;
  onRequestAccess: () => void;
  /** The password was right and the account asks for a second step. */
  onTwoFactor: (challenge: string) => void;
};

export function SignInForm({ onSendPassword, onRequestAccess, onTwoFactor }: SignInFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({ resolver, defaultValues: { username: '', password: '' } });
  const failure = useSubmitError({ inlineOnly: true });

  const onSubmit = handleSubmit(async (values) => {
    failure.clear();
    // The signed-in screens' scripts load while the server checks the password (a failed download
    // is the signed-in screen's to show).
    loadSignedInApp().catch(() => undefined);
    try {
      const second = await signIn(values);
      if (second) {
        onTwoFactor(second.challenge);
        return;
      }
      toast({ title: TOASTS.welcomeBack });
    } catch (error) {
      failure.report(errorMessage(error, ERRORS.invalidLogin, ERRORS.network));
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate className="grid gap-4">
      <FormAlert>{failure.error}</FormAlert>
      <FormField label="Username" error={errors.username?.message}>
        <Input autoComplete="username" autoCapitalize="none" spellCheck={false} {...register('username')} />
      </FormField>
      <FormField label="Password" error={errors.password?.message}>
        <Input type="password" autoComplete="current-password" {...register('password')} />
      </FormField>
      <SubmitButton pending={isSubmitting} className="w-full">
        {COPY.signIn}
      </SubmitButton>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <Button variant="link" className="h-auto p-0" onClick={onSendPassword}>
          {COPY.sendMeMyPassword}
        </Button>
        <Button variant="link" className="h-auto p-0" onClick={onRequestAccess}>
          {COPY.requestAccess}
        </Button>
      </div>
    </form>
  );
}
