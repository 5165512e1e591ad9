import { Component, type ReactNode, Suspense } from 'react';

/**
 * Shows `fallback` instead of what failed to render below it: React takes the whole page down on an
 * error nothing catches, and a lazily loaded script that cannot be loaded is one (issue 28).
 */
export class ErrorBoundary extends Component<
  { fallback: ReactNode; children: ReactNode },
  { failed: boolean }
> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

/**
 * A lazily loaded part (a dialog, the toasts): nothing while its script loads, and nothing if it
 * cannot be loaded, the page around it working on. A script gone with a new build makes the page
 * reload at a safe moment (lib/app-update.ts).
 */
export function LazyPart({ children }: { children: ReactNode }) {
  return (
    <ErrorBoundary fallback={null}>
      <Suspense fallback={null}>{children}</Suspense>
    </ErrorBoundary>
  );
}
