import type { QueryClient } from '@tanstack/react-query';
import { clear, createStore, del, get, type UseStore, update } from 'idb-keyval';
import { useSyncExternalStore } from 'react';
import { type ActivityEntry, taskActivityPath } from '../../common/activity';
import { IDEMPOTENCY_KEY_HEADER, OFFLINE_COPY, OUTBOX_COPY, taskEtag } from '../../common/offline';
import { TASKS_PATH, type Task, taskPath } from '../../common/tasks';
import { apiRequest, errorStatus, serverMessage } from '../lib/api';
import { isOffline, isReconnecting, whenReconnected } from '../lib/connection';
import { getSession, subscribeSession } from '../lib/session';
import { patchCachedTask, screenTask, shownPatch } from '../tasks/api';
import { errorToast } from '../ui/toasts';
import { toast } from '../ui/use-toast';
import {
  bodyFieldsOf,
  carryVersion,
  FIELD_ACTIVITY,
  namesTempId,
  type OutboxEntry,
  outcomeOf,
  patchedTaskId,
  rewriteTempId,
  sameValue,
} from './entries';
import { mergeConflict } from './merge';
import { describeValue, ownLabelIds, replaceTempTask, takeBack } from './screen';

/**
 * The outbox (issue 31): writes made while offline, kept in IndexedDB and sent in order, each with
 * its own Idempotency-Key, once the server can be reached (docs/decisions/053-offline.md).
 *
 * - Stored with idb-keyval in its own database, one ordered list per person (`user:<id>`): only the
 *   signed-in person's entries are counted and sent, so nobody's change goes out under another's session.
 * - Sent on the browser's 'online', when the server answers again (connection.ts), at start, on
 *   sign-in and after a change is kept while the server can be reached; by one tab at a time (a Web
 *   Lock), and every tab hears of it (a BroadcastChannel: the status, and that its caches must be fetched again).
 * - In order. A network failure or a server error stops the run (the rest waits for the next); a
 *   refusal takes that change back and the run goes on; a 412 on a task edit merges (merge.ts).
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

const NAME = 'tasklane-outbox';
/** A repeat answered 409 (its first try still running): waits this long, doubling, this many times. */
const IN_FLIGHT_DELAY_MS = 500;
const IN_FLIGHT_TRIES = 6;
/** After a server error, the next run starts this long after, doubling up to the maximum. */
const RETRY_FIRST_MS = 2000;
const RETRY_MAX_MS = 60_000;

// ---------------------------------------------------------------------------------------------------
// Storage: one list per person, changed only inside an IndexedDB transaction (idb-keyval's update),
// so two tabs keeping changes at once both land.

/**
 * The app's query client, loaded when the outbox starts in a browser (lib/query-client reads the
 * session on load, which a unit test of a file that imports this one has not got).
 */
let queryClient: QueryClient;
/** Resolves once queryClient is there: a run waits for it. */
let clientReady: Promise<void> | undefined;

let store: UseStore | undefined;
/** Opened on first use: importing this file opens nothing (the unit tests, the login screen). */
const db = () => {
  store ??= createStore(NAME, 'entries');
  return store;
};
const listKey = (userId: number) => `user:${userId}`;
const currentUser = (): number | undefined => getSession()?.user.id;

async function readEntries(userId: number): Promise<OutboxEntry[]> {
  const entries = (await get<OutboxEntry[]>(listKey(userId), db())) ?? [];
  remember(userId, entries);
  return entries;
}

/** The signed-in person's task edits waiting, as last read: laid over what the server answers until saved. */
let waitingEdits: OutboxEntry[] = [];
function remember(userId: number, entries: OutboxEntry[]) {
  if (userId !== currentUser()) return;
  waitingEdits = entries.filter((entry) => patchedTaskId(entry) !== undefined);
  showEditsInCache();
}

const aboutTasks = (key: readonly unknown[]) => typeof key[0] === 'string' && key[0].startsWith(TASKS_PATH);

/** Lays the waiting edits over what is cached now (lists restored by an offline start before they were read). */
function showEditsInCache() {
  if (!queryClient || waitingEdits.length === 0) return;
  for (const query of queryClient.getQueryCache().findAll({ predicate: (q) => aboutTasks(q.queryKey) })) {
    const data = query.state.data;
    const shown = withWaitingEdits(data);
    if (shown !== data) queryClient.setQueryData(query.queryKey, shown);
  }
}

/** `data` (a list of tasks, or one task) with the waiting edits laid over it; the same object when none applies. */
function withWaitingEdits(data: unknown): unknown {
  const edit = <T extends Task>(task: T): T => {
    let shown = task;
    for (const entry of waitingEdits) {
      if (patchedTaskId(entry) !== task.id || typeof entry.body !== 'object' || entry.body === null) continue;
      const patch = shownPatch(queryClient, shown, entry.body);
      // Already shown (the optimistic write): the task keeps its identity, and its card its render.
      const current = shown as Record<string, unknown>;
      if (Object.entries(patch).every(([field, value]) => sameValue(current[field], value))) continue;
      shown = { ...shown, ...patch };
    }
    return shown;
  };
  if (Array.isArray(data)) {
    const edited = data.map((item) => (isTask(item) ? edit(item) : item));
    return edited.some((item, index) => item !== data[index]) ? edited : data;
  }
  return isTask(data) ? edit(data) : data;
}

/**
 * Until a kept edit is saved, what the server answers (a refetch once it can be reached again, before
 * the outbox has been sent) or what an offline start restores shows the edit, not the old value.
 */
function keepEditsShown() {
  queryClient.getQueryCache().subscribe((event) => {
    if (waitingEdits.length === 0) return;
    const fetched =
      event.type === 'added' ||
      (event.type === 'updated' &&
        ((event.action.type === 'success' && !event.action.manual) || event.action.type === 'setState'));
    const url = event.query.queryKey[0];
    if (!fetched || typeof url !== 'string' || !url.startsWith(TASKS_PATH)) return;
    const data = event.query.state.data;
    const shown = withWaitingEdits(data);
    // A manual write: it does not come back here.
    if (shown !== data) queryClient.setQueryData(event.query.queryKey, shown);
  });
}

async function changeEntries(
  userId: number,
  change: (entries: OutboxEntry[]) => OutboxEntry[],
): Promise<OutboxEntry[]> {
  let next: OutboxEntry[] = [];
  await update<OutboxEntry[]>(listKey(userId), (entries) => (next = change(entries ?? [])), db());
  remember(userId, next);
  setWaiting(userId, next.length);
  post({ type: 'changed', userId });
  return next;
}

/** A new Idempotency-Key: a UUID (crypto.randomUUID needs a secure context; plain-HTTP hosts get the same from random bytes). */
export function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// ---------------------------------------------------------------------------------------------------
// Status: this tab's view of the shared outbox, kept in step by the channel.

let status: OutboxStatus = { waiting: 0, syncing: false };
let localSyncing = false;
let remoteSyncing = false;
const listeners = new Set<() => void>();

function setStatus(next: OutboxStatus) {
  if (next.waiting === status.waiting && next.syncing === status.syncing) return;
  status = next;
  for (const listener of listeners) listener();
}

function setWaiting(userId: number, waiting: number) {
  if (userId === currentUser()) setStatus({ ...status, waiting });
}

function setSyncing(userId: number, syncing: boolean) {
  localSyncing = syncing;
  setStatus({ ...status, syncing: localSyncing || remoteSyncing });
  post({ type: 'syncing', userId, syncing });
}

async function refreshWaiting(): Promise<void> {
  const userId = currentUser();
  if (userId === undefined) {
    setStatus({ waiting: 0, syncing: false });
    return;
  }
  try {
    setWaiting(userId, (await readEntries(userId)).length);
  } catch {
    // No IndexedDB (a private window of an old browser): nothing is ever kept, so nothing waits.
  }
}

// ---------------------------------------------------------------------------------------------------
// Other tabs.

type Message =
  | { type: 'changed'; userId: number }
  | { type: 'syncing'; userId: number; syncing: boolean }
  /** A run emptied the outbox: every tab fetches what it shows again. */
  | { type: 'settled'; userId: number }
  /** A task made offline was created: every tab swaps its temporary id for the real one. */
  | { type: 'created'; userId: number; tempId: number; task: Task };

let channel: BroadcastChannel | undefined;
function post(message: Message) {
  try {
    channel?.postMessage(message);
  } catch {
    // A closed channel (the page is going away): the other tabs read the store themselves.
  }
}

function onMessage(message: Message) {
  if (message.userId !== currentUser()) return;
  if (message.type === 'changed') void refreshWaiting();
  else if (message.type === 'syncing') {
    remoteSyncing = message.syncing;
    setStatus({ ...status, syncing: localSyncing || remoteSyncing });
    // The tab that sent may be closing: once its lock is free this tab carries on, if anything is left.
    if (!message.syncing) void refreshWaiting();
  } else if (message.type === 'settled') settled();
  else if (message.type === 'created') replaceTempTask(queryClient, message.tempId, message.task);
}

const settledListeners = new Set<() => void>();

/** Runs `callback` in every tab each time the outbox has been sent and is empty; returns the unsubscribe. */
export function onOutboxSettled(callback: () => void): () => void {
  settledListeners.add(callback);
  return () => settledListeners.delete(callback);
}

/** The screen shows the server's state again: every task query is fetched again, once. */
function settled() {
  void queryClient.invalidateQueries({
    predicate: (query) => typeof query.queryKey[0] === 'string' && query.queryKey[0].startsWith(TASKS_PATH),
  });
  for (const callback of settledListeners) callback();
}

// ---------------------------------------------------------------------------------------------------
// Sending.

/** The server can be reached, as far as the app knows. */
const reachable = () => !isOffline() && !isReconnecting();

type Attempt = { status: number | undefined; response?: Response; error?: unknown };

async function attempt(entry: OutboxEntry): Promise<Attempt> {
  const headers: Record<string, string> = { [IDEMPOTENCY_KEY_HEADER]: entry.key };
  if (entry.baseVersion !== undefined && patchedTaskId(entry) !== undefined)
    headers['If-Match'] = taskEtag(entry.baseVersion);
  try {
    const response = await apiRequest(entry.method, entry.url, entry.body, { headers });
    return { status: response.status, response };
  } catch (error) {
    return { status: error instanceof TypeError ? undefined : (errorStatus(error) ?? 0), error };
  }
}

let running = false;
let again = false;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let retryDelay = RETRY_FIRST_MS;

function retryLater() {
  if (retryTimer !== undefined) return;
  retryTimer = setTimeout(() => {
    retryTimer = undefined;
    void flushOutbox();
  }, retryDelay);
  retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
}

async function withLock(run: () => Promise<void>): Promise<void> {
  const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
  // Without Web Locks (a plain-HTTP host) two tabs may both send: the Idempotency-Key keeps it once.
  if (!locks) return run();
  await locks.request(NAME, run);
}

/** Sends what waits, if the server can be reached; resolves once this tab's run has ended. */
export async function flushOutbox(): Promise<void> {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    // Not started (no browser, no IndexedDB): nothing is ever kept, so there is nothing to send.
    if (!clientReady) return;
    await clientReady;
    do {
      again = false;
      if (!reachable() || currentUser() === undefined) return;
      await withLock(run);
    } while (again);
  } catch (error) {
    console.warn('The outbox could not be sent', error);
  } finally {
    running = false;
  }
}

/** One run, holding the lock: entry after entry until none is left or one must wait. */
async function run(): Promise<void> {
  const userId = currentUser();
  if (userId === undefined) return;
  let entries = await readEntries(userId);
  setWaiting(userId, entries.length);
  if (entries.length === 0) return;
  setSyncing(userId, true);
  let sent = false;
  let inFlightTries = 0;
  try {
    while (entries.length > 0) {
      if (!reachable() || currentUser() !== userId) return;
      const entry = entries[0]!;
      const tried = await attempt(entry);
      const outcome = outcomeOf(tried.status, entry);
      if (outcome === 'later') {
        retryLater();
        return;
      }
      if (outcome === 'in-flight') {
        if (++inFlightTries > IN_FLIGHT_TRIES) {
          retryLater();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_DELAY_MS * 2 ** (inFlightTries - 1)));
      } else {
        inFlightTries = 0;
        sent = true;
        if (outcome === 'saved') await saved(userId, entry, tried.response!);
        else if (outcome === 'refused') await refused(userId, entry, tried.error);
        else await conflict(userId, entry, tried.error);
      }
      entries = await readEntries(userId);
    }
    retryDelay = RETRY_FIRST_MS;
    if (sent) {
      settled();
      post({ type: 'settled', userId });
    }
  } finally {
    setSyncing(userId, false);
  }
}

const isTask = (value: unknown): value is Task =>
  typeof value === 'object' && value !== null && typeof (value as Task).id === 'number' && 'title' in value;

async function saved(userId: number, entry: OutboxEntry, response: Response) {
  let body: unknown;
  try {
    body = response.status === 204 ? undefined : await response.json();
  } catch {
    body = undefined;
  }
  const created = entry.createsTaskId !== undefined && isTask(body) ? body : undefined;
  const version = isTask(body) && body.id === entry.task.id ? body.version : undefined;
  await changeEntries(userId, (entries) => {
    let rest = entries.filter((candidate) => candidate.key !== entry.key);
    if (created) rest = rewriteTempId(rest, entry.createsTaskId!, created);
    if (typeof version === 'number') rest = carryVersion(rest, entry, version);
    return rest;
  });
  if (created) {
    replaceTempTask(queryClient, entry.createsTaskId!, created);
    post({ type: 'created', userId, tempId: entry.createsTaskId!, task: created });
  }
}

async function refused(userId: number, entry: OutboxEntry, error: unknown) {
  const tempId = entry.createsTaskId;
  // A task the server would not create takes the changes made to it with it.
  await changeEntries(userId, (entries) =>
    entries.filter(
      (candidate) => candidate.key !== entry.key && (tempId === undefined || !namesTempId(candidate, tempId)),
    ),
  );
  takeBack(queryClient, entry.task.id);
  errorToast(OFFLINE_COPY.refused(entry.task.title, serverMessage(error) ?? OUTBOX_COPY.refusedReason));
}

/** The 412's current task, from the error apiRequest threw (`412: {message, task}`). */
function currentTaskOf(error: unknown): Task | undefined {
  const text = error instanceof Error ? /^\d{3}: ([\s\S]*)$/.exec(error.message)?.[1] : undefined;
  try {
    const body = JSON.parse(text ?? '') as { task?: unknown };
    return isTask(body.task) ? body.task : undefined;
  } catch {
    return undefined;
  }
}

/**
 * 412 on a task edit: the task changed since the edit was made. Fields only the person changed are
 * sent again on the current version (a new key: it is another request); a field both changed keeps
 * the server's value, and a toast says so with 'Use mine'.
 */
async function conflict(userId: number, entry: OutboxEntry, error: unknown) {
  const server = currentTaskOf(error);
  const version = server?.version;
  if (!server || typeof version !== 'number') {
    await refused(userId, entry, error);
    return;
  }
  const mine = (entry.body ?? {}) as Record<string, unknown>;
  const fields = Object.keys(mine);
  const theirs = bodyFieldsOf(server, fields, ownLabelIds(queryClient));
  // A field the caller kept no 'before' for counts as unchanged by others: the person's edit stands.
  const before = { ...theirs, ...entry.before };
  const { resend, conflicts } = mergeConflict(before, mine, theirs);
  await changeEntries(userId, (entries) =>
    entries.flatMap((candidate) => {
      if (candidate.key !== entry.key) return [candidate];
      if (Object.keys(resend).length === 0) return [];
      const again: OutboxEntry = {
        ...entry,
        key: newKey(),
        body: resend,
        baseVersion: version,
        before: Object.fromEntries(Object.keys(resend).map((field) => [field, theirs[field]])),
      };
      return [again];
    }),
  );
  if (conflicts.length > 0) void tellConflict(entry, server, conflicts);
}

/** Who last changed `field` of the task, other than the person: the conflict's toast names them. */
async function changedBy(taskId: number, field: string): Promise<string> {
  try {
    const response = await apiRequest('GET', taskActivityPath(taskId));
    const activity = (await response.json()) as ActivityEntry[];
    const me = currentUser();
    const kinds = FIELD_ACTIVITY[field] ?? [];
    const entry = activity.find((item) => kinds.includes(item.kind) && item.actorId !== me);
    return entry?.actorName ?? OUTBOX_COPY.someoneElse;
  } catch {
    return OUTBOX_COPY.someoneElse;
  }
}

async function tellConflict(
  entry: OutboxEntry,
  server: Task,
  conflicts: { field: string; mine: unknown; server: unknown }[],
) {
  const first = conflicts[0]!;
  const who = await changedBy(server.id, first.field);
  const mine = Object.fromEntries(conflicts.map(({ field, mine }) => [field, mine]));
  toast({
    description: OFFLINE_COPY.conflict(
      server.title,
      OUTBOX_COPY.fieldName(first.field),
      who,
      describeValue(queryClient, first.field, first.mine, server.projectId),
    ),
    // Until the person decides: their value is only here now.
    duration: Number.POSITIVE_INFINITY,
    action: {
      label: OFFLINE_COPY.useMine,
      altText: OUTBOX_COPY.useMineAlt,
      onClick: () => void sendMine(entry, server, mine),
    },
  });
}

/**
 * 'Use mine': the person's values again, kept and sent like any offline edit (so it is shown at once,
 * waits while offline, and merges again if the task changed once more), on the version the screen
 * knows now, with the values the conflict left as its 'before'.
 */
async function sendMine(entry: OutboxEntry, server: Task, mine: Record<string, unknown>) {
  const userId = currentUser();
  if (userId === undefined) return;
  const now = screenTask(queryClient, server.id) ?? server;
  patchCachedTask(queryClient, server.id, shownPatch(queryClient, now, mine));
  const change: OutboxChange = {
    method: 'PATCH',
    url: taskPath(server.id),
    body: mine,
    task: {
      id: server.id,
      title: typeof mine.title === 'string' ? mine.title : now.title || entry.task.title,
    },
    baseVersion: Math.max(now.version ?? 0, server.version),
    before: bodyFieldsOf(server, Object.keys(mine), ownLabelIds(queryClient)),
  };
  await changeEntries(userId, (entries) => [...entries, { ...change, key: newKey(), keptAt: Date.now() }]);
  void flushOutbox();
}

// ---------------------------------------------------------------------------------------------------
// The seam.

/**
 * Sends `change` at once when the server can be reached and nothing is waiting before it; otherwise
 * (or when the request fails on the network) keeps it in the outbox, under the same Idempotency-Key.
 * Resolves with the server's answer when it was sent, or undefined when it was kept: the caller has
 * already shown the change (optimistically). An answer other than 2xx to a direct send rejects as
 * apiRequest does (the forms show the server's message).
 */
export async function sendOrKeep(change: OutboxChange): Promise<Response | undefined> {
  const userId = currentUser();
  const entry: OutboxEntry = { ...change, key: newKey(), keptAt: Date.now() };
  const headers = { [IDEMPOTENCY_KEY_HEADER]: entry.key };
  // Signed out: nothing can be kept for anyone.
  if (userId === undefined) return apiRequest(change.method, change.url, change.body, { headers });
  let waiting: number;
  try {
    waiting = (await readEntries(userId)).length;
  } catch {
    // No IndexedDB: the change goes straight to the server, as before the outbox.
    return apiRequest(change.method, change.url, change.body, { headers });
  }
  if (reachable() && waiting === 0) {
    try {
      // Online, an edit is sent without If-Match, as before: the last write wins.
      return await apiRequest(change.method, change.url, change.body, { headers });
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      // The request may have reached the server: kept under the same key, a repeat is answered, not redone.
    }
  }
  await changeEntries(userId, (entries) => [...entries, entry]);
  if (reachable()) void flushOutbox();
  return undefined;
}

export function useOutboxStatus(): OutboxStatus {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => status,
  );
}

/** How many changes are waiting (for the sign-out question). */
export async function waitingChanges(): Promise<number> {
  const userId = currentUser();
  if (userId === undefined) return 0;
  try {
    return (await readEntries(userId)).length;
  } catch {
    return 0;
  }
}

/** Forgets every waiting change (signing out): the person's, or everyone's with nobody signed in. */
export async function discardOutbox(): Promise<void> {
  const userId = currentUser();
  try {
    if (userId === undefined) await clear(db());
    else await del(listKey(userId), db());
  } catch {
    // No IndexedDB: nothing was kept.
  }
  if (userId !== undefined) {
    setWaiting(userId, 0);
    post({ type: 'changed', userId });
  }
}

// ---------------------------------------------------------------------------------------------------
// Start: in a browser, once this file is loaded.

async function start() {
  clientReady = import('../lib/query-client').then((module) => {
    queryClient = module.queryClient;
  });
  await clientReady;
  keepEditsShown();
  showEditsInCache();
  if (typeof BroadcastChannel !== 'undefined') {
    channel = new BroadcastChannel(NAME);
    channel.onmessage = (event: MessageEvent<Message>) => onMessage(event.data);
  }
  window.addEventListener('online', () => void flushOutbox());
  whenReconnected(() => void flushOutbox());
  let signedIn = currentUser();
  subscribeSession(() => {
    if (currentUser() === signedIn) return;
    signedIn = currentUser();
    remoteSyncing = false;
    void refreshWaiting().then(flushOutbox);
  });
  void refreshWaiting().then(flushOutbox);
}

if (typeof window !== 'undefined' && typeof indexedDB !== 'undefined') void start();
