import { sameValue } from './entries';

/** A field both sides changed: the server's value stays; the person's is offered back ('Use mine'). */
export interface MergeConflict {
  field: string;
  server: unknown;
  mine: unknown;
}

/**
 * Merges an offline edit the server answered 412 (issue 31). All three records are in the PATCH
 * body's shape, keyed by the edited fields: `before` the values the edit was made on, `mine` the
 * person's, `server` the task's now. A field the server did not change since `before` is sent again
 * (`resend`); one it changed to the person's value needs nothing; one it changed to something else
 * keeps the server's value and is a conflict.
 */
export function mergeConflict(
  before: Record<string, unknown>,
  mine: Record<string, unknown>,
  server: Record<string, unknown>,
): { resend: Record<string, unknown>; conflicts: MergeConflict[] } {
  const resend: Record<string, unknown> = {};
  const conflicts: MergeConflict[] = [];
  for (const [field, value] of Object.entries(mine)) {
    if (sameValue(server[field], value)) continue;
    if (sameValue(server[field], before[field])) resend[field] = value;
    else conflicts.push({ field, server: server[field], mine: value });
  }
  return { resend, conflicts };
}
