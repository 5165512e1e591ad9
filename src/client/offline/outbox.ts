import { useSyncExternalStore } from 'react';
import { apiRequest } from '../lib/api';

/**
 * The outbox (issue 31): writes made while offline, kept in IndexedDB and sent in order, each with
 * its own Idempotency-Key, once the server can be reached. SEAM: this file states the contract the
 * rest of the client uses; the outbox's owner fills it in (docs/decisions/053-offline.md).
 */

export type OutboxMethod = 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** One write, as the screen made it. */
export interface OutboxChange {
  method: OutboxMethod;
  /** Under /api/. A task made offline is named by its temporary id (negative) until it is created. */
  url: string;
  body?: unknown;
  /** The task the change is about: named in a refusal's or a conflict's toast, taken back on refusal. */
  task: { id: number; title: string };
  /** PATCH /api/tasks/:id only: the version the edit was made on, sent as If-Match. */
  baseVersion?: number;
  /** PATCH /api/tasks/:id only: the edited fields' values before the edit, to merge a 412. */
  before?: Record<string, unknown>;
  /** POST /api/tasks only: the temporary id the screen shows until the server answers the real one. */
  createsTaskId?: number;
}

export interface OutboxStatus {
  /** Changes kept and not yet saved. */
  waiting: number;
  /** The outbox is being sent now. */
  syncing: boolean;
}

const idle: OutboxStatus = { waiting: 0, syncing: false };

/**
 * Sends `change` at once when the server can be reached and nothing is waiting before it; otherwise
 * (or when the request fails on the network) keeps it in the outbox, under the same Idempotency-Key.
 * Resolves with the server's answer when it was sent, or undefined when it was kept: the caller has
 * already shown the change (optimistically).
 */
export async function sendOrKeep(change: OutboxChange): Promise<Response | undefined> {
  return apiRequest(change.method, change.url, change.body);
}

export function useOutboxStatus(): OutboxStatus {
  return useSyncExternalStore(
    () => () => undefined,
    () => idle,
  );
}

/** How many changes are waiting (for the sign-out question). */
export async function waitingChanges(): Promise<number> {
  return 0;
}

/** Forgets every waiting change (signing out). */
export async function discardOutbox(): Promise<void> {}
