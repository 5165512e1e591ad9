import { TASKS_PATH, type Task } from '../../common/tasks';
import type { OutboxChange } from './outbox';

/**
 * The outbox's pure rules (issue 31): what an entry is, what an answer means for it, and how a task
 * made offline takes its real id in the entries after it. No IndexedDB, no network: unit tested.
 */

/** One kept change, as stored. */
export interface OutboxEntry extends OutboxChange {
  /** Its Idempotency-Key: made with the entry, the same on every try (a new one only for a merge's new body). */
  key: string;
  /** When it was kept (ms since the epoch). */
  keptAt: number;
}

/** What to do with an entry after one try. */
export type Outcome =
  /** Saved (2xx, or the first answer replayed): remove it. */
  | 'saved'
  /** The server will not take it (403, 404, 410, 422, other 4xx): remove it, take it back, say so. */
  | 'refused'
  /** 409: the same key is still being processed (another tab, a lost answer's first try): try again shortly. */
  | 'in-flight'
  /** 412 on a task PATCH: the task changed since; merge. */
  | 'conflict'
  /** The server cannot be reached or is away (network failure, 5xx, 401 until signed in again): stop, stay waiting. */
  | 'later';

const TASK_PATCH = new RegExp(`^${TASKS_PATH}/(-?\\d+)$`);

/** The task a `PATCH /api/tasks/:id` edits, if the entry is one. */
export function patchedTaskId(change: Pick<OutboxChange, 'method' | 'url'>): number | undefined {
  const match = change.method === 'PATCH' ? TASK_PATCH.exec(change.url) : null;
  return match ? Number(match[1]) : undefined;
}

/** `status` undefined: the request failed on the network (fetch's TypeError). */
export function outcomeOf(status: number | undefined, change: Pick<OutboxChange, 'method' | 'url'>): Outcome {
  if (status === undefined) return 'later';
  if (status >= 200 && status < 300) return 'saved';
  if (status === 409) return 'in-flight';
  if (status === 412) return patchedTaskId(change) === undefined ? 'refused' : 'conflict';
  // 401: the session ended; the entry is the person's and waits for them to sign in again.
  // 408 and 429: try again later, as for a server error.
  if (status === 401 || status === 408 || status === 429) return 'later';
  if (status >= 400 && status < 500) return 'refused';
  return 'later';
}

/** Body keys that name a task (or a list of tasks): a temporary id there is replaced with the real one. */
const ID_KEY = /(^id$|Id$|Ids$)/;

function rewriteIds(value: unknown, from: number, to: number, underIdKey: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteIds(item, from, to, underIdKey));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, rewriteIds(inner, from, to, ID_KEY.test(key))]),
    );
  }
  return underIdKey && value === from ? to : value;
}

/**
 * Once the task made offline as `tempId` is created as `task`, the entries after it name the real id:
 * in their URLs (`/api/tasks/<tempId>` and below), in body fields that hold task ids (`taskId`,
 * `parentId`, `afterId`, `taskIds`...) and in the task they are about. An edit of the new task is
 * then made on its first version.
 */
export function rewriteTempId(
  entries: OutboxEntry[],
  tempId: number,
  task: Pick<Task, 'id'> & { version?: number },
): OutboxEntry[] {
  const prefix = `${TASKS_PATH}/${tempId}`;
  const realPrefix = `${TASKS_PATH}/${task.id}`;
  return entries.map((entry) => {
    const urlNames =
      entry.url === prefix || entry.url.startsWith(`${prefix}/`) || entry.url.startsWith(`${prefix}?`);
    const url = urlNames ? realPrefix + entry.url.slice(prefix.length) : entry.url;
    const next: OutboxEntry = {
      ...entry,
      url,
      body: entry.body === undefined ? undefined : rewriteIds(entry.body, tempId, task.id, false),
      task: entry.task.id === tempId ? { ...entry.task, id: task.id } : entry.task,
    };
    // Made on the screen's copy of a task the server did not have yet: it stands on the first version.
    if (urlNames && patchedTaskId(next) === task.id && task.version !== undefined)
      next.baseVersion = task.version;
    return next;
  });
}

/** Whether an entry depends on the task made as `tempId` (named in its URL, body or task). */
export function namesTempId(entry: OutboxEntry, tempId: number): boolean {
  const probe = rewriteTempId([entry], tempId, { id: 0 })[0]!;
  return JSON.stringify(probe) !== JSON.stringify(entry);
}

/**
 * A change to a task sent with If-Match was saved, and the server answered its new `version`: the
 * later entries about the same task made on the version this one was made on (or an older one) were
 * made on top of this change, so they now stand on the new version and need no merge. (After a change
 * sent without If-Match, another person's change may be in the new version: those entries keep their
 * base, and a 412 merges them.)
 */
export function carryVersion(entries: OutboxEntry[], saved: OutboxEntry, version: number): OutboxEntry[] {
  return entries.map((entry) =>
    entry !== saved &&
    entry.task.id === saved.task.id &&
    entry.baseVersion !== undefined &&
    // Sent with If-Match, the saved change stood on its base: nobody else's change is in `version`.
    saved.baseVersion !== undefined &&
    entry.baseVersion <= saved.baseVersion &&
    entry.baseVersion < version
      ? { ...entry, baseVersion: version }
      : entry,
  );
}

/**
 * A task's value of each edited field, in the PATCH body's shape (labels are `labelIds`, sorted), so
 * the person's edit, the values before it and the server's current task compare field by field. A
 * PATCH's labelIds replace only the person's own labels: given `ownLabels`, only those are read, so a
 * label someone else put on the task is no change of theirs.
 */
export function bodyFieldsOf(
  task: Partial<Task>,
  fields: readonly string[],
  ownLabels?: ReadonlySet<number>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (field === 'labelIds')
      out[field] = (task.labels ?? [])
        .map((label) => label.id)
        .filter((id) => !ownLabels || ownLabels.has(id))
        .sort((a, b) => a - b);
    else out[field] = (task as Record<string, unknown>)[field] ?? null;
  }
  return out;
}

/** Structural equality for the JSON values of a task's fields; a list of label ids in any order. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    const sort = (list: unknown[]) => [...list].map((item) => JSON.stringify(item)).sort();
    return JSON.stringify(sort(a)) === JSON.stringify(sort(b));
  }
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** The activity kinds that record a change to each field: who changed it, for the conflict's toast. */
export const FIELD_ACTIVITY: Record<string, readonly string[]> = {
  title: ['renamed'],
  description: ['description_changed'],
  dueDate: ['due_changed'],
  dueTime: ['due_changed'],
  priority: ['priority_changed'],
  labelIds: ['labels_changed'],
  sectionId: ['moved'],
  completed: ['completed', 'restored'],
  archived: ['completed', 'restored'],
  projectId: ['moved'],
  parentId: ['moved_under', 'made_top_level'],
  assigneeIds: ['assigned', 'unassigned'],
};
