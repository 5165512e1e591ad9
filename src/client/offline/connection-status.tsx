import { CloudOffIcon, Loader2Icon } from 'lucide-react';
import { type ReactNode, useId } from 'react';
import { OFFLINE_COPY } from '../../common/offline';
import { useOffline } from '../lib/connection';
import { useOutboxStatus } from './outbox';
import { statusText } from './status';

/**
 * The header's status: a polite live region, always on the page (a region added together with its
 * words is not announced), so each change is read out once.
 */
export function ConnectionStatus() {
  const offline = useOffline();
  const text = statusText(offline, useOutboxStatus());
  return (
    // On a phone the header has no room: the status hangs just below it, centred.
    <p
      role="status"
      aria-live="polite"
      className="flex min-w-0 items-center max-sm:pointer-events-none max-sm:absolute max-sm:inset-x-0 max-sm:top-full max-sm:justify-center max-sm:pt-2"
    >
      {text && (
        <span className="flex min-w-0 items-center gap-1.5 rounded-full border bg-card px-2.5 py-1 text-xs font-medium text-card-foreground shadow-sm">
          {offline ? (
            <CloudOffIcon aria-hidden className="size-3.5 shrink-0 text-muted-foreground" />
          ) : (
            <Loader2Icon aria-hidden className="size-3.5 shrink-0 animate-spin text-muted-foreground" />
          )}
          <span className="truncate">{text}</span>
        </span>
      )}
    </p>
  );
}

/**
 * 'Needs a connection' (issue 31): what only the server can do (AI runs, uploads, sharing, search
 * beyond the stored lists, the admin screens) is disabled while the browser is offline, with the
 * reason shown and tied to the control as its description. The one place that decides.
 *
 * `control` goes on the button or menu item; `note` is the visible reason, put beside it.
 */
export function useNeedsConnection(): {
  offline: boolean;
  control: { disabled?: true; 'aria-describedby'?: string };
  note: ReactNode;
} {
  const offline = useOffline();
  const id = useId();
  if (!offline) return { offline, control: {}, note: null };
  return {
    offline,
    control: { disabled: true, 'aria-describedby': id },
    note: <NeedsConnectionNote id={id} />,
  };
}

export function NeedsConnectionNote({ id, className = '' }: { id?: string; className?: string }) {
  return (
    <span id={id} className={`text-xs text-muted-foreground ${className}`}>
      {OFFLINE_COPY.needsConnection}
    </span>
  );
}
