import { z } from 'zod';
import { agentSchema } from './agents';
import { idSchema } from './ids';
import { taskSchema } from './tasks';

/** Taking your data out and bringing tasks in (issue 13): the API contract, shared with the client. */

export const EXPORT_PATH = '/api/export';
export const IMPORT_PATH = '/api/import';
/** The multipart field that carries the file to import. */
export const IMPORT_FIELD = 'file';

export const DATA_LIMITS = {
  /** Largest file an import reads. */
  importBytes: 10 * 1024 * 1024,
  /** Errors listed in one answer; the rest are counted in `skipped`. */
  errorsListed: 100,
} as const;

export const EXPORT_FORMATS = ['json', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const exportQuerySchema = z.object({
  format: z.enum(EXPORT_FORMATS, { error: 'format must be json or csv' }).default('json'),
});

/** The columns of Tasklane's CSV, one row per task, in this order. */
export const CSV_COLUMNS = [
  'title',
  'description',
  'dueDate',
  'completed',
  'archived',
  'notes',
  'createdAt',
  'dueTime',
  'dueTimeZone',
  'recurrence',
  'recurrenceFrom',
  'priority',
  /** Issue 29: the parent's title path from the top ('Plan trip > Book flights'); empty for a top-level task. */
  'parent',
] as const;

/** Between the titles of a CSV `parent` path. */
export const PARENT_PATH_SEPARATOR = ' > ';

/** A checklist item as the JSON export holds it (its task holds it, in order). */
export const exportedChecklistItemSchema = z.object({ title: z.string(), done: z.boolean() });

/**
 * A task in the JSON export: the task as the API shows it, with its checklist items; without who
 * made it, its project, assignees and comment count, which belong to this server, not to the file.
 */
export const exportedTaskSchema = taskSchema
  .omit({
    userId: true,
    projectId: true,
    assigneeIds: true,
    commentCount: true,
    labels: true,
    // Issue 29: counted from the tasks and relations, not carried (`parentId` and `relations` are).
    subtasks: true,
    blockedBy: true,
    // Issue 31: this server's count of the task's changes, for If-Match; a new task starts again at 1.
    version: true,
  })
  .extend({
    checklistItems: z.array(exportedChecklistItemSchema),
  });

/** Issue 29: a relation between two tasks of the export, by their ids in the file, as stored (one record). */
export const exportedRelationSchema = z.object({
  taskId: z.number(),
  otherTaskId: z.number(),
  kind: z.enum(['blocks', 'relates_to', 'duplicate_of']),
});
export type ExportedRelation = z.infer<typeof exportedRelationSchema>;

/** GET /api/export?format=json: everything you own, and nothing of anyone else's. */
export const exportDocumentSchema = z.object({
  format: z.literal('tasklane'),
  version: z.literal(1),
  exportedAt: z.string(),
  tasks: z.array(exportedTaskSchema),
  agents: z.array(agentSchema),
  /** Issue 29: between tasks of this file (each task's `parentId` names its parent in it). */
  relations: z.array(exportedRelationSchema),
});
export type ExportDocument = z.infer<typeof exportDocumentSchema>;

export const importQuerySchema = z.object({
  dryRun: z
    .enum(['true', 'false'], { error: 'dryRun must be true or false' })
    .optional()
    .transform((v) => v === 'true'),
  /** The project the tasks go into (issue 21): one where the caller is editor or more; without it, the Inbox. */
  projectId: z.coerce.number({ error: 'projectId must be a number' }).pipe(idSchema('projectId')).optional(),
});

export const importErrorSchema = z.object({
  /** CSV: the line in the file (the header is 1). JSON: the task's place in `tasks` (the first is 1). */
  row: z.number(),
  message: z.string(),
});
export type ImportError = z.infer<typeof importErrorSchema>;

/**
 * POST /api/import: tasks created (or, with dryRun, that would be), rows left out and why, and
 * what was imported with something lost (a Todoist recurrence read as one date), for the preview.
 */
export const importResultSchema = z.object({
  imported: z.number(),
  skipped: z.number(),
  errors: z.array(importErrorSchema),
  notices: z.array(importErrorSchema),
});
export type ImportResult = z.infer<typeof importResultSchema>;

/** A file that cannot be read at all: nothing is imported. */
// Only a file that could not be read carries the counts and its line; any other 400 (no file, a
// body that is not multipart) is the plain `{message}` every error is.
export const importFailureSchema = importResultSchema.partial().extend({ message: z.string() });
export type ImportFailure = z.infer<typeof importFailureSchema>;

export const importBodySchema = z.object({ [IMPORT_FIELD]: z.file() });
