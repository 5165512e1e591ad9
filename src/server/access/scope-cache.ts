import type { Invalidation, LiveBus } from '../live/bus';
import type { ListScope } from '.';

/** How long a task list's scope is trusted without asking the database again. */
export const SCOPE_CACHE_MS = 2000;
/** Scopes held at most; the oldest go first. */
const MAX_ENTRIES = 10_000;

interface Entry extends ListScope {
  cachedAt: number;
}

/**
 * The task lists' scopes (the caller's role in the project and the project's list version) by
 * caller and project, for at most two seconds (decision 029), so serving a cached list costs no
 * round trip on PostgreSQL. Every change to a project's tasks or members tells every instance
 * through the live bus ({projects}) before its live event goes out on the same channel, so an
 * instance that hears the event has already forgotten the scope. An instance that cannot hear the
 * others serves nothing from here; a read that began before an invalidation does not cache its
 * result. A change made behind the app's back (an operator's SQL) shows within the two seconds.
 * Only the lists use it: every other route asks the database each time.
 */
export function createScopeCache(
  bus: Pick<LiveBus, 'onInvalidate'>,
  { ttlMs = SCOPE_CACHE_MS, maxEntries = MAX_ENTRIES, now = Date.now } = {},
) {
  const entries = new Map<string, Entry>();
  let generation = 0;
  const link = bus.onInvalidate((message: Invalidation) => {
    if ('userId' in message || 'idHash' in message) return;
    generation += 1;
    if ('all' in message) {
      entries.clear();
      return;
    }
    const projects = new Set(message.projects);
    for (const [key, entry] of entries) if (projects.has(entry.projectId)) entries.delete(key);
  });
  const keyOf = (userId: number, projectId: number | undefined) => `${userId}:${projectId ?? 'inbox'}`;

  return {
    get(userId: number, projectId: number | undefined): ListScope | undefined {
      const key = keyOf(userId, projectId);
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (now() - entry.cachedAt >= ttlMs || !link.connected()) {
        entries.delete(key);
        return undefined;
      }
      return entry;
    },

    /** Read before asking the database, and handed to `set` with what it answered. */
    generation: () => generation,

    set(userId: number, projectId: number | undefined, scope: ListScope, readAt: number): void {
      if (readAt !== generation || !link.connected()) return;
      const key = keyOf(userId, projectId);
      entries.delete(key);
      entries.set(key, { ...scope, cachedAt: now() });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
  };
}

export type ScopeCache = ReturnType<typeof createScopeCache>;
