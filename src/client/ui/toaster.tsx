import { lazy } from 'react';
import { LazyPart } from './lazy';
import { useToast } from './use-toast';

// Radix Toast loads with the first toast rather than with the login screen, which has a tight budget.
const ToastList = lazy(() => import('./toast-list').then((m) => ({ default: m.ToastList })));

/** Mounted once, in App: shows what `toast()` raises, anywhere in the app. */
export function Toaster() {
  const { toasts } = useToast();
  if (toasts.length === 0) return null;
  return (
    <LazyPart>
      <ToastList />
    </LazyPart>
  );
}
