import { useSyncExternalStore } from 'react';

/**
 * Whether the server can be reached (issue 10). A 503 (the database is away) or a network failure
 * puts the app in 'reconnecting': one calm notice instead of an error per request, and a gentle
 * poll of /readyz (1 s, growing to 10 s). Once it answers, the notice goes and every query the
 * screen shows is refetched (spec §9 leaves automatic query retries off: this is the retry).
 */
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 10_000;

let reconnecting = false;
const listeners = new Set<() => void>();
const onRecovered = new Set<() => void>();

function set(value: boolean) {
  if (reconnecting === value) return;
  reconnecting = value;
  for (const listener of listeners) listener();
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
    await new Promise((resolve) => setTimeout(resolve, delay));
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

export function useReconnecting(): boolean {
  return useSyncExternalStore((listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, isReconnecting);
}
