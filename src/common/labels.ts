import { z } from 'zod';
import { idParam } from './ids';
import { PROJECT_COLORS } from './projects';

/** Labels and saved filters (issue 23): the API contract, shared with the client. */

export const LABELS_PATH = '/api/labels';
export const labelPath = (id: number) => `${LABELS_PATH}/${id}`;
export const FILTERS_PATH = '/api/filters';
export const filterPath = (id: number) => `${FILTERS_PATH}/${id}`;

export const LABEL_LIMITS = {
  nameMin: 1,
  nameMax: 50,
  /** Labels one person may put on one task. */
  perTask: 20,
  filterNameMax: 100,
  filterQueryMax: 1000,
} as const;

export const LABEL_MESSAGES = {
  nameRequired: 'name is required',
  nameTooLong: `name must be at most ${LABEL_LIMITS.nameMax} characters`,
  nameTaken: 'name: you already have a label with this name',
  colorInvalid: `color must be one of ${PROJECT_COLORS.join(', ')}`,
  notYours: (id: number) => `labelIds: label ${id} is not one of your labels`,
  tooMany: `labelIds must list at most ${LABEL_LIMITS.perTask} labels`,
  filterNameRequired: 'name is required',
  filterNameTooLong: `name must be at most ${LABEL_LIMITS.filterNameMax} characters`,
  queryRequired: 'query is required',
  queryTooLong: `query must be at most ${LABEL_LIMITS.filterQueryMax} characters`,
  nothingToChange: 'name or color is required',
  filterNothingToChange: 'name or query is required',
} as const;

/** A label on a task, as the task carries it. */
export const taskLabelSchema = z.object({
  id: z.number(),
  name: z.string(),
  color: z.enum(PROJECT_COLORS),
});
export type TaskLabel = z.infer<typeof taskLabelSchema>;

/** GET /api/labels: one of the caller's labels. */
export const labelSchema = taskLabelSchema.extend({ createdAt: z.string() });
export type Label = z.infer<typeof labelSchema>;

/** The same label name whatever its case: what uniqueness per person compares. */
export const labelKey = (name: string) => name.trim().toLocaleLowerCase('en');

const labelName = z
  .string({ error: LABEL_MESSAGES.nameRequired })
  .trim()
  .min(LABEL_LIMITS.nameMin, LABEL_MESSAGES.nameRequired)
  .max(LABEL_LIMITS.nameMax, LABEL_MESSAGES.nameTooLong);
const labelColor = z.enum(PROJECT_COLORS, { error: LABEL_MESSAGES.colorInvalid });

export const createLabelBodySchema = z
  .strictObject({ name: labelName, color: labelColor })
  .meta({ example: { name: 'errands', color: 'teal' } });
export type CreateLabelBody = z.infer<typeof createLabelBodySchema>;

export const updateLabelBodySchema = z
  .strictObject({ name: labelName.optional(), color: labelColor.optional() })
  .refine((v) => v.name !== undefined || v.color !== undefined, LABEL_MESSAGES.nothingToChange)
  .meta({ minProperties: 1, example: { name: 'Errands', color: 'green' } });
export type UpdateLabelBody = z.infer<typeof updateLabelBodySchema>;

export const labelIdParamsSchema = z.object({ id: idParam() });

/** GET /api/filters: a saved filter, `query` being the filter part of a list's address. */
export const savedFilterSchema = z.object({
  id: z.number(),
  name: z.string(),
  query: z.string(),
  createdAt: z.string(),
});
export type SavedFilter = z.infer<typeof savedFilterSchema>;

const filterName = z
  .string({ error: LABEL_MESSAGES.filterNameRequired })
  .trim()
  .min(1, LABEL_MESSAGES.filterNameRequired)
  .max(LABEL_LIMITS.filterNameMax, LABEL_MESSAGES.filterNameTooLong);
/** Checked against the list's query parameters by the server (tasks' taskListQuerySchema). */
const filterQuery = z
  .string({ error: LABEL_MESSAGES.queryRequired })
  .trim()
  .min(1, LABEL_MESSAGES.queryRequired)
  .max(LABEL_LIMITS.filterQueryMax, LABEL_MESSAGES.queryTooLong)
  .meta({
    description:
      "The filter part of a list's address, as `GET /api/tasks` takes it: `priority=1,2&label=work&sort=due`. A leading '?' is dropped. Each parameter is checked as the list checks it.",
  });

export const createFilterBodySchema = z
  .strictObject({ name: filterName, query: filterQuery })
  .meta({ example: { name: 'Urgent work', query: 'priority=1,2&label=work&sort=due' } });
export type CreateFilterBody = z.infer<typeof createFilterBodySchema>;

export const updateFilterBodySchema = z
  .strictObject({ name: filterName.optional(), query: filterQuery.optional() })
  .refine((v) => v.name !== undefined || v.query !== undefined, LABEL_MESSAGES.filterNothingToChange)
  .meta({ minProperties: 1, example: { name: 'Urgent', query: 'priority=1&sort=due' } });
export type UpdateFilterBody = z.infer<typeof updateFilterBodySchema>;
