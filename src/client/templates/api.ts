import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { LABELS_PATH } from '../../common/labels';
import type { Project } from '../../common/projects';
import {
  type ApplyTemplateBody,
  projectTemplatePath,
  type SaveTemplateBody,
  TEMPLATES_PATH,
  type Template,
  templateApplyPath,
  templatePath,
} from '../../common/templates';
import { apiRequest } from '../lib/api';
import { invalidateProjects, projectsKey } from '../projects/api';

/** The server's live events name TEMPLATES_PATH when the caller's templates change (another tab, say). */
export const templatesKey = [TEMPLATES_PATH] as const;

/** The caller's templates, newest first (the server's order). Asked for only while a dialog needs it. */
export const useTemplates = (enabled = true) => useQuery<Template[]>({ queryKey: templatesKey, enabled });

const json = async <T>(response: Promise<Response>): Promise<T> => (await (await response).json()) as T;

/** Saves the project as a template of the caller's; it heads the list at once. */
export function useSaveTemplate(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SaveTemplateBody) =>
      json<Template>(apiRequest('POST', projectTemplatePath(projectId), body)),
    onSuccess: (template) => {
      queryClient.setQueryData<Template[]>(
        templatesKey,
        (templates) => templates && [template, ...templates],
      );
      void queryClient.invalidateQueries({ queryKey: templatesKey });
    },
  });
}

/** Deletes one of the caller's templates; it leaves the list at once. */
export function useDeleteTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) => {
      await apiRequest('DELETE', templatePath(id));
      return id;
    },
    onSuccess: (id) => {
      queryClient.setQueryData<Template[]>(templatesKey, (templates) =>
        templates?.filter((template) => template.id !== id),
      );
      void queryClient.invalidateQueries({ queryKey: templatesKey });
    },
  });
}

/**
 * A new project from a template: it is in the projects' list at once, so its screen can open before
 * the list is fetched again (as 'New project' does). Labels it made are fetched again too.
 */
export function useApplyTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: ApplyTemplateBody }) =>
      json<Project>(apiRequest('POST', templateApplyPath(id), body)),
    onSuccess: (project) => {
      queryClient.setQueryData<Project[]>(projectsKey, (projects) => projects && [...projects, project]);
      void invalidateProjects(queryClient);
      void queryClient.invalidateQueries({ queryKey: [LABELS_PATH] });
    },
  });
}
