import { z } from 'zod';
import { idSchema } from './ids';
import { TASKS_PATH } from './tasks';

/** Checklists (issue 13): the steps of a task. */

export const checklistPath = (taskId: number) => `${TASKS_PATH}/${taskId}/checklist`;
export const CHECKLIST_ITEMS_PATH = '/api/checklist';

export const CHECKLIST_LIMITS = {
  titleMax: 500,
  /** Items one task may hold: a checklist, not a second task list. */
  itemsMax: 500,
} as const;

export const CHECKLIST_MESSAGES = {
  titleRequired: 'title is required',
  tooMany: `A task can hold at most ${CHECKLIST_LIMITS.itemsMax} checklist items`,
  reorderEmpty: 'itemIds must list at least one item',
  duplicateInReorder: (id: number) => `itemIds lists item ${id} more than once`,
} as const;

export const checklistItemSchema = z.object({
  id: z.number(),
  taskId: z.number(),
  title: z.string(),
  done: z.boolean(),
  position: z.number(),
});
export type ChecklistItem = z.infer<typeof checklistItemSchema>;

const titleSchema = z
  .string({ error: CHECKLIST_MESSAGES.titleRequired })
  .trim()
  .min(1, CHECKLIST_MESSAGES.titleRequired)
  .max(CHECKLIST_LIMITS.titleMax, `title must be at most ${CHECKLIST_LIMITS.titleMax} characters`);

export const createChecklistItemBodySchema = z.strictObject({ title: titleSchema });
export type CreateChecklistItemBody = z.infer<typeof createChecklistItemBodySchema>;

export const updateChecklistItemBodySchema = z.strictObject({
  title: titleSchema.optional(),
  done: z.boolean({ error: 'done must be true or false' }).optional(),
});
export type UpdateChecklistItemBody = z.infer<typeof updateChecklistItemBodySchema>;

/** The task's items in their new order; items left out keep their order after the listed ones. */
export const reorderChecklistBodySchema = z.strictObject({
  itemIds: z
    .array(idSchema('itemIds'))
    .min(1, CHECKLIST_MESSAGES.reorderEmpty)
    .max(CHECKLIST_LIMITS.itemsMax, `itemIds must list at most ${CHECKLIST_LIMITS.itemsMax} items`)
    // The service refuses a repeated id (it names the id); the document says so.
    .meta({ uniqueItems: true }),
});
export type ReorderChecklistBody = z.infer<typeof reorderChecklistBodySchema>;
