import { type ComponentProps, useEffect, useRef } from 'react';
import { cn } from '../lib/cn';
import { focusIsLost } from '../lib/focus';

/**
 * A screen's main heading. When the screen appears and focus is nowhere (after following a link or
 * signing in, the control that had it is gone), the heading takes it: a screen reader starts reading
 * the new screen there, and Tab goes on from it.
 */
export function PageHeading({ className, ...props }: ComponentProps<'h1'>) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusIsLost()) ref.current?.focus({ preventScroll: true });
  }, []);
  return <h1 ref={ref} tabIndex={-1} className={cn('outline-none', className)} {...props} />;
}
