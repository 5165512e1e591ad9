import { ListChecksIcon } from 'lucide-react';
import { cn } from '../lib/cn';

/** The product's mark; decorative, since the app name always stands beside it. */
export function LogoMark({ className }: { className?: string }) {
  return (
    <span
      aria-hidden
      className={cn(
        'inline-flex size-8 shrink-0 items-center justify-center rounded-lg bg-primary text-primary-foreground shadow-sm [&_svg]:size-[60%]',
        className,
      )}
    >
      <ListChecksIcon />
    </span>
  );
}
