import { Loader2Icon } from 'lucide-react';
import { Slot } from 'radix-ui';
import { type ComponentProps, type ReactElement, type ReactNode, useId } from 'react';
import { cn } from '../lib/cn';
import { Button, type ButtonProps } from './button';
import { Label } from './label';

type FormFieldProps = {
  label: ReactNode;
  /** The field's validation message, e.g. `formState.errors.email?.message` from the Zod resolver. */
  error?: string;
  /** The one control: it receives the id the label points at, plus aria-invalid and aria-describedby. */
  children: ReactElement;
  className?: string;
};

/** A label tied to its control, with the control's validation message under it. */
export function FormField({ label, error, children, className }: FormFieldProps) {
  const id = useId();
  const messageId = `${id}-message`;
  return (
    <div className={cn('grid gap-2', className)}>
      <Label htmlFor={id}>{label}</Label>
      <Slot.Root
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? messageId : undefined}
      >
        {children}
      </Slot.Root>
      {error && (
        <p id={messageId} className="text-sm text-destructive">
          {error}
        </p>
      )}
    </div>
  );
}

/** A whole form's failure (the server's answer, say), announced as it appears. */
export function FormAlert({ className, children, ...props }: ComponentProps<'div'>) {
  if (!children) return null;
  return (
    <div
      role="alert"
      className={cn(
        'rounded-md border border-destructive/40 bg-destructive/10 px-3 py-2 text-sm text-destructive',
        className,
      )}
      {...props}
    >
      {children}
    </div>
  );
}

/** Disabled while its form is being sent, so a second click cannot send it twice. */
export function SubmitButton({ pending, children, ...props }: ButtonProps & { pending: boolean }) {
  return (
    <Button type="submit" disabled={pending} aria-busy={pending || undefined} {...props}>
      {pending && <Loader2Icon aria-hidden className="animate-spin" />}
      {children}
    </Button>
  );
}
