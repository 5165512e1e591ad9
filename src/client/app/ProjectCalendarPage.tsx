import { useMemo } from 'react';
import { useProject } from '../projects/api';
import { PROJECT_COPY } from '../projects/copy';
import type { TaskScope } from '../tasks/api';
import { CalendarPage } from '../views/CalendarPage';

/** A project's calendar at `/projects/{id}/calendar` (issue 23): its due tasks by month. */
export function ProjectCalendarPage({ projectId }: { projectId: number }) {
  const { data: project } = useProject(projectId);
  const scope = useMemo<TaskScope>(() => ({ kind: 'project', projectId }), [projectId]);
  return <CalendarPage scope={scope} title={project?.name ?? PROJECT_COPY.projects} projectId={projectId} />;
}
