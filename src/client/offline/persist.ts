import type { DehydratedState, Query } from '@tanstack/react-query';
import type {
  PersistedClient,
  Persister,
  PersistQueryClientOptions,
} from '@tanstack/react-query-persist-client';
import { createStore, del, get, set, type UseStore } from 'idb-keyval';
import { ARCHIVED_TASKS_PATH, TASKS_PATH } from '../../common/tasks';
import { isOffline } from '../lib/connection';
import { getSession } from '../lib/session';

/**
 * What a reload without a connection shows (issue 31): TanStack Query's cache, persisted to
 * IndexedDB with idb-keyval (TanStack's documented pattern), one record per person.
 *
 * - What: the lists the person has seen (the Inbox, each project's list, Today and Upcoming, the
 *   archive's first page), the tasks, checklists and comments opened, labels, saved filters,
 *   projects, members, sections and file counts. Nothing else: not search or filtered results, not
 *   the admin screens, not AI runs. The session's user is kept by lib/session.ts (localStorage).
 * - For how long: a week (MAX_AGE_MS), counted from the last save. A week covers a trip or a
 *   weekend away; past it, the lists are likely wrong enough to mislead, and the first load online
 *   replaces them anyway.
 * - Whose: under the person's user id, deleted on sign-out, when the session ends (a 401, another
 *   tab signing out) and when another person signs in, so nobody sees another's tasks.
 * - When it is read: into the cache only when the page starts with the browser offline. Online, the
 *   screens fetch as they always did (spec §9); what they load is saved, and the lists seen on
 *   earlier visits are carried over until the page has its own (withCarried).
 */

/** Grows whenever what is stored changes shape: an older record is then dropped, not misread. */
export const STORAGE_FORMAT = 1;
export const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** The archive is kept as its first page: enough to look something up, not the whole history. */
export const ARCHIVE_FIRST_PAGE = 50;
/** Cache events come in bursts (a fetch is several): one write per burst. */
const WRITE_DELAY_MS = 250;

type DehydratedQuery = DehydratedState['queries'][number];

const BUSTER = `tasklane-${STORAGE_FORMAT}`;
let opened: UseStore | undefined;
/** Opened on first use: importing this file opens nothing (unit tests, the login screen). */
const store = () => {
  opened ??= createStore('tasklane-query-cache', 'clients');
  return opened;
};
const recordKey = (userId: number) => `user:${userId}`;

/** Parameters of a task list that the stored lists may have: the scope and Today's/Upcoming's window. */
const LIST_PARAMS = new Set(['projectId', 'assignee', 'dueFrom', 'dueTo']);
const PER_TASK = /^\/api\/tasks\/-?\d+(\/(checklist|comments))?$/;
const PER_PROJECT = /^\/api\/projects(\/\d+\/sections)?$/;
const WHOLE = new Set(['/api/labels', '/api/filters', '/api/files/counts']);

/** Whether a query of this key is kept for an offline start. */
export function isStoredKey(queryKey: readonly unknown[]): boolean {
  const [path, params, more] = queryKey;
  if (typeof path !== 'string') return false;
  if (path === TASKS_PATH || path === ARCHIVED_TASKS_PATH) {
    if (params === undefined) return queryKey.length === 1;
    return (
      queryKey.length === 2 &&
      typeof params === 'object' &&
      params !== null &&
      Object.keys(params).every((name) => LIST_PARAMS.has(name))
    );
  }
  // A project's members: [PROJECTS_PATH, id, 'members'].
  if (path === '/api/projects' && typeof params === 'number')
    return more === 'members' && queryKey.length === 3;
  if (queryKey.length !== 1) return false;
  return PER_TASK.test(path) || PER_PROJECT.test(path) || WHOLE.has(path);
}

const shouldDehydrateQuery = (query: Query) =>
  query.state.status === 'success' && isStoredKey(query.queryKey);

/** The archive's lists cut to their first page. */
function trimmed(client: PersistedClient): PersistedClient {
  const queries = client.clientState.queries.map((query) => {
    const data = query.state.data;
    if (
      query.queryKey[0] !== ARCHIVED_TASKS_PATH ||
      !Array.isArray(data) ||
      data.length <= ARCHIVE_FIRST_PAGE
    )
      return query;
    return { ...query, state: { ...query.state, data: data.slice(0, ARCHIVE_FIRST_PAGE) } };
  });
  return { ...client, clientState: { ...client.clientState, queries } };
}

const currentKey = (): string | undefined => {
  const userId = getSession()?.user.id;
  return userId === undefined ? undefined : recordKey(userId);
};

let pending: { key: string; client: PersistedClient } | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
/** Grows with each deletion: a write begun before it is dropped, not left to bring the data back. */
let generation = 0;
/** Queries this page has had in its cache (their hashes): the stored copy of these is this page's. */
const seen = new Set<string>();
/** The stored record as this page found it, read once per person. */
let found: { key: string; queries: Promise<DehydratedQuery[]> } | undefined;

function foundQueries(key: string): Promise<DehydratedQuery[]> {
  if (found?.key !== key) {
    const queries = get<PersistedClient>(key, store())
      .then((client) => (client?.buster === BUSTER ? client.clientState.queries : []))
      .catch(() => []);
    found = { key, queries };
  }
  return found.queries;
}

/**
 * An online start begins with an empty cache and loads only the screen it shows: the lists seen on
 * earlier visits are carried over (each for a week at most) unless this page has had them itself,
 * so a reload on Upcoming does not forget the Inbox.
 */
async function withCarried(key: string, client: PersistedClient): Promise<PersistedClient> {
  const oldest = Date.now() - MAX_AGE_MS;
  const carried = (await foundQueries(key)).filter(
    (query) => !seen.has(query.queryHash) && query.state.dataUpdatedAt >= oldest,
  );
  if (carried.length === 0) return client;
  const queries = [...client.clientState.queries, ...carried];
  return { ...client, clientState: { ...client.clientState, queries } };
}

/** Writes the latest state now, if one waits. */
export async function flushPersistedCache(): Promise<void> {
  clearTimeout(timer);
  timer = undefined;
  const next = pending;
  pending = undefined;
  if (!next) return;
  const started = generation;
  const client = await withCarried(next.key, next.client);
  if (started !== generation) return;
  await set(next.key, client, store()).catch(() => undefined);
}

if (typeof document !== 'undefined') {
  // Read ahead, so a write as the page goes away has nothing to wait for but IndexedDB.
  const key = currentKey();
  if (key) void foundQueries(key);
  // A tab being closed or hidden saves what it has before it may be gone.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') void flushPersistedCache();
  });
  window.addEventListener('pagehide', () => void flushPersistedCache());
}

/** Deletes a person's stored cache (sign-out, the session ended, another person signed in). */
export async function forgetPersistedCache(userId: number): Promise<void> {
  const key = recordKey(userId);
  generation += 1;
  written = undefined;
  if (pending?.key === key) pending = undefined;
  if (found?.key === key) found = undefined;
  seen.clear();
  await del(key, store()).catch(() => undefined);
}

/**
 * What the last write held: each stored query and when its data last changed. TanStack calls the
 * persister on every cache event (a fetch starting, an observer coming or going); most change no
 * stored data, and writing the whole cache again for them cost the browser a structured clone of
 * every list each quarter second while the person worked.
 */
let written: string | undefined;
const contentOf = (key: string, client: PersistedClient) =>
  `${key}|${client.clientState.queries.map((query) => `${query.queryHash}@${query.state.dataUpdatedAt}.${query.state.dataUpdateCount}`).join('|')}`;

export const persister: Persister = {
  persistClient(client) {
    const key = currentKey();
    if (!key) return;
    const content = contentOf(key, client);
    if (content === written) return;
    written = content;
    for (const query of client.clientState.queries) seen.add(query.queryHash);
    pending = { key, client: trimmed(client) };
    timer ??= setTimeout(() => void flushPersistedCache(), WRITE_DELAY_MS);
  },
  async restoreClient() {
    const key = currentKey();
    if (!key || !isOffline()) return undefined;
    return get<PersistedClient>(key, store());
  },
  async removeClient() {
    const key = currentKey();
    if (key) await del(key, store());
  },
};

/** The options of SignedInApp's PersistQueryClientProvider. */
export const persistOptions: Omit<PersistQueryClientOptions, 'queryClient'> = {
  persister,
  maxAge: MAX_AGE_MS,
  buster: BUSTER,
  dehydrateOptions: {
    shouldDehydrateQuery,
    // The outbox keeps the changes waiting in a store of its own (offline/outbox.ts).
    shouldDehydrateMutation: () => false,
  },
};
