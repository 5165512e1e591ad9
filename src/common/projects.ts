import { z } from 'zod';
import { idParam, idSchema } from './ids';

/** Projects, members and roles (issue 21): the API contract, shared with the client. */

export const PROJECTS_PATH = '/api/projects';
export const projectPath = (id: number) => `${PROJECTS_PATH}/${id}`;
export const projectMembersPath = (id: number) => `${PROJECTS_PATH}/${id}/members`;

/**
 * The palette a project's colour comes from: twelve named colours, so the client decides how each
 * looks in light and dark themes and nothing arbitrary reaches a page.
 */
export const PROJECT_COLORS = [
  'red',
  'orange',
  'yellow',
  'green',
  'teal',
  'cyan',
  'blue',
  'indigo',
  'violet',
  'pink',
  'brown',
  'grey',
] as const;
export type ProjectColor = (typeof PROJECT_COLORS)[number];
export const DEFAULT_PROJECT_COLOR: ProjectColor = 'grey';

/** Every role, lowest first: a role may do everything the ones before it may. */
export const PROJECT_ROLES = ['viewer', 'commenter', 'editor', 'admin', 'owner'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];
/** The roles a member can be given: `owner` changes hands only by transfer. */
export const ASSIGNABLE_ROLES = ['admin', 'editor', 'commenter', 'viewer'] as const;
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

/** Whether `role` may do what `needed` may. */
export const roleAtLeast = (role: ProjectRole, needed: ProjectRole): boolean =>
  PROJECT_ROLES.indexOf(role) >= PROJECT_ROLES.indexOf(needed);

export const isProjectRole = (value: unknown): value is ProjectRole =>
  (PROJECT_ROLES as readonly unknown[]).includes(value);

/** A role with the article its sound takes, for sentences: 'an editor', 'an admin', 'a viewer'. */
export const roleWithArticle = (role: ProjectRole): string => `${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}`;

/**
 * The least role that may add, change or remove a member who is, or is to become, each of `roles`
 * (decision 029's table): the owner manages admins (and nobody manages the owner, who changes only
 * by transfer), admins manage editors, commenters and viewers. The server and the share dialog ask it.
 */
export const roleToManage = (...roles: ProjectRole[]): ProjectRole =>
  roles.some((role) => roleAtLeast(role, 'admin')) ? 'owner' : 'admin';

export const PROJECT_LIMITS = { nameMax: 100 } as const;

export const INBOX_NAME = 'Inbox';

const nameSchema = z
  .string({ error: 'Name is required' })
  .trim()
  .min(1, 'Name is required')
  .max(PROJECT_LIMITS.nameMax, `Name must be at most ${PROJECT_LIMITS.nameMax} characters`);
const colorSchema = z.enum(PROJECT_COLORS, {
  error: `color must be one of ${PROJECT_COLORS.join(', ')}`,
});

/** GET /api/projects: one of the caller's projects, with the caller's role. */
export const projectSchema = z.object({
  id: z.number(),
  name: z.string(),
  color: z.enum(PROJECT_COLORS),
  /** The caller's own list: exactly one each, never shared. */
  inbox: z.boolean(),
  archived: z.boolean(),
  role: z.enum(PROJECT_ROLES),
  ownerId: z.number(),
  memberCount: z.number(),
  taskCount: z.number(),
  createdAt: z.string(),
});
export type Project = z.infer<typeof projectSchema>;

export const createProjectBodySchema = z
  .strictObject({
    name: nameSchema,
    color: colorSchema.optional(),
  })
  .meta({ example: { name: 'Website relaunch', color: 'teal' } });
export type CreateProjectBody = z.input<typeof createProjectBodySchema>;

export const updateProjectBodySchema = z
  .strictObject({
    name: nameSchema.optional(),
    color: colorSchema.optional(),
    /** True: read-only until restored with false. */
    archived: z.boolean().optional(),
  })
  .meta({ example: { name: 'Website relaunch 2027', color: 'blue' } });
export type UpdateProjectBody = z.input<typeof updateProjectBodySchema>;

export const projectIdParamsSchema = z.object({ id: idParam() });
export const projectMemberParamsSchema = z.object({ id: idParam(), userId: idParam('userId') });

/** GET /api/projects/{id}/members */
export const projectMemberSchema = z.object({
  userId: z.number(),
  username: z.string(),
  firstName: z.string(),
  role: z.enum(PROJECT_ROLES),
  addedAt: z.string(),
});
export type ProjectMember = z.infer<typeof projectMemberSchema>;

export const addProjectMemberBodySchema = z
  .strictObject({
    /** A username or an e-mail address of an active account on this server. */
    user: z
      .string({ error: 'user is required: a username or an e-mail address' })
      .trim()
      .min(1, 'user is required: a username or an e-mail address')
      .max(320, 'user is too long'),
    role: z.enum(ASSIGNABLE_ROLES, { error: `role must be one of ${ASSIGNABLE_ROLES.join(', ')}` }),
  })
  .meta({ example: { user: 'anna', role: 'editor' } });
export type AddProjectMemberBody = z.infer<typeof addProjectMemberBodySchema>;

export const updateProjectMemberBodySchema = z.strictObject({
  role: z.enum(ASSIGNABLE_ROLES, { error: `role must be one of ${ASSIGNABLE_ROLES.join(', ')}` }),
});
export type UpdateProjectMemberBody = z.infer<typeof updateProjectMemberBodySchema>;

export const transferProjectBodySchema = z.strictObject({ userId: idSchema('userId') });
export type TransferProjectBody = z.infer<typeof transferProjectBodySchema>;

/** The words of every refusal about projects, in one place. */
export const PROJECT_MESSAGES = {
  archived: 'This project is archived. Restore it first.',
  inboxShared: 'Your Inbox cannot be shared.',
  inboxRenamed: 'Your Inbox cannot be renamed.',
  inboxArchived: 'Your Inbox cannot be archived.',
  inboxDeleted: 'Your Inbox cannot be deleted.',
  inboxTransferred: 'Your Inbox cannot be given to someone else.',
  noSuchUser: 'No active user with that name or e-mail',
  alreadyMember: 'This person is already a member of this project.',
  ownerLeaves: 'The owner cannot leave the project: transfer it to another member first.',
  transferTarget: 'The new owner must be a member of this project.',
  transferSelf: 'You already own this project.',
  ownerRole: 'The owner’s role changes only by transferring the project to another member.',
} as const;
