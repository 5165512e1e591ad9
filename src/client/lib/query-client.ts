import { QueryClient, type QueryFunction } from '@tanstack/react-query';
import { forgetPersistedCache } from '../offline/persist';
import { apiRequest, errorStatus } from './api';
import { whenReconnected } from './connection';
import { searchParams } from './search-params';
import { getSession, subscribeSession } from './session';

/**
 * GETs the query key's first element (a URL) and parses the JSON answer (spec §7, §8). A second
 * element, when there is one, holds query parameters (a filtered task list).
 */
export function getQueryFn<T>({ on401 }: { on401: 'returnNull' | 'throw' }): QueryFunction<T | null> {
  return async ({ queryKey, signal }) => {
    const [url, params] = queryKey;
    const query = params ? `?${searchParams(params as Record<string, string | string[]>)}` : '';
    try {
      const res = await apiRequest('GET', `${String(url)}${query}`, undefined, { signal });
      return (await res.json()) as T;
    } catch (error) {
      if (on401 === 'returnNull' && errorStatus(error) === 401) return null;
      throw error;
    }
  };
}

/** Spec §9: no retry, no refetch on focus, no polling, data never stale. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      queryFn: getQueryFn({ on401: 'throw' }),
      retry: false,
      refetchOnWindowFocus: false,
      refetchInterval: false,
      staleTime: Number.POSITIVE_INFINITY,
    },
    mutations: { retry: false },
  },
});

// Cached data belongs to one session: drop it whenever the session ends or another begins, whether by
// logout, an expired session or another tab. The copy kept for offline starts (offline/persist.ts)
// goes with it, unless the same person is still signed in.
let cachedFor = getSession();
subscribeSession(() => {
  const session = getSession();
  if (session?.sessionId === cachedFor?.sessionId) return;
  const before = cachedFor?.user.id;
  cachedFor = session;
  queryClient.clear();
  if (before !== undefined && before !== session?.user.id) void forgetPersistedCache(before);
});

// Back from an outage: whatever the screen shows is fetched again.
whenReconnected(() => void queryClient.invalidateQueries());
