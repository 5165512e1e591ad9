import { Loader2Icon, RefreshCwIcon, WifiOffIcon } from 'lucide-react';
import { reloadNow, UPDATE_COPY, useUpdateState } from '../lib/app-update';
import { useOffline, useReconnecting } from '../lib/connection';
import { Button } from './button';

const pill =
  'flex items-center gap-2 rounded-full border bg-card px-4 py-2 text-sm text-card-foreground shadow-md';

/**
 * One calm notice while the server cannot be reached; nothing otherwise. When the browser says it is
 * offline, that is the notice (it names the cause), never stacked with 'Reconnecting…'. Once the
 * server is there, a page whose build was replaced says it will reload (decision 048), with a button
 * to do it now.
 */
export function ConnectionNotice() {
  const reconnecting = useReconnecting();
  const offline = useOffline();
  const update = useUpdateState();
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
      ) : reconnecting ? (
        <p className={pill}>
          <Loader2Icon aria-hidden className="size-4 animate-spin text-muted-foreground" />
          Reconnecting…
        </p>
      ) : (
        update !== 'current' && (
          <p className={`${pill} pointer-events-auto flex-wrap py-1.5 pr-1.5`}>
            <RefreshCwIcon aria-hidden className="size-4 text-muted-foreground" />
            {UPDATE_COPY.notice}
            {update === 'waiting' && <span className="text-muted-foreground">· {UPDATE_COPY.whenSafe}</span>}
            <Button size="sm" className="rounded-full" onClick={reloadNow}>
              {UPDATE_COPY.reload}
            </Button>
          </p>
        )
      )}
    </div>
  );
}
