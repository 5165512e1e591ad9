import { cn } from '../lib/cn';
import { PROJECT_COPY } from './copy';

/** The list of projects could not load: say so, and offer to try again. */
export function ProjectsLoadError({ onRetry, className }: { onRetry: () => void; className?: string }) {
  return (
    <p role="alert" className={cn('text-sm text-muted-foreground', className)}>
      {PROJECT_COPY.loadFailed}{' '}
      <button
        type="button"
        onClick={onRetry}
        className="font-medium text-primary underline-offset-4 outline-none hover:underline focus-visible:ring-2 focus-visible:ring-ring dark:text-ring"
      >
        Try again
      </button>
    </p>
  );
}
