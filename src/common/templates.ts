import { z } from 'zod';
import { idParam } from './ids';
import { PROJECT_LIMITS } from './projects';

/**
 * Project templates (issue 29): the API contract, shared with the client. A template keeps a
 * project's open tasks (sections, sub-tasks, labels by name, priorities, checklists, due dates as
 * days from the day it was saved); no assignees, comments or files.
 */
export const TEMPLATES_PATH = '/api/templates';
export const templatePath = (id: number) => `${TEMPLATES_PATH}/${id}`;
export const templateApplyPath = (id: number) => `${templatePath(id)}/apply`;
export const projectTemplatePath = (projectId: number) => `/api/projects/${projectId}/template`;

export const TEMPLATE_MESSAGES = {
  nameRequired: 'name is required',
  nameTooLong: `name must be at most ${PROJECT_LIMITS.nameMax} characters`,
  startDateInvalid: 'startDate must be a real date written YYYY-MM-DD',
  notFound: 'Template not found',
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
