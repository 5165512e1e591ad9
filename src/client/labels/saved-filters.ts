import { projectHref, SCREEN_PATHS, type Screen } from '../app/screens';

/**
 * Where a saved filter opens (issue 23): the list its query names (`projectId=N` a project,
 * `assignee=me` what is assigned to the person, else the Inbox) with the rest of the query as the
 * address's filter.
 */
export function savedFilterHref(query: string): string {
  const params = new URLSearchParams(query);
  const projectId = params.get('projectId');
  const assignee = params.get('assignee');
  params.delete('projectId');
  params.delete('assignee');
  const base =
    projectId && /^\d+$/.test(projectId)
      ? projectHref(Number(projectId))
      : assignee === 'me'
        ? SCREEN_PATHS.assigned
        : SCREEN_PATHS.inbox;
  const rest = params.toString();
  return rest ? `${base}?${rest}` : base;
}

/** The query to save from a screen and its filter: the list (a project, 'Assigned to me') and the filter. */
export function savedFilterQuery(screen: Screen | null, filter: string): string {
  const list =
    screen?.page === 'project'
      ? `projectId=${screen.projectId}`
      : screen?.page === 'assigned'
        ? 'assignee=me'
        : '';
  return [list, filter].filter(Boolean).join('&');
}
