import { useSyncExternalStore } from 'react';
import type { PublicUser } from '../../common/auth';
import { SESSION_STORAGE_KEYS } from '../../common/spec';

export type Session = { sessionId: string; user: PublicUser };

const KEYS: readonly string[] = Object.values(SESSION_STORAGE_KEYS);
const listeners = new Set<() => void>();
let current: Session | null | undefined;

/**
 * The stored user was written by this app, so a light shape check is enough to reject a value from an
 * older version or a hand edit. (Parsing with the Zod schema would load Zod on the login screen.)
 */
function readUser(): PublicUser | null {
  try {
    const user: unknown = JSON.parse(localStorage.getItem(SESSION_STORAGE_KEYS.user) ?? '');
    const ok =
      typeof user === 'object' && user !== null && 'username' in user && typeof user.username === 'string';
    return ok ? (user as PublicUser) : null;
  } catch {
    return null;
  }
}

function readStored(): Session | null {
  // Outside a browser (a test importing a module's copy, which loads the query client): no session.
  if (typeof localStorage === 'undefined') return null;
  const sessionId = localStorage.getItem(SESSION_STORAGE_KEYS.sessionId);
  if (!sessionId || localStorage.getItem(SESSION_STORAGE_KEYS.authenticated) !== 'true') return null;
  const user = readUser();
  return user ? { sessionId, user } : null;
}

function sameSession(a: Session | null | undefined, b: Session | null): boolean {
  if (!a || !b) return a === b;
  return a.sessionId === b.sessionId && JSON.stringify(a.user) === JSON.stringify(b.user);
}

/** Re-reads storage; listeners hear only of real changes, which keeps useSyncExternalStore snapshots stable. */
function refresh(): void {
  const next = readStored();
  if (sameSession(current, next)) return;
  current = next;
  for (const listener of listeners) listener();
}

/** Another tab signing in or out, or updating the user, takes effect here without a reload. */
function onStorage(event: StorageEvent): void {
  if (event.key === null || KEYS.includes(event.key)) refresh();
}

export function getSession(): Session | null {
  if (current === undefined) current = readStored();
  return current;
}

export function subscribeSession(listener: () => void): () => void {
  if (listeners.size === 0 && typeof window !== 'undefined') window.addEventListener('storage', onStorage);
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) window.removeEventListener('storage', onStorage);
  };
}

export function useSession(): Session | null {
  return useSyncExternalStore(subscribeSession, getSession);
}

export function setSession(sessionId: string, user: PublicUser): void {
  localStorage.setItem(SESSION_STORAGE_KEYS.sessionId, sessionId);
  localStorage.setItem(SESSION_STORAGE_KEYS.user, JSON.stringify(user));
  localStorage.setItem(SESSION_STORAGE_KEYS.authenticated, 'true');
  refresh();
}

/** Keeps the stored user in step with the server (an admin may have changed the account). */
export function updateUser(user: PublicUser): void {
  if (!getSession()) return;
  localStorage.setItem(SESSION_STORAGE_KEYS.user, JSON.stringify(user));
  refresh();
}

/** Clears every stored session key (spec §4: logout clears all stored data). */
export function clearSession(): void {
  for (const key of KEYS) localStorage.removeItem(key);
  refresh();
}
