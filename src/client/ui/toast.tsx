import { cva, type VariantProps } from 'class-variance-authority';
import { XIcon } from 'lucide-react';
import { Toast as ToastPrimitive } from 'radix-ui';
import type { ComponentProps } from 'react';
import { TIMINGS } from '../../common/spec';
import { cn } from '../lib/cn';
import { passEscapeOn } from './escape-pass';

/** Spec §9: 5000 ms by default, swiped away to the right past 50 px. The viewport hotkey stays Radix's F8. */
export function ToastProvider(props: ComponentProps<typeof ToastPrimitive.Provider>) {
  return (
    <ToastPrimitive.Provider
      duration={TIMINGS.toastDefaultMs}
      swipeDirection="right"
      swipeThreshold={TIMINGS.toastSwipeThreshold}
      {...props}
    />
  );
}

/** Bottom right from small screens up, at most 420 px wide from medium screens up (spec §9). */
export function ToastViewport({ className, ...props }: ComponentProps<typeof ToastPrimitive.Viewport>) {
  return (
    <ToastPrimitive.Viewport
      // Cards ask for it (tasks/useCardCollapse): a toast under the pointer is not leaving a card.
      data-toast-viewport=""
      className={cn(
        'fixed top-0 z-[100] flex max-h-screen w-full flex-col-reverse gap-2 p-4 outline-none sm:top-auto sm:right-0 sm:bottom-0 sm:flex-col md:max-w-[420px]',
        className,
      )}
      {...props}
    />
  );
}

const toastVariants = cva(
  'group pointer-events-auto relative flex w-full items-start justify-between gap-3 overflow-hidden rounded-lg border p-4 pr-10 shadow-lg transition-all data-[state=open]:animate-toast-in data-[state=closed]:animate-toast-out data-[swipe=cancel]:translate-x-0 data-[swipe=end]:translate-x-(--radix-toast-swipe-end-x) data-[swipe=end]:animate-toast-out data-[swipe=move]:translate-x-(--radix-toast-swipe-move-x) data-[swipe=move]:transition-none',
  {
    variants: {
      variant: {
        default: 'bg-popover text-popover-foreground',
        destructive: 'border-destructive bg-destructive text-destructive-foreground',
      },
    },
    defaultVariants: { variant: 'default' },
  },
);

/**
 * Escape closes a toast only while focus is inside one (the close button and swiping always do);
 * Radix would close it on any Escape and keep that Escape from the dialog under it (escape-pass.ts).
 */
export function Toast({
  className,
  variant,
  onEscapeKeyDown,
  ...props
}: ComponentProps<typeof ToastPrimitive.Root> & VariantProps<typeof toastVariants>) {
  return (
    <ToastPrimitive.Root
      data-toast=""
      className={cn(toastVariants({ variant }), className)}
      onEscapeKeyDown={(event) => {
        onEscapeKeyDown?.(event);
        if (event.target instanceof Element && event.target.closest('[data-toast]')) return;
        event.preventDefault();
        passEscapeOn(event);
      }}
      {...props}
    />
  );
}

export function ToastTitle({ className, ...props }: ComponentProps<typeof ToastPrimitive.Title>) {
  return <ToastPrimitive.Title className={cn('text-sm font-semibold', className)} {...props} />;
}

export function ToastDescription({ className, ...props }: ComponentProps<typeof ToastPrimitive.Description>) {
  return <ToastPrimitive.Description className={cn('text-sm opacity-90', className)} {...props} />;
}

/** A toast's one action (issue 31: 'Use mine', 'Reload'); `altText` says how to do it without the toast. */
export function ToastAction({ className, ...props }: ComponentProps<typeof ToastPrimitive.Action>) {
  return (
    <ToastPrimitive.Action
      className={cn(
        'inline-flex h-8 shrink-0 items-center justify-center self-center rounded-md border border-current/30 bg-transparent px-3 text-sm font-medium outline-none transition-colors hover:bg-foreground/10 focus-visible:ring-2 focus-visible:ring-ring',
        className,
      )}
      {...props}
    />
  );
}

export function ToastClose({ className, ...props }: ComponentProps<typeof ToastPrimitive.Close>) {
  return (
    <ToastPrimitive.Close
      aria-label="Close"
      className={cn(
        'absolute top-3 right-3 rounded-sm p-0.5 opacity-60 transition-opacity outline-none hover:opacity-100 focus-visible:opacity-100 focus-visible:ring-2 focus-visible:ring-ring [&_svg]:size-4',
        className,
      )}
      {...props}
    >
      <XIcon aria-hidden />
    </ToastPrimitive.Close>
  );
}
