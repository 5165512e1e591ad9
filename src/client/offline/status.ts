import { OFFLINE_COPY } from '../../common/offline';
import type { OutboxStatus } from './outbox';

/**
 * What the header says about saving (issue 31): 'Offline', 'Offline: 3 changes waiting' while the
 * browser has no network, 'Syncing…' while the outbox is sent, nothing once everything is saved.
 * The server being down while the network is there stays the notice's 'Reconnecting…' (issue 10).
 */
export function statusText(offline: boolean, { waiting, syncing }: OutboxStatus): string | undefined {
  if (offline) return waiting > 0 ? OFFLINE_COPY.offlineWaiting(waiting) : OFFLINE_COPY.offline;
  return syncing ? OFFLINE_COPY.syncing : undefined;
}
