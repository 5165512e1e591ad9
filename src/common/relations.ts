import { z } from 'zod';
import { idParam, idSchema } from './ids';
import { TASKS_PATH } from './tasks';

/**
 * Dependencies between tasks (issue 29): the API contract, shared with the client. A relation is one
 * record seen from both sides: A `blocks` B is B `blocked_by` A; `relates_to` reads the same both
 * ways; A `duplicate_of` B is B `duplicated_by` A.
 */
export const RELATION_KINDS = [
  'blocks',
  'blocked_by',
  'relates_to',
  'duplicate_of',
  'duplicated_by',
] as const;
export type RelationKind = (typeof RELATION_KINDS)[number];

/** How a kind reads from the other task's side. */
export const INVERSE_RELATION: Record<RelationKind, RelationKind> = {
  blocks: 'blocked_by',
  blocked_by: 'blocks',
  relates_to: 'relates_to',
  duplicate_of: 'duplicated_by',
  duplicated_by: 'duplicate_of',
};

/** The words the card shows for each kind, seen from the task it is on. */
export const RELATION_LABELS: Record<RelationKind, string> = {
  blocks: 'Blocks',
  blocked_by: 'Blocked by',
  relates_to: 'Relates to',
  duplicate_of: 'Duplicate of',
  duplicated_by: 'Duplicated by',
};

export const relationsPath = (taskId: number) => `${TASKS_PATH}/${taskId}/relations`;
export const relationPath = (taskId: number, relationId: number) => `${relationsPath(taskId)}/${relationId}`;

export const RELATION_MESSAGES = {
  kindInvalid: `kind must be one of ${RELATION_KINDS.join(', ')}`,
  self: 'taskId must name another task: a task cannot be related to itself',
  duplicate: 'taskId: these tasks are already related this way',
  loop: 'taskId would make a loop of blocked tasks',
  notFound: 'Relation not found',
} as const;

/** GET /api/tasks/{id}/relations: one relation, seen from task `taskId`. */
export const relationSchema = z.object({
  id: z.number(),
  kind: z.enum(RELATION_KINDS),
  /** The task the relation is read from (the one in the path). */
  taskId: z.number(),
  otherTaskId: z.number(),
  /** The other task's project, for a link to it (the caller can see it, or the relation is not listed). */
  otherProjectId: z.number(),
  otherTitle: z.string(),
  otherCompleted: z.boolean(),
  createdAt: z.string(),
});
export type Relation = z.infer<typeof relationSchema>;

/** POST /api/tasks/{id}/relations: this task `kind` task `taskId`. */
export const createRelationBodySchema = z
  .strictObject({
    kind: z.enum(RELATION_KINDS, { error: RELATION_MESSAGES.kindInvalid }),
    taskId: idSchema('taskId'),
  })
  .meta({ example: { kind: 'blocked_by', taskId: 42 } });
export type CreateRelationBody = z.infer<typeof createRelationBodySchema>;

export const relationParamsSchema = z.object({ id: idParam(), relationId: idParam('relationId') });
