import { z } from 'zod';
import { DUE_TIME_PATTERN } from './due';
import { idParam, idSchema } from './ids';
import { LABEL_LIMITS, LABEL_MESSAGES, taskLabelSchema } from './labels';
import { normalizeRecurrence, RECURRENCE_FROM } from './recurrence';
import { taskSectionIdSchema } from './sections';
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
  /** The project the task is in (issue 21): the creator's Inbox unless it was put or moved elsewhere. */
  projectId: z.number(),
  /** Members of the task's project it is assigned to, by user id, in the order they were assigned. */
  assigneeIds: z.array(z.number()),
  commentCount: z.number(),
  /** 'HH:MM' or null (issue 22): read in dueTimeZone. */
  dueTime: z.string().nullable(),
  /** The IANA zone dueTime is read in: the zone of whoever set it, when they set it. */
  dueTimeZone: z.string().nullable(),
  /** An RFC 5545 RRULE ('FREQ=WEEKLY;BYDAY=MO') or null. */
  recurrence: z.string().nullable(),
  /** Where a recurring task's next date counts from: its due date, or the day it was completed. */
  recurrenceFrom: z.enum(RECURRENCE_FROM),
  /** The section of its project the task is in (issue 23); null: 'No section'. */
  sectionId: z.number().nullable(),
  /** 1 (urgent) to 4 (none, the default), issue 23. */
  priority: z.number().int().min(1).max(4),
  /** Everyone's labels on the task (each person tags with their own), by name. */
  labels: z.array(taskLabelSchema),
  /** The task this one is a sub-task of (issue 29), in the same project and section; null: top-level. */
  parentId: z.number().nullable(),
  /** Its direct sub-tasks: completed ones and in all. */
  subtasks: z.object({ done: z.number(), total: z.number() }),
  /** How many tasks that block this one are still open (issue 29). */
  blockedBy: z.number(),
  /**
   * Issue 31: grows by one with every change to the task; `GET /api/tasks/{id}` answers it as its
   * `ETag` and `PATCH` takes it back as `If-Match`.
   */
  version: z.number().int().min(1),
});
export type Task = z.infer<typeof taskSchema>;

/** 412 to a PATCH whose If-Match is not the task's version: the message and the task as it is now. */
export const taskChangedSchema = z.object({ message: z.string(), task: taskSchema });
export type TaskChanged = z.infer<typeof taskChangedSchema>;

/** Priorities, most urgent first: 4 is none. */
export const PRIORITIES = [1, 2, 3, 4] as const;
export type Priority = (typeof PRIORITIES)[number];
export const DEFAULT_PRIORITY: Priority = 4;

/** The orders a list can be sorted in; `manual` is the list's own (drag and drop) order. */
export const TASK_SORTS = ['manual', 'due', 'priority', 'created', 'title'] as const;
export type TaskSort = (typeof TASK_SORTS)[number];

/** The task query keys: each is also the URL a default query GETs (spec §7). */
export const TASKS_PATH = '/api/tasks';
export const ARCHIVED_TASKS_PATH = '/api/tasks/archived';
export const taskPath = (id: number) => `${TASKS_PATH}/${id}`;
/** The `{id}` of a route under a task (its checklist, comments, activity, AI runs). */
export const taskIdParamsSchema = z.object({ id: idParam() });

/** Field limits shared by the forms and the routes. */
export const TASK_LIMITS = {
  titleMax: 200,
  descriptionMax: 10_000,
  notesMax: 50_000,
  aiDraftMax: 50_000,
  reorderMax: 10_000,
  queryMax: 500,
  assigneesMax: 10,
  /** Sub-tasks nest at most this many levels below a top-level task (issue 29). */
  subtaskDepth: 4,
} as const;

export const TASK_MESSAGES = {
  dueDateInvalid: 'dueDate must be a real date written YYYY-MM-DD',
  moveAfterItself: 'afterId must name another task',
  moveAfterInSection: 'afterId must name a task in that section',
  reorderEmpty: 'taskIds must list at least one task',
  agentNotFound: 'Agent not found',
  dueTimeInvalid: 'dueTime must be a time written HH:MM (00:00 to 23:59)',
  dueTimeNeedsDate: 'dueTime needs a dueDate',
  recurrenceNeedsDate: 'recurrence needs a dueDate',
  recurrenceFromInvalid: `recurrenceFrom must be one of ${RECURRENCE_FROM.join(', ')}`,
  dueBoundInvalid: (field: 'dueFrom' | 'dueTo') => `${field} must be a real date written YYYY-MM-DD`,
  dueWindowReversed: 'dueFrom must not be after dueTo',
  priorityInvalid: 'priority must be 1 (urgent), 2, 3 or 4 (none)',
  priorityFilterInvalid: 'priority must list priorities from 1 to 4, separated by commas (priority=1,2)',
  labelFilterInvalid: `label must name a label of ${LABEL_LIMITS.nameMin} to ${LABEL_LIMITS.nameMax} characters`,
  labelFilterTooMany: `label may be given at most ${LABEL_LIMITS.perTask} times`,
  parentLoop: 'parentId would make a loop',
  parentTooDeep: `parentId would nest sub-tasks more than ${TASK_LIMITS.subtaskDepth} levels deep`,
  parentOtherProject: 'parentId must name a task in the same project',
  parentNotFound: 'parentId names no task you can see',
  moveAfterSibling: 'afterId must name a task with the same parent',
} as const;

const prioritySchema = z
  .number({ error: TASK_MESSAGES.priorityInvalid })
  .int(TASK_MESSAGES.priorityInvalid)
  .min(1, TASK_MESSAGES.priorityInvalid)
  .max(4, TASK_MESSAGES.priorityInvalid)
  .meta({ description: '1 (urgent), 2, 3, or 4 (none, the default).' });

/** The caller's own labels to put on the task: they replace the caller's labels on it (others' stay). */
const labelIdsSchema = z
  .array(idSchema('labelIds'))
  .max(LABEL_LIMITS.perTask, LABEL_MESSAGES.tooMany)
  .meta({ uniqueItems: true });

/** 'HH:MM', '' or null; out comes 'HH:MM' or null. */
const dueTimeSchema = z
  .string()
  .max(5, TASK_MESSAGES.dueTimeInvalid)
  .regex(/^(?:([01]\d|2[0-3]):[0-5]\d)?$/, TASK_MESSAGES.dueTimeInvalid)
  .meta({
    description:
      "'HH:MM' (24-hour) in the caller's time zone, stored with that zone; empty or null for none. Needs a dueDate.",
  })
  .nullable()
  .transform((value) => (value && DUE_TIME_PATTERN.test(value) ? value : null));

/** An RRULE, '' or null; out comes the rule written one way, or null. */
const recurrenceSchema = z
  .string()
  .max(600, 'recurrence must be at most 500 characters')
  .meta({
    description:
      "An RFC 5545 RRULE without DTSTART or COUNT ('FREQ=WEEKLY;BYDAY=MO,WE', 'FREQ=MONTHLY;BYMONTHDAY=-1'); empty or null for none. Needs a dueDate: the series counts from it.",
  })
  .nullable()
  .transform((value, ctx) => {
    if (!value?.trim()) return null;
    const parsed = normalizeRecurrence(value);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.message });
      return z.NEVER;
    }
    return parsed.rule;
  });

const recurrenceFromSchema = z.enum(RECURRENCE_FROM, { error: TASK_MESSAGES.recurrenceFromInvalid }).meta({
  description:
    "'due' (default): the next date counts from the due date; 'completion': from the day it is completed.",
});

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

/** YYYY-MM-DD, optionally followed by a time (an ISO date-time), or nothing. */
const DUE_DATE_PATTERN = /^(?:(\d{4})-(\d{2})-(\d{2})(T.+)?)?$/;

/** A calendar date that exists (no 2026-02-30); a full ISO date-time keeps the date it was written with. */
function toCalendarDate(value: string): string | null {
  const match = DUE_DATE_PATTERN.exec(value);
  if (!match?.[1]) return null;
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
  .regex(DUE_DATE_PATTERN, TASK_MESSAGES.dueDateInvalid)
  .meta({
    description:
      'YYYY-MM-DD, or an ISO date-time whose date is kept; empty or null for none. The date must exist on the calendar (2026-02-30 is refused).',
  })
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

/** A task to nest under (issue 29), or null for none. */
const parentIdSchema = idSchema('parentId')
  .nullable()
  .meta({
    description: `The task this one is a sub-task of, in the same project; null for a top-level task. At most ${TASK_LIMITS.subtaskDepth} levels below a top-level task.`,
  });

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
    /** The project to put the task in (editor or more there); without it, the caller's Inbox. */
    projectId: idSchema('projectId').optional(),
    dueTime: dueTimeSchema.optional().transform((v) => v ?? null),
    recurrence: recurrenceSchema.optional().transform((v) => v ?? null),
    recurrenceFrom: recurrenceFromSchema.optional(),
    /** A section of the task's project; without it, none. */
    sectionId: taskSectionIdSchema.optional().transform((v) => v ?? null),
    priority: prioritySchema.optional(),
    labelIds: labelIdsSchema.optional(),
    /** Issue 29: the task to create it under (editor or more in its project, which it joins). */
    parentId: parentIdSchema.optional().transform((v) => v ?? null),
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
  /** Moves the task to another project: the caller must be an editor or more in both. */
  projectId: idSchema('projectId').optional(),
  /** Replaces the task's assignees: members of its project (after a move, of the new one). */
  assigneeIds: z
    .array(idSchema('assigneeIds'))
    .max(TASK_LIMITS.assigneesMax, `assigneeIds must list at most ${TASK_LIMITS.assigneesMax} people`)
    .meta({ uniqueItems: true })
    .optional(),
  dueTime: dueTimeSchema.optional(),
  recurrence: recurrenceSchema.optional(),
  recurrenceFrom: recurrenceFromSchema.optional(),
  /** A section of the task's project (after a move, of the new one), or null for none. */
  sectionId: taskSectionIdSchema.optional(),
  priority: prioritySchema.optional(),
  /** Replaces the caller's own labels on the task; other people's labels on it stay. */
  labelIds: labelIdsSchema.optional(),
  /** Issue 29: puts the task (and its subtree) under another task of its project; null: top-level. */
  parentId: parentIdSchema.optional(),
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
    .max(TASK_LIMITS.reorderMax, `taskIds must list at most ${TASK_LIMITS.reorderMax} tasks`)
    // The service refuses a repeated id (it names the id); the document says so.
    .meta({ uniqueItems: true }),
});
export type ReorderBody = z.infer<typeof reorderBodySchema>;

/**
 * POST /api/tasks/{id}/move (issue 15): one task to just after another active task, or to the top
 * (`afterId: null`). Only the moved task is written: it takes a position between its new neighbours.
 */
export const moveTaskBodySchema = z.strictObject({
  afterId: idSchema('afterId').nullable(),
  /**
   * Issue 23: the section to move into (null: 'No section'); `afterId` is then a task of that
   * section, or null for its top. Without it, the task takes `afterId`'s section (or keeps its own).
   */
  sectionId: taskSectionIdSchema.optional(),
});
export type MoveTaskBody = z.infer<typeof moveTaskBodySchema>;
export const taskMovePath = (id: number) => `${TASKS_PATH}/${id}/move`;

/**
 * POST /api/tasks/{id}/complete (issue 22): completes the task. A recurring one moves on to its
 * next date and stays active; `final: true` ends the series and archives it ('Complete forever').
 */
export const completeTaskBodySchema = z.strictObject({
  final: z
    .boolean({ error: 'final must be true or false' })
    .optional()
    .meta({ description: 'For a recurring task: true ends the series and archives the task.' }),
});
export type CompleteTaskBody = z.input<typeof completeTaskBodySchema>;
export const taskCompletePath = (id: number) => `${TASKS_PATH}/${id}/complete`;

/**
 * The due-date filters of the task lists (issue 13). 'today' is the caller's, in their time zone
 * (issue 28), and a task's day is the one Today and Upcoming show it on; 'week' is today and the six
 * days after.
 */
export const DUE_FILTERS = ['overdue', 'today', 'week', 'none'] as const;
export type DueFilter = (typeof DUE_FILTERS)[number];

/** A day of a due-date window (issue 23): YYYY-MM-DD, and a date that exists. */
const dueBoundSchema = (field: 'dueFrom' | 'dueTo') =>
  z
    .string({ error: TASK_MESSAGES.dueBoundInvalid(field) })
    .regex(/^\d{4}-\d{2}-\d{2}$/, TASK_MESSAGES.dueBoundInvalid(field))
    .refine((value) => toCalendarDate(value) === value, TASK_MESSAGES.dueBoundInvalid(field))
    .meta({
      description: `YYYY-MM-DD, inclusive: a timed task's day is the one its due instant falls on in the caller's time zone.`,
    });

/**
 * A due window ends on or after the day it starts. The list's schema refines with it, so the
 * address, a saved filter's query (issue 23) and the MCP tool's arguments are refused alike; the
 * bounds are compared as written (YYYY-MM-DD sorts as the days do).
 */
const dueWindowInOrder = ({ dueFrom, dueTo }: { dueFrom?: unknown; dueTo?: unknown }): boolean =>
  typeof dueFrom !== 'string' || typeof dueTo !== 'string' || dueFrom <= dueTo;

/**
 * Whose tasks a list keeps (`assignee=`): the caller's, or (issue 28) the caller's and the ones
 * assigned to nobody in the projects they edit, admin or own.
 */
export const ASSIGNEE_FILTERS = ['me', 'me_or_unassigned'] as const;
export type AssigneeFilter = (typeof ASSIGNEE_FILTERS)[number];

/** `projectId=all`: every project the caller can see, instead of one. */
export const ALL_PROJECTS = 'all';

/** A query parameter left empty (`?q=`) is no filter at all. */
const optionalParam = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/**
 * GET /api/tasks and /api/tasks/archived: every word of `q` must occur in the title, description,
 * notes or a checklist item (case and accents aside); the other filters narrow by due date, files
 * and agent. Without any, the answer is the whole ordered list.
 */
export const taskListQuerySchema = z
  .object({
    q: optionalParam(
      z.string().max(TASK_LIMITS.queryMax, `q must be at most ${TASK_LIMITS.queryMax} characters`),
    ),
    due: optionalParam(z.enum(DUE_FILTERS, { error: `due must be one of ${DUE_FILTERS.join(', ')}` })),
    hasFiles: optionalParam(
      z.enum(['true', 'false'], { error: 'hasFiles must be true or false' }).transform((v) => v === 'true'),
    ),
    agentId: optionalParam(z.coerce.number({ error: 'agentId must be a number' }).pipe(idSchema('agentId'))),
    /** Which project's tasks (issue 21): a project id, or `all`; without it, the caller's Inbox. */
    projectId: optionalParam(
      z.union(
        [
          z.literal(ALL_PROJECTS),
          z.coerce.number({ error: 'projectId must be a number or all' }).pipe(idSchema('projectId')),
        ],
        { error: 'projectId must be a number or all' },
      ),
    ),
    /**
     * `assignee=me`: only the tasks assigned to the caller, in any project they can see; with
     * `projectId=all`, their Inbox's tasks too (everything of theirs: Today, Upcoming, issue 23).
     * `me_or_unassigned` (issue 28): those, and the tasks assigned to nobody in the projects where
     * the caller is an editor or more (Today's and Upcoming's default).
     */
    assignee: optionalParam(
      z.enum(ASSIGNEE_FILTERS, { error: `assignee must be one of ${ASSIGNEE_FILTERS.join(', ')}` }).meta({
        description:
          "`me`: the tasks assigned to you; `me_or_unassigned`: those and the tasks assigned to nobody in the projects where you are an editor or more. With `projectId=all`, your Inbox's tasks too.",
      }),
    ),
    /** Due on or after this day (issue 23: Today, Upcoming, the calendar). */
    dueFrom: optionalParam(dueBoundSchema('dueFrom')),
    /** Due on or before this day. */
    dueTo: optionalParam(dueBoundSchema('dueTo')),
    /** `priority=1,2`: tasks of any of these priorities (issue 23). */
    priority: optionalParam(
      z
        .string({ error: TASK_MESSAGES.priorityFilterInvalid })
        .regex(/^[1-4](,[1-4]){0,3}$/, TASK_MESSAGES.priorityFilterInvalid)
        .transform((value) => [...new Set(value.split(',').map(Number))].sort()),
    ),
    /** `label=work&label=home`: tasks carrying a label of each name (anyone's, case aside). */
    label: z.preprocess(
      (value) => {
        const list = (Array.isArray(value) ? value : [value]).filter((v) => v !== undefined && v !== '');
        return list.length > 0 ? list : undefined;
      },
      z
        .array(
          z
            .string({ error: TASK_MESSAGES.labelFilterInvalid })
            .trim()
            .min(LABEL_LIMITS.nameMin, TASK_MESSAGES.labelFilterInvalid)
            .max(LABEL_LIMITS.nameMax, TASK_MESSAGES.labelFilterInvalid),
        )
        .max(LABEL_LIMITS.perTask, TASK_MESSAGES.labelFilterTooMany)
        .optional(),
    ),
    /** Issue 29: only the direct sub-tasks of this task, in their order. */
    parentId: optionalParam(
      z.coerce.number({ error: 'parentId must be a number' }).pipe(idSchema('parentId')),
    ),
    /** The list's order: `manual` (the default) is the list's own. */
    sort: optionalParam(z.enum(TASK_SORTS, { error: `sort must be one of ${TASK_SORTS.join(', ')}` })),
  })
  .refine(dueWindowInOrder, { message: TASK_MESSAGES.dueWindowReversed, path: ['dueFrom'] });
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
  query.agentId !== undefined ||
  query.dueFrom !== undefined ||
  query.dueTo !== undefined ||
  query.priority !== undefined ||
  query.label !== undefined ||
  query.parentId !== undefined ||
  (query.sort !== undefined && query.sort !== 'manual');
