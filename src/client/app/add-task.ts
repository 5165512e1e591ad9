import { useCallback } from 'react';
import { useLocation } from 'wouter';
import { canChangeTasks, useProject } from '../projects/api';
import { openDialog } from './dialogs';
import { SCREEN_PATHS, useScreen } from './screens';

/**
 * 'n' and the palette's 'New task' (issue 13): the Add New Task dialog of the screen shown, when it
 * has one (the Inbox; a project the person may add to, issue 21), else the Inbox's.
 */
export function useOpenAddTask(): () => void {
  const screen = useScreen();
  const [, navigate] = useLocation();
  const { data: project } = useProject(screen?.page === 'project' ? screen.projectId : undefined);
  const here = screen?.page === 'inbox' || (project !== undefined && canChangeTasks(project));
  return useCallback(() => {
    if (!here) navigate(SCREEN_PATHS.inbox);
    openDialog('add-task');
  }, [here, navigate]);
}
