import { FingerprintPatternIcon, Loader2Icon } from 'lucide-react';
import { useEffect, useState } from 'react';
import { ERRORS, TOASTS } from '../../common/spec';
import { errorMessage } from '../lib/api';
import { browserHasPasskeys, pageAtHostName, passkeyPromptMessage } from '../lib/webauthn';
import { Button } from '../ui/button';
import { FormAlert } from '../ui/form';
import { toast } from '../ui/use-toast';
import { getAuthProviders, signInWithPasskey } from './api';

export const SIGN_IN_WITH_PASSKEY = 'Sign in with a passkey';
const PASSKEY_SIGN_IN_FAILED = 'Could not sign in with a passkey. Please try again.';

/**
 * 'Sign in with a passkey' under the password form: shown only when the server can take passkeys
 * (APP_URL at a host name), the browser can use them, and the page is not open at an IP address.
 */
export function PasskeySignIn() {
  const [available, setAvailable] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();

  useEffect(() => {
    if (!browserHasPasskeys() || !pageAtHostName()) return;
    let current = true;
    getAuthProviders().then(
      (providers) => current && setAvailable(providers.passkeys),
      // Without an answer the password form is still there; the button stays away.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, []);

  if (!available) return null;

  const signIn = async () => {
    setError(undefined);
    setPending(true);
    try {
      await signInWithPasskey();
      toast({ title: TOASTS.welcomeBack });
    } catch (failure) {
      setError(
        passkeyPromptMessage(failure) ?? errorMessage(failure, PASSKEY_SIGN_IN_FAILED, ERRORS.network),
      );
      setPending(false);
    }
  };

  return (
    <>
      <FormAlert>{error}</FormAlert>
      <Button
        type="button"
        variant="outline"
        className="w-full"
        disabled={pending}
        aria-busy={pending || undefined}
        onClick={() => void signIn()}
      >
        {pending ? (
          <Loader2Icon aria-hidden className="animate-spin" />
        ) : (
          <FingerprintPatternIcon aria-hidden />
        )}
        {SIGN_IN_WITH_PASSKEY}
      </Button>
    </>
  );
}
