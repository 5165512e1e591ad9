import { XIcon } from 'lucide-react';
import { Dialog as DialogPrimitive } from 'radix-ui';
import { type ComponentProps, useRef } from 'react';
import { cn } from '../lib/cn';
import { escapePassedOn } from './escape-pass';

export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

/** Shared with AlertDialog so both kinds of modal look alike. */
export const overlayClasses =
  'fixed inset-0 z-50 bg-black/50 data-[state=open]:animate-fade-in data-[state=closed]:animate-fade-out';
export const modalClasses =
  'fixed top-1/2 left-1/2 z-50 grid max-h-[calc(100dvh-2rem)] w-[calc(100%-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 gap-4 overflow-y-auto rounded-lg border bg-card p-6 text-card-foreground shadow-lg outline-none data-[state=open]:animate-pop-in data-[state=closed]:animate-pop-out';
export const titleClasses = 'text-lg leading-none font-semibold tracking-tight';
export const descriptionClasses = 'text-sm text-muted-foreground';

/**
 * Radix hands focus back to a DialogTrigger on close; a dialog opened by a button that sets state has
 * none, and focus would fall to <body>. These handlers remember what had focus when the dialog opened
 * and return focus there, when it is still on the page.
 */
export function useReturnFocus({
  onOpenAutoFocus,
  onCloseAutoFocus,
}: {
  onOpenAutoFocus?: (event: Event) => void;
  onCloseAutoFocus?: (event: Event) => void;
}) {
  const opener = useRef<Element | null>(null);
  return {
    onOpenAutoFocus: (event: Event) => {
      opener.current = document.activeElement;
      onOpenAutoFocus?.(event);
    },
    onCloseAutoFocus: (event: Event) => {
      onCloseAutoFocus?.(event);
      const element = opener.current;
      opener.current = null;
      if (event.defaultPrevented || !(element instanceof HTMLElement) || !element.isConnected) return;
      if (element === document.body) return;
      event.preventDefault();
      element.focus();
    },
  };
}

export function DialogContent({
  className,
  children,
  onOpenAutoFocus,
  onCloseAutoFocus,
  onKeyDown,
  ...props
}: ComponentProps<typeof DialogPrimitive.Content>) {
  const returnFocus = useReturnFocus({ onOpenAutoFocus, onCloseAutoFocus });
  const close = useRef<HTMLButtonElement>(null);
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className={overlayClasses} />
      <DialogPrimitive.Content
        className={cn(modalClasses, className)}
        onKeyDown={(event) => {
          onKeyDown?.(event);
          // An Escape a toast over the dialog passed on, from the dialog itself: not from a menu or a
          // dialog opened from this one, which React's events reach through their portals.
          if (escapePassedOn(event.nativeEvent) && event.currentTarget.contains(event.target as Node)) {
            close.current?.click();
          }
        }}
        {...returnFocus}
        {...props}
      >
        {children}
        <DialogPrimitive.Close
          ref={close}
          className="absolute top-4 right-4 rounded-sm p-0.5 text-muted-foreground opacity-80 transition-opacity outline-none hover:opacity-100 focus-visible:ring-2 focus-visible:ring-ring [&_svg]:size-4"
        >
          <XIcon aria-hidden />
          <span className="sr-only">Close</span>
        </DialogPrimitive.Close>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

export function DialogHeader({ className, ...props }: ComponentProps<'div'>) {
  return <div className={cn('flex flex-col gap-1.5 pr-6 text-left', className)} {...props} />;
}

export function DialogFooter({ className, ...props }: ComponentProps<'div'>) {
  return (
    <div className={cn('flex flex-col-reverse gap-2 sm:flex-row sm:justify-end', className)} {...props} />
  );
}

export function DialogTitle({ className, ...props }: ComponentProps<typeof DialogPrimitive.Title>) {
  return <DialogPrimitive.Title className={cn(titleClasses, className)} {...props} />;
}

export function DialogDescription({
  className,
  ...props
}: ComponentProps<typeof DialogPrimitive.Description>) {
  return <DialogPrimitive.Description className={cn(descriptionClasses, className)} {...props} />;
}

/** What a dialog opened from elsewhere (a menu item, say) takes from its opener. */
export type ControlledDialogProps = { open: boolean; onOpenChange: (open: boolean) => void };
