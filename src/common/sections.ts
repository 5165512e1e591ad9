import { z } from 'zod';
import { idParam, idSchema } from './ids';
import { PROJECTS_PATH } from './projects';

/**
 * Sections (issue 23): named, ordered groups of a project's tasks (the Inbox has them too). A task
 * is in one section of its project or in none ('No section'). The API contract, shared with the client.
 */

export const SECTIONS_PATH = '/api/sections';
export const projectSectionsPath = (projectId: number) => `${PROJECTS_PATH}/${projectId}/sections`;
export const sectionPath = (id: number) => `${SECTIONS_PATH}/${id}`;
export const sectionMovePath = (id: number) => `${SECTIONS_PATH}/${id}/move`;

export const SECTION_LIMITS = { nameMax: 100, perProject: 200 } as const;

/** The words of every refusal about sections, in one place. */
export const SECTION_MESSAGES = {
  nameRequired: 'Name is required',
  nameTooLong: `Name must be at most ${SECTION_LIMITS.nameMax} characters`,
  tooMany: `A project has at most ${SECTION_LIMITS.perProject} sections`,
  moveAfterItself: 'afterId must name another section',
  afterNotInProject: 'afterId must name a section of the same project',
  /** A task's sectionId that is not a section of the task's project. */
  taskSection: "sectionId must name a section of the task's project",
} as const;

/** What the list and the board call the tasks in no section. */
export const NO_SECTION = 'No section';

const nameSchema = z
  .string({ error: SECTION_MESSAGES.nameRequired })
  .trim()
  .min(1, SECTION_MESSAGES.nameRequired)
  .max(SECTION_LIMITS.nameMax, SECTION_MESSAGES.nameTooLong);

/** GET /api/projects/{id}/sections: in their order. */
export const sectionSchema = z.object({
  id: z.number(),
  projectId: z.number(),
  name: z.string(),
  /** 0 for the first; sections are listed in this order. */
  position: z.number(),
  createdAt: z.string(),
});
export type Section = z.infer<typeof sectionSchema>;

export const createSectionBodySchema = z
  .strictObject({ name: nameSchema })
  .meta({ example: { name: 'Doing' } });
export type CreateSectionBody = z.infer<typeof createSectionBodySchema>;

export const updateSectionBodySchema = z
  .strictObject({ name: nameSchema })
  .meta({ example: { name: 'In review' } });
export type UpdateSectionBody = z.infer<typeof updateSectionBodySchema>;

/** POST /api/sections/{id}/move: to just after `afterId`, or first with `afterId: null`. */
export const moveSectionBodySchema = z.strictObject({ afterId: idSchema('afterId').nullable() });
export type MoveSectionBody = z.infer<typeof moveSectionBodySchema>;

export const sectionIdParamsSchema = z.object({ id: idParam() });

/** A task's section in a request body: a section of the task's project, or null for none. */
export const taskSectionIdSchema = idSchema('sectionId').nullable();
