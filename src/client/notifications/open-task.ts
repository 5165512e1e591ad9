import { type MouseEvent, useEffect } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { Project } from '../../common/projects';
import { OPEN_TASK_MESSAGE, TASK_QUERY_PARAM } from '../../common/push-notification';
import { type Task, taskPath } from '../../common/tasks';
import { projectHref, SCREEN_PATHS } from '../app/screens';
import { apiRequest } from '../lib/api';
import { queryClient } from '../lib/query-client';
import { projectsKey, useProjects } from '../projects/api';
import { revealCard } from '../tasks/card-focus';
import { setExpanded } from '../tasks/list-state';
import { toast } from '../ui/use-toast';
import { NOTIFICATION_COPY } from './copy';

/** The address that shows a task: its project's screen (the Inbox at `/`) with `?task=`. */
export const taskHref = (projectId: number | null, taskId: number, inbox: boolean) =>
  `${inbox || projectId === null ? SCREEN_PATHS.inbox : projectHref(projectId)}?${TASK_QUERY_PARAM}=${taskId}`;

/**
 * A link to a task: its address (taskHref) and a plain click that goes there in the app, where the
 * card opens expanded (the calendar's chips, a dependency, issue 29).
 */
export function useTaskLink() {
  const { data: projects } = useProjects();
  const [, navigate] = useLocation();
  return ({ projectId, taskId }: { projectId: number; taskId: number }) => {
    const inbox = projects?.find((project) => project.id === projectId)?.inbox ?? false;
    const href = taskHref(projectId, taskId, inbox);
    return {
      href,
      onClick: (event: MouseEvent) => {
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
          return;
        event.preventDefault();
        navigate(href);
      },
    };
  };
}

/** `?project=N`: a notification about a project (shared with you). */
const PROJECT_QUERY_PARAM = 'project';

/**
 * How long the card is looked for on its project's screen: the list loads there, and a busy server
 * or a slow network may take a while.
 */
const NEW_SCREEN_WAIT_MS = 20_000;

/**
 * Expands and focuses the card of task `id`: on this screen if it is here, else on its project's
 * (asked of the server: a link from an e-mail or a push names only the task). The card is expanded
 * once it is found, not before: a list shown meanwhile without it (the new screen's, loading or
 * kept from an earlier visit) forgets the expansion of cards it does not hold.
 */
async function openTaskCard(id: number, navigate: (to: string) => void): Promise<void> {
  if (await revealCard(id)) {
    setExpanded(id, true);
    return;
  }
  let task: Task;
  try {
    task = (await (await apiRequest('GET', taskPath(id))).json()) as Task;
  } catch {
    toast({ title: NOTIFICATION_COPY.openFailed });
    return;
  }
  const projects = await queryClient.fetchQuery<Project[]>({ queryKey: projectsKey }).catch(() => []);
  const inbox = projects.find((project) => project.id === task.projectId)?.inbox ?? false;
  navigate(inbox ? SCREEN_PATHS.inbox : projectHref(task.projectId));
  if (await revealCard(id, NEW_SCREEN_WAIT_MS)) setExpanded(id, true);
}

/**
 * `?task=N` in the address (a notification's link, or the bell's panel): the task's card is
 * expanded and focused, then the parameter leaves the address (a reload does not do it again). The
 * service worker's message to an open tab (a click on a push notification) goes there the same way.
 */
export function useOpenTaskFromAddress(): void {
  const [location, navigate] = useLocation();
  const search = useSearch();

  useEffect(() => {
    const params = new URLSearchParams(search);
    const projectId = Number(params.get(PROJECT_QUERY_PARAM));
    if (Number.isInteger(projectId) && projectId > 0) {
      navigate(projectHref(projectId), { replace: true });
      return;
    }
    const id = Number(params.get(TASK_QUERY_PARAM));
    if (!Number.isInteger(id) || id <= 0) return;
    params.delete(TASK_QUERY_PARAM);
    const rest = params.toString();
    navigate(`${location}${rest ? `?${rest}` : ''}`, { replace: true });
    void openTaskCard(id, navigate);
  }, [search, location, navigate]);

  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    const onMessage = (event: MessageEvent) => {
      const data = event.data as { type?: string; url?: string } | null;
      if (data?.type === OPEN_TASK_MESSAGE && typeof data.url === 'string' && data.url.startsWith('/')) {
        navigate(data.url);
      }
    };
    navigator.serviceWorker.addEventListener('message', onMessage);
    return () => navigator.serviceWorker.removeEventListener('message', onMessage);
  }, [navigate]);
}
