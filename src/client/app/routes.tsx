import { Loader2Icon } from 'lucide-react';
import { lazy, Suspense } from 'react';
import { Route, Switch } from 'wouter';
import { LoginScreen } from '../auth/LoginScreen';
import { useSession } from '../lib/session';
import { NotFoundPage } from './NotFoundPage';

// Loaded only when needed, so a signed-out visitor downloads little more than the login screen.
const SignedInApp = lazy(() => import('./SignedInApp').then((m) => ({ default: m.SignedInApp })));
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

/** Spec §2. Signed out, `/` and `/archive` show only the login screen; a reset link works either way. */
export function AppRoutes() {
  const signedIn = useSession() !== null;
  return (
    <Suspense fallback={<PageLoading />}>
      <Switch>
        <Route path="/">{signedIn ? <SignedInApp page="main" /> : <LoginScreen />}</Route>
        <Route path="/archive">{signedIn ? <SignedInApp page="archive" /> : <LoginScreen />}</Route>
        <Route path="/reset-password/:token">{({ token }) => <ResetPasswordPage token={token} />}</Route>
        <Route>
          <NotFoundPage />
        </Route>
      </Switch>
    </Suspense>
  );
}
