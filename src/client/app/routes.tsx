import { Loader2Icon } from 'lucide-react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Route, Switch, useLocation } from 'wouter';
import { LoginScreen } from '../auth/LoginScreen';
import { reloadNow, UPDATE_COPY } from '../lib/app-update';
import { useSession } from '../lib/session';
import { Button } from '../ui/button';
import { ErrorBoundary } from '../ui/lazy';
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
 * What shows when a screen fails to render (its script gone with a new build, or a bug) instead of a
 * blank page: a gone script also makes the page reload by itself when it is safe (lib/app-update.ts).
 */
function PageFailed() {
  return (
    <div role="alert" className="flex min-h-screen flex-col items-center justify-center gap-4 p-6">
      <p>{UPDATE_COPY.pageFailed}</p>
      <Button onClick={reloadNow}>{UPDATE_COPY.reload}</Button>
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
    <ErrorBoundary fallback={<PageFailed />}>
      <Suspense fallback={<PageLoading />}>
        <Switch>
          <Route path="/reset-password/:token">{({ token }) => <ResetPasswordPage token={token} />}</Route>
          <Route>{signedInScreen ? signedIn ? <SignedIn /> : <LoginScreen /> : <NotFoundPage />}</Route>
        </Switch>
      </Suspense>
    </ErrorBoundary>
  );
}
