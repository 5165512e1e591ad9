import { Loader2Icon } from 'lucide-react';
import { useReconnecting } from '../lib/connection';

/** One calm notice while the server cannot be reached; nothing otherwise. */
export function ConnectionNotice() {
  const reconnecting = useReconnecting();
  return (
    <div
      role="status"
      aria-live="polite"
      className="pointer-events-none fixed inset-x-0 top-16 z-50 flex justify-center px-4"
    >
      {reconnecting && (
        <p className="flex items-center gap-2 rounded-full border bg-card px-4 py-2 text-sm text-card-foreground shadow-md">
          <Loader2Icon aria-hidden className="size-4 animate-spin text-muted-foreground" />
          Reconnecting…
        </p>
      )}
    </div>
  );
}
