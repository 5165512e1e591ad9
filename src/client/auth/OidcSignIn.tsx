import { useEffect, useState } from 'react';
import type { AuthProviders } from '../../common/auth';
import { isOidcErrorCode, OIDC_ERRORS, OIDC_PATHS, SIGN_IN_ERROR_PARAM } from '../../common/sign-in';
import { Button } from '../ui/button';
import { FormAlert } from '../ui/form';
import { fetchAuthProviders } from './api';

/** The words of a failed single sign-on the server sent the browser back with (`?signInError=<code>`). */
function signInError(): string | undefined {
  const code = new URL(window.location.href).searchParams.get(SIGN_IN_ERROR_PARAM);
  if (code === null) return undefined;
  return isOidcErrorCode(code) ? OIDC_ERRORS[code] : OIDC_ERRORS.failed;
}

/** Takes the code out of the address once shown, so a reload or a bookmark does not show it again. */
function forgetSignInError() {
  const url = new URL(window.location.href);
  if (!url.searchParams.has(SIGN_IN_ERROR_PARAM)) return;
  url.searchParams.delete(SIGN_IN_ERROR_PARAM);
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
}

/**
 * 'Sign in with {OIDC_NAME}' on the login screen, when the server has a provider (decision 016):
 * a plain link, since the sign-in leaves the app for the provider and comes back through the server.
 */
export function OidcSignIn() {
  const [error] = useState(signInError);
  const [oidc, setOidc] = useState<AuthProviders['oidc']>(null);

  useEffect(() => {
    forgetSignInError();
    const controller = new AbortController();
    fetchAuthProviders(controller.signal).then(
      (providers) => setOidc(providers.oidc),
      () => {
        // Unreachable or refused: the password form is still there.
      },
    );
    return () => controller.abort();
  }, []);

  if (!oidc && !error) return null;
  return (
    <div className="mt-4 grid gap-4">
      <FormAlert>{error}</FormAlert>
      {oidc && (
        <>
          <div className="flex items-center gap-3 text-xs text-muted-foreground">
            <span className="h-px flex-1 bg-border" />
            or
            <span className="h-px flex-1 bg-border" />
          </div>
          <Button asChild variant="outline" className="w-full">
            <a href={OIDC_PATHS.start}>Sign in with {oidc.name}</a>
          </Button>
        </>
      )}
    </div>
  );
}
