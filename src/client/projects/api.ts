import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import {
  type AddProjectMemberBody,
  type AssignableRole,
  type CreateProjectBody,
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

/**
 * Whether the caller may do in `project` what `needed` may: never in an archived project (read-only
 * until restored), nor before the project is known.
 */
export const mayDo = (
  project: Pick<Project, 'role' | 'archived'> | undefined,
  needed: ProjectRole,
): boolean => project !== undefined && !project.archived && roleAtLeast(project.role, needed);

/** Whether the caller may add, change and move tasks in `project` now: editor or more, and not archived. */
export const canChangeTasks = (project: Pick<Project, 'role' | 'archived'>) => mayDo(project, 'editor');

/**
 * Whether the caller may change the tasks of project `projectId` (a card's controls, issue 21).
 * Until the list has loaded, yes: the Inbox's cards keep their controls from the first paint, and
 * the server refuses what a role may not do anyway.
 */
export function useCanChangeTasksIn(projectId: number): boolean {
  const select = useCallback(
    (projects: Project[]) => {
      const project = projects.find((candidate) => candidate.id === projectId);
      return project !== undefined && canChangeTasks(project);
    },
    [projectId],
  );
  return useQuery<Project[], Error, boolean>({ queryKey: projectsKey, select }).data ?? true;
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
