import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import {
  type AddProjectMemberBody,
  type AssignableRole,
  type CreateProjectBody,
  PROJECT_ROLES,
  PROJECTS_PATH,
  type Project,
  type ProjectMember,
  type ProjectRole,
  projectMembersPath,
  projectPath,
  roleAtLeast,
  roleToManage,
  type UpdateProjectBody,
} from '../../common/projects';
import { apiRequest } from '../lib/api';

/**
 * Query keys start with PROJECTS_PATH, the key the server's live events name for any change to a
 * project or its members (decision 029): one invalidation refreshes the list and every member list.
 */
export const projectsKey = [PROJECTS_PATH] as const;
export const membersKey = (id: number) => [PROJECTS_PATH, id, 'members'] as const;

/** The caller's projects: the Inbox first, then the others by name (the server's order). */
export const useProjects = () => useQuery<Project[]>({ queryKey: projectsKey });

/** One of the caller's projects, from the list: undefined while it loads or when not a member. */
export function useProject(id: number | undefined) {
  return useQuery<Project[], Error, Project | undefined>({
    queryKey: projectsKey,
    select: (projects) => projects.find((project) => project.id === id),
  });
}

/** A project's members, the longest-standing first: its header, the share dialog and its cards share one query. */
export function useMembers(id: number, enabled = true) {
  return useQuery<ProjectMember[]>({
    queryKey: membersKey(id),
    queryFn: async ({ signal }) =>
      (await (
        await apiRequest('GET', projectMembersPath(id), undefined, { signal })
      ).json()) as ProjectMember[],
    enabled,
  });
}

/**
 * What a role may do in the browser (issue 21's table). The server refuses the rest anyway; the
 * screens leave out the controls a role may not use.
 */
export const can = {
  manageProject: (role: ProjectRole) => roleAtLeast(role, 'admin'),
  deleteProject: (role: ProjectRole) => role === 'owner',
  /** Whether `role` may add, change or remove a member who is (or is to become) `target`. */
  manageMember: (role: ProjectRole, target: ProjectRole) =>
    target !== 'owner' && roleAtLeast(role, roleToManage(target)),
};

/** Whether the caller may add, change and move tasks in `project` now: editor or more, and not archived. */
export const canChangeTasks = (project: Pick<Project, 'role' | 'archived'>) =>
  taskPermissions(project).change;

/**
 * What the caller may do with a task, from their role in its project (decision 029's table): the one
 * place a card asks which controls to show. Controls a role may not use are absent (issue 28).
 */
export type TaskPermissions = Readonly<{
  /**
   * Editor or more: change, complete, move, reorder and delete the task; its dates, labels,
   * reminders, assignees and files; add, rename, move and delete checklist items; its notes; its
   * agent, AI drafts and the changes runs propose.
   */
  change: boolean;
  /** Commenter or more: comment, and tick checklist items. */
  comment: boolean;
  /** Admin or more: delete anyone's comment. */
  moderate: boolean;
}>;

const permissionsOf = (role: ProjectRole | null): TaskPermissions =>
  Object.freeze({
    change: role !== null && roleAtLeast(role, 'editor'),
    comment: role !== null && roleAtLeast(role, 'commenter'),
    moderate: role !== null && roleAtLeast(role, 'admin'),
  });
/** One object per role, so a card's permissions keep their identity from render to render. */
const PERMISSIONS = Object.fromEntries(PROJECT_ROLES.map((role) => [role, permissionsOf(role)])) as Record<
  ProjectRole,
  TaskPermissions
>;
/** Not a member (or no longer), or an archived project: read-only. */
const READ_ONLY = permissionsOf(null);

/** What the caller may do with the tasks of `project`: nothing in an archived one, nor before it is known. */
export const taskPermissions = (project: Pick<Project, 'role' | 'archived'> | undefined): TaskPermissions =>
  project === undefined || project.archived ? READ_ONLY : PERMISSIONS[project.role];

/**
 * What the caller may do with the tasks of project `projectId` (a card's controls). Until the list
 * has loaded, everything: the Inbox's cards keep their controls from the first paint, and the server
 * refuses what a role may not do anyway.
 */
export function useTaskPermissions(projectId: number): TaskPermissions {
  const select = useCallback(
    (projects: Project[]) => taskPermissions(projects.find((candidate) => candidate.id === projectId)),
    [projectId],
  );
  return (
    useQuery<Project[], Error, TaskPermissions>({ queryKey: projectsKey, select }).data ?? PERMISSIONS.owner
  );
}

/** The roles `role` may give: the owner every assignable one, an admin those below admin. */
export const grantableRoles = (role: ProjectRole, roles: readonly AssignableRole[]): AssignableRole[] =>
  roles.filter((target) => can.manageMember(role, target));

const json = async <T>(response: Promise<Response>): Promise<T> => (await (await response).json()) as T;

export const invalidateProjects = (queryClient: QueryClient) =>
  queryClient.invalidateQueries({ queryKey: projectsKey });

/**
 * A mutation that refreshes every project query once the server has answered. Not awaited: a caller
 * that leaves the project (deleting it, leaving it) moves on before the list drops it.
 */
function useProjectMutation<TVariables, TResult>(mutationFn: (variables: TVariables) => Promise<TResult>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => void invalidateProjects(queryClient) });
}

/** The new project is in the list at once, so its screen can open before the list is fetched again. */
export function useCreateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateProjectBody) => json<Project>(apiRequest('POST', PROJECTS_PATH, body)),
    onSuccess: (project) => {
      queryClient.setQueryData<Project[]>(projectsKey, (projects) => projects && [...projects, project]);
      void invalidateProjects(queryClient);
    },
  });
}

export const useUpdateProject = (id: number) =>
  useProjectMutation((body: UpdateProjectBody) => json<Project>(apiRequest('PATCH', projectPath(id), body)));

export const useAddMember = (id: number) =>
  useProjectMutation((body: AddProjectMemberBody) =>
    json<ProjectMember>(apiRequest('POST', projectMembersPath(id), body)),
  );

export const useUpdateMember = (id: number) =>
  useProjectMutation(({ userId, role }: { userId: number; role: AssignableRole }) =>
    json<ProjectMember>(apiRequest('PATCH', `${projectMembersPath(id)}/${userId}`, { role })),
  );

export const useRemoveMember = (id: number) =>
  useProjectMutation(async (userId: number) => {
    await apiRequest('DELETE', `${projectMembersPath(id)}/${userId}`);
  });

export const useTransferProject = (id: number) =>
  useProjectMutation((userId: number) =>
    json<Project>(apiRequest('POST', `${projectPath(id)}/transfer`, { userId })),
  );

export const useDeleteProject = (id: number) =>
  useProjectMutation(async () => {
    await apiRequest('DELETE', projectPath(id));
  });
