import type { UserRow } from '../db/schema';
import type { Invalidation, LiveBus } from '../live/bus';

/** How long a resolved session is trusted without asking the database again. */
export const SESSION_CACHE_MS = 5000;
/** Sessions held at most; the oldest go first. */
const MAX_ENTRIES = 10_000;

export interface CachedSession {
  user: UserRow;
  idHash: string;
  /** When the session expires, in ms since the epoch. */
  expiresAt: number;
}

interface Entry extends CachedSession {
  cachedAt: number;
}

/**
 * Resolved sessions by session id, for a few seconds (decision 023), so a read costs no round trip
 * for its session. Whatever ends a session or changes its user (sign-out, revocation, password,
 * two-factor, suspension, deletion) tells every instance through the live bus, and each forgets at
 * once. An instance that cannot hear the others (its LISTEN connection is down) serves nothing from
 * here until it can, and starts empty. A read that began before an invalidation does not cache its
 * result: a generation counter tells.
 */
export function createSessionCache(
  bus: Pick<LiveBus, 'invalidate' | 'onInvalidate'>,
  { ttlMs = SESSION_CACHE_MS, maxEntries = MAX_ENTRIES, now = Date.now } = {},
) {
  const entries = new Map<string, Entry>();
  let generation = 0;

  const forget = (message: Invalidation) => {
    if ('projects' in message) return;
    generation += 1;
    if ('all' in message) {
      entries.clear();
      return;
    }
    for (const [sessionId, entry] of entries) {
      if ('userId' in message ? entry.user.id === message.userId : entry.idHash === message.idHash) {
        entries.delete(sessionId);
      }
    }
  };
  const link = bus.onInvalidate(forget);

  return {
    /** The session when cached, fresh enough and not expired. */
    get(sessionId: string): CachedSession | undefined {
      const entry = entries.get(sessionId);
      if (!entry) return undefined;
      const at = now();
      if (at - entry.cachedAt >= ttlMs || entry.expiresAt <= at || !link.connected()) {
        entries.delete(sessionId);
        return undefined;
      }
      return entry;
    },

    /** Read before asking the database, and handed to `set` with what it answered. */
    generation: () => generation,

    set(sessionId: string, session: CachedSession, readAt: number): void {
      if (readAt !== generation || !link.connected()) return;
      entries.delete(sessionId);
      entries.set(sessionId, { ...session, cachedAt: now() });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },

    /** This instance forgets a session the database no longer holds. */
    drop(sessionId: string): void {
      entries.delete(sessionId);
    },

    /** Every instance forgets; resolves once the others have been told. */
    invalidate: (message: Invalidation) => bus.invalidate(message),

    size: () => entries.size,
  };
}

export type SessionCache = ReturnType<typeof createSessionCache>;
