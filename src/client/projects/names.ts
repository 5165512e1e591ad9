import type { Project } from '../../common/projects';
import { PROJECT_COPY } from './copy';

/** How a project is named on screen: the Inbox is 'Your Tasks' (spec §2), any other by its name. */
export const projectName = (project: Pick<Project, 'inbox' | 'name'>): string =>
  project.inbox ? PROJECT_COPY.inbox : project.name;
