/** The signed-in screens' module (SignedInApp and all it imports), loaded once, apart from the login screen. */
type SignedInModule = typeof import('./SignedInApp');
let signedInModule: Promise<SignedInModule> | undefined;
let signedInLoaded: SignedInModule | undefined;

/**
 * Starts loading the signed-in screens, once. main.tsx calls it before the first render when a
 * session is stored, and the sign-in form when the person submits it, so the download and compile
 * overlap the start-up or the password's check (issue 28: a new person waited for the sign-in's
 * answer, then for ~500 KB of script).
 */
export function loadSignedInApp(): Promise<SignedInModule> {
  signedInModule ??= import('./SignedInApp').then((module) => (signedInLoaded = module));
  return signedInModule;
}

/** The module if it has loaded already. */
export const loadedSignedInApp = (): SignedInModule | undefined => signedInLoaded;

export type { SignedInModule };
