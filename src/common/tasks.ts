import { z } from 'zod';

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
});
export type Task = z.infer<typeof taskSchema>;
