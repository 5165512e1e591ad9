import { type FormEvent, useState } from 'react';
import { ERRORS, TOASTS } from '../../common/spec';
import { errorMessage } from '../lib/api';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { useSubmitError } from '../ui/use-submit-error';
import { toast } from '../ui/use-toast';
import { signInWithCode } from './api';
import { BackToSignIn } from './BackToSignIn';

// Written here rather than imported from common/two-factor, which would put Zod on the login screen.
const CODE_REQUIRED = 'Authentication code is required';

/** The second step of a sign-in with two-factor authentication on (issue 12). */
export function TwoFactorStepForm({ challenge, onBack }: { challenge: string; onBack: () => void }) {
  const [code, setCode] = useState('');
  const [fieldError, setFieldError] = useState<string>();
  const [pending, setPending] = useState(false);
  const failure = useSubmitError({ inlineOnly: true });

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    failure.clear();
    setFieldError(undefined);
    if (!code.trim()) {
      setFieldError(CODE_REQUIRED);
      return;
    }
    setPending(true);
    try {
      await signInWithCode({ challenge, code: code.trim() });
      toast({ title: TOASTS.welcomeBack });
    } catch (error) {
      failure.report(errorMessage(error, ERRORS.invalidLogin, ERRORS.network));
      setCode('');
      setPending(false);
    }
  };

  return (
    <form onSubmit={(event) => void onSubmit(event)} noValidate className="grid gap-4">
      <FormAlert>{failure.error}</FormAlert>
      <FormField label="Authentication code" error={fieldError}>
        <Input
          value={code}
          onChange={(event) => setCode(event.target.value)}
          autoComplete="one-time-code"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={64}
          placeholder="123456"
          className="font-mono tracking-widest"
        />
      </FormField>
      <SubmitButton pending={pending} className="w-full">
        Verify
      </SubmitButton>
      <BackToSignIn onClick={onBack} />
    </form>
  );
}
