import { z } from 'zod';
import { idSchema } from './ids';
import { VALIDATION } from './spec';

/** A task as the API returns it (spec §3), plus timestamps. */
export const taskSchema = z.object({
  id: z.number(),
  userId: z.number(),
  title: z.string(),
  description: z.string().nullable(),
  /** YYYY-MM-DD or null */
  dueDate: z.string().nullable(),
  completed: z.boolean(),
  archived: z.boolean(),
  position: z.number(),
  contextId: z.number().nullable(),
  notes: z.string().nullable(),
  aiDraft: z.string().nullable(),
  aiAssisted: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  archivedAt: z.string().nullable(),
  /** The task's checklist: items done and in all. */
  checklist: z.object({ done: z.number(), total: z.number() }),
});
export type Task = z.infer<typeof taskSchema>;

/** The task query keys: each is also the URL a default query GETs (spec §7). */
export const TASKS_PATH = '/api/tasks';
export const ARCHIVED_TASKS_PATH = '/api/tasks/archived';
export const taskPath = (id: number) => `${TASKS_PATH}/${id}`;

/** Field limits shared by the forms and the routes. */
export const TASK_LIMITS = {
  titleMax: 200,
  descriptionMax: 10_000,
  notesMax: 50_000,
  aiDraftMax: 50_000,
  reorderMax: 10_000,
  queryMax: 500,
} as const;

export const TASK_MESSAGES = {
  dueDateInvalid: 'dueDate must be a real date written YYYY-MM-DD',
  moveAfterItself: 'afterId must name another task',
  reorderEmpty: 'taskIds must list at least one task',
  agentNotFound: 'Agent not found',
} as const;

const titleSchema = z
  .string({
    // A missing title gets the spec's words; a wrong type falls through to the message naming the type.
    error: (issue) => (issue.input === undefined ? VALIDATION.taskTitleRequired : undefined),
  })
  .trim()
  .min(1, VALIDATION.taskTitleRequired)
  .max(TASK_LIMITS.titleMax, `title must be at most ${TASK_LIMITS.titleMax} characters`);

/** Trimmed; empty means no description (spec §5). */
const descriptionSchema = z
  .string()
  .trim()
  .max(TASK_LIMITS.descriptionMax, `description must be at most ${TASK_LIMITS.descriptionMax} characters`)
  .nullable()
  .transform((v) => v || null);

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(T.+)?$/;

/** A calendar date that exists (no 2026-02-30); a full ISO date-time keeps the date it was written with. */
function toCalendarDate(value: string): string | null {
  const match = DATE_PATTERN.exec(value);
  if (!match) return null;
  const [, y, m, d, time] = match;
  if (time && Number.isNaN(Date.parse(value))) return null;
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  const date10 = `${y}-${m}-${d}`;
  return date.toISOString().slice(0, 10) === date10 ? date10 : null;
}

/** 'YYYY-MM-DD', a full ISO date-time, '' or null; out comes 'YYYY-MM-DD' or null. */
const dueDateSchema = z
  .string()
  .max(40, TASK_MESSAGES.dueDateInvalid)
  .nullable()
  .transform((value, ctx) => {
    if (!value) return null;
    const date = toCalendarDate(value);
    if (!date) ctx.addIssue({ code: 'custom', message: TASK_MESSAGES.dueDateInvalid });
    return date ?? z.NEVER;
  });

/** An agent id, or '' / null for no agent (spec §4: "empty for no agent"). */
const contextIdSchema = z
  .union([idSchema('contextId'), z.literal('').transform(() => null)])
  .nullable()
  .transform((v) => v ?? null);

const notesSchema = z
  .string()
  .max(TASK_LIMITS.notesMax, `notes must be at most ${TASK_LIMITS.notesMax} characters`)
  .nullable();
const aiDraftSchema = z
  .string()
  .max(TASK_LIMITS.aiDraftMax, `aiDraft must be at most ${TASK_LIMITS.aiDraftMax} characters`)
  .nullable();

/**
 * POST /api/tasks. The client sends userId 1 and position 0 (spec §7, §9): both are accepted and
 * ignored, because the owner comes from the session and a new task always goes to the top.
 */
export const createTaskBodySchema = z
  .strictObject({
    userId: z.number().optional(),
    title: titleSchema,
    description: descriptionSchema.optional().transform((v) => v ?? null),
    dueDate: dueDateSchema.optional().transform((v) => v ?? null),
    completed: z.boolean().default(false),
    archived: z.boolean().default(false),
    position: z.number().optional(),
    contextId: contextIdSchema.optional().transform((v) => v ?? null),
  })
  // A request for the API document to show (the API tests send it). Not `examples`: Zod gives
  // those to the output side of a schema that transforms.
  .meta({
    example: {
      title: 'Write the quarterly report',
      description: 'Figures from finance first',
      dueDate: '2026-12-01',
    },
  });
export type CreateTaskBody = z.input<typeof createTaskBodySchema>;
export type CreateTaskInput = z.output<typeof createTaskBodySchema>;

/** PATCH /api/tasks/{id}: any of the fields spec §7 lists; anything else is refused by name. */
export const updateTaskBodySchema = z.strictObject({
  title: titleSchema.optional(),
  description: descriptionSchema.optional(),
  notes: notesSchema.optional(),
  completed: z.boolean().optional(),
  archived: z.boolean().optional(),
  contextId: contextIdSchema.optional(),
  aiDraft: aiDraftSchema.optional(),
  aiAssisted: z.boolean().optional(),
  dueDate: dueDateSchema.optional(),
});
export type UpdateTaskBody = z.input<typeof updateTaskBodySchema>;
export type UpdateTaskInput = z.output<typeof updateTaskBodySchema>;

/**
 * POST /api/tasks/reorder (spec §3 "Reorder payload"): the caller's active task ids in their new
 * order. Active tasks left out keep their relative order after the listed ones.
 */
export const reorderBodySchema = z.strictObject({
  taskIds: z
    .array(idSchema('taskIds'))
    .min(1, TASK_MESSAGES.reorderEmpty)
    .max(TASK_LIMITS.reorderMax, `taskIds must list at most ${TASK_LIMITS.reorderMax} tasks`),
});
export type ReorderBody = z.infer<typeof reorderBodySchema>;

/**
 * POST /api/tasks/{id}/move (issue 15): one task to just after another active task, or to the top
 * (`afterId: null`). Only the moved task is written: it takes a position between its new neighbours.
 */
export const moveTaskBodySchema = z.strictObject({
  afterId: idSchema('afterId').nullable(),
});
export type MoveTaskBody = z.infer<typeof moveTaskBodySchema>;
export const taskMovePath = (id: number) => `${TASKS_PATH}/${id}/move`;

/** The due-date filters of the task lists (issue 13); 'today' is the server's local date. */
export const DUE_FILTERS = ['overdue', 'today', 'week', 'none'] as const;
export type DueFilter = (typeof DUE_FILTERS)[number];

/** A query parameter left empty (`?q=`) is no filter at all. */
const optionalParam = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/**
 * GET /api/tasks and /api/tasks/archived: every word of `q` must occur in the title, description,
 * notes or a checklist item (case and accents aside); the other filters narrow by due date, files
 * and agent. Without any, the answer is the whole ordered list.
 */
export const taskListQuerySchema = z.object({
  q: optionalParam(
    z.string().max(TASK_LIMITS.queryMax, `q must be at most ${TASK_LIMITS.queryMax} characters`),
  ),
  due: optionalParam(z.enum(DUE_FILTERS, { error: `due must be one of ${DUE_FILTERS.join(', ')}` })),
  hasFiles: optionalParam(
    z.enum(['true', 'false'], { error: 'hasFiles must be true or false' }).transform((v) => v === 'true'),
  ),
  agentId: optionalParam(z.coerce.number({ error: 'agentId must be a number' }).pipe(idSchema('agentId'))),
});
export type TaskListQuery = z.output<typeof taskListQuerySchema>;

/**
 * Issue 15: `view=summary` answers what a collapsed card shows, without the notes and the AI draft
 * (an expanded card reads them from GET /api/tasks/{id}). Without it, the full tasks, as spec §7 says.
 */
export const TASK_VIEWS = ['full', 'summary'] as const;
export const taskListRouteQuerySchema = taskListQuerySchema.extend({
  view: optionalParam(z.enum(TASK_VIEWS, { error: `view must be one of ${TASK_VIEWS.join(', ')}` })),
});
export type TaskListRouteQuery = z.output<typeof taskListRouteQuerySchema>;

/** A task in a summary list: everything but the notes and the AI draft. */
export const taskSummarySchema = taskSchema.omit({ notes: true, aiDraft: true });
export type TaskSummary = z.infer<typeof taskSummarySchema>;

/** Whether a list query narrows the list (an empty or blank `q` does not). */
export const isFiltered = (query: TaskListQuery): boolean =>
  Boolean(query.q?.trim()) ||
  query.due !== undefined ||
  query.hasFiles !== undefined ||
  query.agentId !== undefined;
