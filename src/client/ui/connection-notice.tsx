import { Loader2Icon, WifiOffIcon } from 'lucide-react';
import { useOffline, useReconnecting } from '../lib/connection';

const pill =
  'flex items-center gap-2 rounded-full border bg-card px-4 py-2 text-sm text-card-foreground shadow-md';

/**
 * One calm notice while the server cannot be reached; nothing otherwise. When the browser says it is
 * offline, that is the notice (it names the cause), never stacked with 'Reconnecting…'.
 */
export function ConnectionNotice() {
  const reconnecting = useReconnecting();
  const offline = useOffline();
  return (
    <div
      role="status"
      aria-live="polite"
      className="pointer-events-none fixed inset-x-0 top-16 z-50 flex justify-center px-4"
    >
      {offline ? (
        <p className={pill}>
          <WifiOffIcon aria-hidden className="size-4 text-muted-foreground" />
          You are offline
          <span className="text-muted-foreground">· changes can’t be saved</span>
        </p>
      ) : (
        reconnecting && (
          <p className={pill}>
            <Loader2Icon aria-hidden className="size-4 animate-spin text-muted-foreground" />
            Reconnecting…
          </p>
        )
      )}
    </div>
  );
}
