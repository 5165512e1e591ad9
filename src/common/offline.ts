import { counted } from './plural';

/**
 * Offline use and writes safe to repeat (issue 31): the header names, limits and words the server and
 * the browser share. The strings are the contract; each is here once.
 */

/** The IETF httpapi draft's request header: any POST, PATCH, PUT or DELETE under /api/ may carry one. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** On an answer given again for a repeated key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

export const IDEMPOTENCY_LIMITS = {
  /** 1-255 printable characters (ASCII 0x21-0x7E, and the space inside). */
  keyMaxLength: 255,
  /** How long a key and its answer are kept, per person. */
  ttlMs: 24 * 60 * 60 * 1000,
} as const;

/** 1-255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

export const IDEMPOTENCY_MESSAGES = {
  reused: 'This Idempotency-Key was used for another request',
  inFlight: 'A request with this Idempotency-Key is still being processed; try again shortly',
  invalid: 'Idempotency-Key must be 1-255 printable characters',
} as const;

export const TASK_VERSION_MESSAGES = {
  /** 412, with the current task: the If-Match version is not the task's. */
  changed: 'The task has changed since; here is its current version',
  ifMatchInvalid: 'If-Match must be the task\u2019s ETag, such as "3"',
} as const;

/** A task's ETag: its version, quoted (a strong validator). */
export const taskEtag = (version: number): string => `"${version}"`;

/** The version an If-Match header names (`"3"`, `W/"3"` or `3`), or undefined if it names none. */
export function versionOfEtag(value: string): number | undefined {
  const match = /^(?:W\/)?"?(\d{1,15})"?$/.exec(value.trim());
  return match ? Number(match[1]) : undefined;
}

/** The browser's words for offline use (issue 31). */
export const OFFLINE_COPY = {
  offline: 'Offline',
  /** 'Offline: 3 changes waiting' */
  offlineWaiting: (count: number) => `Offline: ${counted(count, 'change', 'changes')} waiting`,
  syncing: 'Syncing\u2026',
  needsConnection: 'Needs a connection',
  /** Asked before signing out with changes waiting. */
  signOutWaiting: (count: number) =>
    `${counted(count, 'change has', 'changes have')} not been saved yet. Sign out anyway?`,
  signOutAnyway: 'Sign out anyway',
  newVersion: 'A new version is ready.',
  reload: 'Reload',
  useMine: 'Use mine',
  /** '"Buy milk": its title was changed by Ana while you were offline. Yours: "Buy oat milk".' */
  conflict: (task: string, field: string, by: string, yours: string) =>
    `"${task}": its ${field} was changed by ${by} while you were offline. Yours: "${yours}".`,
  /** A change the server refused, taken back from the screen. */
  refused: (task: string, reason: string) => `"${task}": your change could not be saved. ${reason}`,
} as const;

// --- The outbox (issue 31, helper 'outbox'): its own words beyond the issue's. ---

const OUTBOX_FIELD_NAMES: Record<string, string> = {
  title: 'title',
  description: 'description',
  notes: 'notes',
  dueDate: 'due date',
  dueTime: 'due time',
  recurrence: 'repeat',
  recurrenceFrom: 'repeat',
  priority: 'priority',
  labelIds: 'labels',
  sectionId: 'section',
  completed: 'completion',
  archived: 'completion',
  projectId: 'project',
  parentId: 'parent task',
  assigneeIds: 'assignees',
};

export const OUTBOX_COPY = {
  /** A refusal without the server's own `{message}`. */
  refusedReason: 'The server refused it.',
  /** A conflict whose other author the task's activity does not name. */
  someoneElse: 'someone else',
  /** How a value reads in the conflict's 'Yours: "…"' when there is none. */
  none: 'none',
  /** The sentence's name of a task field: 'its due date was changed by Ana'. */
  fieldName: (field: string) => OUTBOX_FIELD_NAMES[field] ?? field,
  /** 'Use mine' for screen readers: how to do the same without the toast. */
  useMineAlt: 'Use mine: set your value again in the task',
} as const;
