import { useSyncExternalStore } from 'react';
import { OFFLINE_COPY } from '../../common/offline';
import { COPY } from '../../common/spec';
import { signOut } from '../auth/api';
import { getSession } from '../lib/session';
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from '../ui/alert-dialog';
import { discardOutbox, waitingChanges } from './outbox';
import { forgetPersistedCache } from './persist';

/**
 * Signing out (issue 31) deletes what this browser keeps for the person: the outbox and the stored
 * lists. With changes still waiting it asks first ('3 changes have not been saved yet. Sign out
 * anyway?'); nothing waiting, it signs out at once as before.
 */
type Asking = { open: boolean; count: number; returnTo: HTMLElement | null };
// Kept (closed) after the answer, so the words stay while the dialog fades out.
let asking: Asking = { open: false, count: 0, returnTo: null };
const listeners = new Set<() => void>();

function setAsking(next: Asking) {
  asking = next;
  for (const listener of listeners) listener();
}

/** Drops the outbox and the stored cache, then ends the session. */
async function signOutNow(): Promise<void> {
  const userId = getSession()?.user.id;
  await discardOutbox().catch(() => undefined);
  if (userId !== undefined) await forgetPersistedCache(userId);
  await signOut();
}

/**
 * 'Sign out' from the menu or the palette. `returnTo`: where focus goes if the person stays (the
 * menu item that asked is gone by then).
 */
export async function requestSignOut(returnTo: HTMLElement | null = null): Promise<void> {
  const count = await waitingChanges().catch(() => 0);
  if (count > 0) setAsking({ open: true, count, returnTo });
  else await signOutNow();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The question, mounted once with the signed-in screens. */
export function SignOutQuestion() {
  const { open, count, returnTo } = useSyncExternalStore(subscribe, () => asking);
  return (
    <AlertDialog open={open} onOpenChange={(next) => next || setAsking({ ...asking, open: false })}>
      <AlertDialogContent
        className="sm:max-w-md"
        onCloseAutoFocus={(event) => {
          if (!returnTo?.isConnected) return;
          event.preventDefault();
          returnTo.focus();
        }}
      >
        <AlertDialogHeader>
          <AlertDialogTitle>{COPY.logOut}</AlertDialogTitle>
          <AlertDialogDescription>{OFFLINE_COPY.signOutWaiting(count)}</AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel>Cancel</AlertDialogCancel>
          <AlertDialogAction onClick={() => void signOutNow()}>
            {OFFLINE_COPY.signOutAnyway}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
