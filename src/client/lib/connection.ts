import { useSyncExternalStore } from 'react';

/**
 * Whether the server can be reached (issue 10). A 503 (the database is away) or a network failure
 * puts the app in 'reconnecting': one calm notice instead of an error per request, and a gentle
 * poll of /readyz (1 s, growing to 10 s). Once it answers, the notice goes and every query the
 * screen shows is refetched (spec §9 leaves automatic query retries off: this is the retry).
 *
 * Whether the browser itself is offline (issue 13): navigator.onLine and its 'online'/'offline'
 * events. While offline the notice says so instead of 'Reconnecting…'; coming back online checks the
 * server at once rather than at the poll's next turn.
 */
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 10_000;

let reconnecting = false;
let online = typeof navigator === 'undefined' || navigator.onLine !== false;
/** Ends the poll's current wait early. */
let wake: (() => void) | undefined;
const listeners = new Set<() => void>();
const onRecovered = new Set<() => void>();

function notify() {
  for (const listener of listeners) listener();
}

function set(value: boolean) {
  if (reconnecting === value) return;
  reconnecting = value;
  notify();
}

function setOnline(value: boolean) {
  if (online === value) return;
  online = value;
  notify();
  if (value) wake?.();
}

if (typeof window !== 'undefined') {
  window.addEventListener('online', () => setOnline(true));
  window.addEventListener('offline', () => setOnline(false));
}

async function ready(): Promise<boolean> {
  try {
    return (await fetch('/readyz', { cache: 'no-store' })).ok;
  } catch {
    return false;
  }
}

async function poll() {
  let delay = FIRST_DELAY_MS;
  while (reconnecting) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delay);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = undefined;
    if (!online) continue;
    if (await ready()) {
      set(false);
      for (const callback of onRecovered) callback();
      return;
    }
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
}

/** The server said 503, or did not answer at all. */
export function reportUnreachable(): void {
  if (reconnecting) return;
  set(true);
  void poll();
}

export const isReconnecting = (): boolean => reconnecting;

/** Runs `callback` each time the server answers again; returns the unsubscribe. */
export function whenReconnected(callback: () => void): () => void {
  onRecovered.add(callback);
  return () => onRecovered.delete(callback);
}

/** The browser says it has no network (navigator.onLine is false). */
export const isOffline = (): boolean => !online;

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function useReconnecting(): boolean {
  return useSyncExternalStore(subscribe, isReconnecting);
}

export function useOffline(): boolean {
  return useSyncExternalStore(subscribe, isOffline);
}
