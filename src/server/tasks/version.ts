import type { FastifyReply } from 'fastify';
import { sql } from 'kysely';
import { z } from 'zod';
import { TASK_VERSION_MESSAGES, taskEtag, versionOfEtag } from '../../common/offline';
import type { Task } from '../../common/tasks';
import { HttpError } from '../http/errors';

/**
 * Issue 31: a task's `version` grows by one with every change to its row, whatever path writes it
 * (an edit, completing or restoring, a move or reorder, its checklist's or comments' counts, its
 * labels or assignees, a label renamed, CalDAV, an import's nesting), so an `If-Match` names exactly
 * the task a client last saw. Every update of `tasks` sets it with this and nothing else decides
 * it: versions.test.ts reads the server's source and fails on a statement that leaves it out.
 */
export const nextVersion = sql<number>`tasks.version + 1`;

/** What `set()` takes: `.set({ ...changes, ...versionBump })`. */
export const versionBump = { version: nextVersion } as const;

/** 412: the task changed since the version the request named; the answer carries it as it is now. */
export class TaskChangedError extends HttpError {
  constructor(readonly task: Task) {
    super(412, TASK_VERSION_MESSAGES.changed, { ETag: taskEtag(task.version) }, { task });
  }
}

/** Any existing task, whatever its version (RFC 9110 §13.1.1). */
const ANY = '*';

const isIfMatch = (value: string) => value.trim() === ANY || versionOfEtag(value) !== undefined;

/** A PATCH's optional If-Match; other headers pass through untouched (Fastify keeps what this returns). */
export const ifMatchHeadersSchema = z.looseObject({
  'if-match': z.string().refine(isIfMatch, TASK_VERSION_MESSAGES.ifMatchInvalid).optional().meta({
    description:
      'The task\u2019s `ETag` (`"3"`) from `GET /api/tasks/{id}` or an earlier answer, or `*` for any version: the change is made only while the task is at that version, else 412.',
  }),
});

/** The version an If-Match requires; undefined for none or `*` (the task only has to exist). */
export function requiredVersion(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === ANY) return undefined;
  const version = versionOfEtag(value);
  if (version === undefined) throw new HttpError(400, TASK_VERSION_MESSAGES.ifMatchInvalid);
  return version;
}

export const ETAG_DESCRIPTION =
  'The task\u2019s version (`"3"`): send it back as `If-Match` to change it safely.';

/** The task as the answer, with its version as the ETag. */
export function withEtag(reply: FastifyReply, task: Task): Task {
  reply.header('etag', taskEtag(task.version));
  return task;
}
