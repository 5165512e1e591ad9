/**
 * The browser's side of passkeys. @simplewebauthn/browser is loaded only when a ceremony starts, so
 * the login screen's first load stays small.
 */

type Browser = typeof import('@simplewebauthn/browser');

let loading: Promise<Browser> | undefined;
export function loadWebAuthn(): Promise<Browser> {
  loading ??= import('@simplewebauthn/browser').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** Whether this browser can do WebAuthn at all (a secure context with PublicKeyCredential). */
export function browserHasPasskeys(): boolean {
  return (
    typeof window !== 'undefined' &&
    window.isSecureContext &&
    typeof window.PublicKeyCredential === 'function'
  );
}

/** Browsers refuse passkeys on a page opened at an IP address, whatever the server's APP_URL says. */
export function pageAtHostName(): boolean {
  const host = window.location.hostname;
  return !(/^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':') || host.startsWith('['));
}

/**
 * What to tell the person when the browser's passkey prompt fails, or undefined when the error did
 * not come from the prompt (a failed call to the server, say).
 */
export function passkeyPromptMessage(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  // WebAuthnError from @simplewebauthn/browser carries a code; the DOMExceptions it passes on, a name.
  switch (code) {
    case 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED':
      return 'This device already holds a passkey for your account.';
    case 'ERROR_CEREMONY_ABORTED':
      return 'The passkey prompt was closed before it finished. Try again when you are ready.';
    case 'ERROR_INVALID_DOMAIN':
    case 'ERROR_INVALID_RP_ID':
      return 'This browser will not use passkeys at this address. Open Tasklane at its usual address and try again.';
    case 'ERROR_AUTHENTICATOR_MISSING_DISCOVERABLE_CREDENTIAL_SUPPORT':
    case 'ERROR_AUTHENTICATOR_MISSING_USER_VERIFICATION_SUPPORT':
    case 'ERROR_AUTHENTICATOR_NO_SUPPORTED_PUBKEYCREDPARAMS_ALG':
      return 'This authenticator cannot hold a Tasklane passkey: it needs to keep the passkey itself and check that it is you (a PIN, fingerprint or face).';
  }
  switch (error.name) {
    case 'NotAllowedError':
    case 'AbortError':
      return 'The passkey prompt was closed or timed out. Try again when you are ready.';
    case 'InvalidStateError':
      return 'This device already holds a passkey for your account.';
    case 'NotSupportedError':
      return 'This browser or device does not support passkeys.';
    case 'SecurityError':
      return 'This browser will not use passkeys at this address. Open Tasklane at its usual address and try again.';
  }
  return code !== undefined ? 'The passkey prompt failed. Please try again.' : undefined;
}
