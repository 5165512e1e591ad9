import { Loader2Icon, RefreshCwIcon, WifiOffIcon } from 'lucide-react';
import { OFFLINE_COPY } from '../../common/offline';
import { reloadNow, UPDATE_COPY, useUpdateState } from '../lib/app-update';
import { useOffline, useReconnecting } from '../lib/connection';
import { applyNewVersion, useNewVersionReady } from '../lib/service-worker';
import { useSession } from '../lib/session';
import { Button } from './button';

const pill =
  'flex items-center gap-2 rounded-full border bg-card px-4 py-2 text-sm text-card-foreground shadow-md';

/**
 * One calm notice while the server cannot be reached; nothing otherwise. When the browser says it is
 * offline, that is the notice (it names the cause), never stacked with 'Reconnecting…'; signed in,
 * the header says it instead (offline/connection-status.tsx, issue 31) and the notice stays quiet.
 * Once the server is there, a page whose build was replaced says it will reload (decision 048),
 * with a button to do it now; a new version the service worker has installed offers to reload
 * (issue 31) rather than taking over under the person's hands.
 */
export function ConnectionNotice() {
  const reconnecting = useReconnecting();
  const offline = useOffline();
  const signedIn = useSession() !== null;
  const update = useUpdateState();
  const newVersion = useNewVersionReady();
  return (
    <div
      role="status"
      aria-live="polite"
      className="pointer-events-none fixed inset-x-0 top-16 z-50 flex justify-center px-4"
    >
      {offline ? (
        !signedIn && (
          <p className={pill}>
            <WifiOffIcon aria-hidden className="size-4 text-muted-foreground" />
            {OFFLINE_COPY.offline}
          </p>
        )
      ) : reconnecting ? (
        <p className={pill}>
          <Loader2Icon aria-hidden className="size-4 animate-spin text-muted-foreground" />
          Reconnecting…
        </p>
      ) : newVersion && update === 'current' ? (
        <p className={`${pill} pointer-events-auto flex-wrap py-1.5 pr-1.5`}>
          <RefreshCwIcon aria-hidden className="size-4 text-muted-foreground" />
          {OFFLINE_COPY.newVersion}
          <Button size="sm" className="rounded-full" onClick={applyNewVersion}>
            {OFFLINE_COPY.reload}
          </Button>
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
