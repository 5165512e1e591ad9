import { Loader2Icon } from 'lucide-react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Route, Switch, useLocation } from 'wouter';
import { LoginScreen } from '../auth/LoginScreen';
import { useSession } from '../lib/session';
import { NotFoundPage } from './NotFoundPage';
import { screenAt } from './screens';
import { loadedSignedInApp, loadSignedInApp, type SignedInModule } from './signed-in-module';

// Loaded only when needed, so a signed-out visitor downloads little more than the login screen.
const ResetPasswordPage = lazy(() =>
  import('../auth/ResetPasswordPage').then((m) => ({ default: m.ResetPasswordPage })),
);

function PageLoading() {
  return (
    <div role="status" className="flex min-h-screen items-center justify-center">
      <Loader2Icon aria-hidden className="size-6 animate-spin text-muted-foreground" />
      <span className="sr-only">Loading</span>
    </div>
  );
}

/**
 * The signed-in screens once loaded, a spinner until then. Not React.lazy: a lazy component's
 * content replaces its Suspense fallback at the earliest 300 ms after the fallback showed (React's
 * reveal throttle), which held every signed-in load back by up to that long (decision 030).
 * A state update shows it as soon as it is there. A failed download throws here, as lazy did.
 */
function SignedIn() {
  const [loaded, setLoaded] = useState<SignedInModule | Error | undefined>(loadedSignedInApp);
  useEffect(() => {
    if (!loaded) loadSignedInApp().then(setLoaded, (error: unknown) => setLoaded(error as Error));
  }, [loaded]);
  if (loaded instanceof Error) throw loaded;
  return loaded ? <loaded.SignedInApp /> : <PageLoading />;
}

/**
 * Spec §2. Signed out, every signed-in screen (`/`, `/archive`, `/assigned`, `/projects/{id}`) shows
 * only the login screen, and the screen asked for once signed in; a reset link works either way.
 * The signed-in screens are one route, so moving between them keeps the header, the sidebar and the
 * live stream mounted; SignedInApp picks the page.
 */
export function AppRoutes() {
  const signedIn = useSession() !== null;
  const signedInScreen = screenAt(useLocation()[0]) !== null;
  return (
    <Suspense fallback={<PageLoading />}>
      <Switch>
        <Route path="/reset-password/:token">{({ token }) => <ResetPasswordPage token={token} />}</Route>
        <Route>{signedInScreen ? signedIn ? <SignedIn /> : <LoginScreen /> : <NotFoundPage />}</Route>
      </Switch>
    </Suspense>
  );
}
