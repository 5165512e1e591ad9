import { z } from 'zod';
import { idParam } from './ids';
import { PROJECT_COLORS, PROJECT_LIMITS } from './projects';
import { RECURRENCE_FROM } from './recurrence';

/**
 * Project templates (issue 29): the API contract, shared with the client. A template keeps a
 * project's open tasks (sections, sub-tasks, labels by name, priorities, checklists, due dates as
 * days from the day it was saved); no assignees, comments or files.
 */
export const TEMPLATES_PATH = '/api/templates';
export const templatePath = (id: number) => `${TEMPLATES_PATH}/${id}`;
export const templateApplyPath = (id: number) => `${templatePath(id)}/apply`;
export const projectTemplatePath = (projectId: number) => `/api/projects/${projectId}/template`;

export const TEMPLATE_LIMITS = {
  /** Open tasks (sub-tasks included) one template keeps. */
  tasksMax: 5000,
  /** A template's stored JSON, in characters (descriptions and notes are most of it). */
  dataMax: 20_000_000,
  /** Templates one person keeps. */
  perUser: 100,
} as const;

export const TEMPLATE_MESSAGES = {
  nameRequired: 'name is required',
  nameTooLong: `name must be at most ${PROJECT_LIMITS.nameMax} characters`,
  startDateInvalid: 'startDate must be a real date written YYYY-MM-DD',
  notFound: 'Template not found',
  tooManyTasks: (project: string, count: number) =>
    `The project "${project}" has ${count} open tasks: a template keeps at most ${TEMPLATE_LIMITS.tasksMax}`,
  tooLarge: (project: string) =>
    `The project "${project}" is too large for a template: its tasks' text passes ${TEMPLATE_LIMITS.dataMax / 1_000_000} million characters`,
  dueDateOutOfRange: 'startDate puts a due date outside the calendar (the years 1000 to 9999)',
  tooMany: `You have ${TEMPLATE_LIMITS.perUser} templates, the most one person keeps: delete one first`,
} as const;

/** GET /api/templates: one of the caller's templates. */
export const templateSchema = z.object({
  id: z.number(),
  name: z.string(),
  /** How many tasks (sub-tasks included) it creates. */
  taskCount: z.number(),
  createdAt: z.string(),
});
export type Template = z.infer<typeof templateSchema>;

const nameSchema = z
  .string({ error: TEMPLATE_MESSAGES.nameRequired })
  .trim()
  .min(1, TEMPLATE_MESSAGES.nameRequired)
  .max(PROJECT_LIMITS.nameMax, TEMPLATE_MESSAGES.nameTooLong);

/** POST /api/projects/{id}/template: the template's name, else the project's. */
export const saveTemplateBodySchema = z.strictObject({ name: nameSchema.optional() });
export type SaveTemplateBody = z.infer<typeof saveTemplateBodySchema>;

/** POST /api/templates/{id}/apply: a new project of this name, due dates counted from startDate. */
export const applyTemplateBodySchema = z
  .strictObject({
    name: nameSchema,
    startDate: z
      .string({ error: TEMPLATE_MESSAGES.startDateInvalid })
      .regex(/^\d{4}-\d{2}-\d{2}$/, TEMPLATE_MESSAGES.startDateInvalid)
      .refine((value) => {
        const date = new Date(`${value}T00:00:00Z`);
        return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
      }, TEMPLATE_MESSAGES.startDateInvalid),
  })
  .meta({ example: { name: 'Offsite 2027', startDate: '2027-03-01' } });
export type ApplyTemplateBody = z.infer<typeof applyTemplateBodySchema>;

export const templateParamsSchema = z.object({ id: idParam() });

/**
 * What a template keeps (the `data` column, JSON): the project's colour, its sections in order, and
 * its open tasks in list order, each parent before its sub-tasks (`parent` is the index of an
 * earlier task). Sections and labels are named; due dates are days from the day it was saved.
 * Server-side only: the API answers templateSchema.
 */
export const templateTaskSchema = z.object({
  title: z.string(),
  description: z.string().nullable(),
  notes: z.string().nullable(),
  priority: z.number().int().min(1).max(4),
  /** Index into `sections`; null: no section. */
  section: z.number().int().min(0).nullable(),
  /** Index of an earlier task: its parent; null: top-level. */
  parent: z.number().int().min(0).nullable(),
  /** Days after the day the template is applied from; null: no due date. */
  dueOffset: z.number().int().min(-4_000_000).max(4_000_000).nullable(),
  dueTime: z.string().nullable(),
  dueTimeZone: z.string().nullable(),
  recurrence: z.string().nullable(),
  recurrenceFrom: z.enum(RECURRENCE_FROM),
  /** Names of entries of `labels`. */
  labels: z.array(z.string()),
  /** Checklist items' titles, in order (all of them undone in a new project). */
  checklist: z.array(z.string()),
});
export type TemplateTask = z.infer<typeof templateTaskSchema>;

export const templateDataSchema = z.object({
  version: z.literal(1),
  color: z.enum(PROJECT_COLORS),
  sections: z.array(z.string()),
  labels: z.array(z.object({ name: z.string(), color: z.enum(PROJECT_COLORS) })),
  tasks: z.array(templateTaskSchema),
});
export type TemplateData = z.infer<typeof templateDataSchema>;
