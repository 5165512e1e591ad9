import type { ProjectRole } from '../../common/projects';
import { COPY } from '../../common/spec';

/** The words of the projects screens (issue 21), named once for the screens and their tests. */
export const PROJECT_COPY = {
  navigation: 'Projects',
  openNavigation: 'Open navigation',
  /** The Inbox is 'Your Tasks', as spec §2 names the main screen. */
  inbox: COPY.yourTasks,
  assignedToMe: 'Assigned to me',
  assignedEmpty: 'Nothing is assigned to you',
  assignedEmptyHint: 'Tasks assigned to you in any project show here.',
  projects: 'Projects',
  newProject: 'New project',
  noProjects: 'No projects yet',
  loadFailed: 'Could not load your projects.',
  archivedProjects: 'Archived projects',
  name: 'Name',
  projectName: 'Project name',
  colour: 'Colour',
  createProject: 'Create project',
  projectCreated: 'Project created',
  createFailed: 'Could not create the project.',
  share: 'Share',
  members: 'Members',
  people: 'People',
  userField: 'Username or e-mail',
  role: 'Role',
  addPerson: 'Add',
  personAdded: (name: string) => `${name} can now open this project.`,
  roleOf: (name: string) => `Role of ${name}`,
  remove: (name: string) => `Remove ${name}`,
  removeTitle: (name: string) => `Remove ${name}?`,
  removeDescription: (name: string, project: string) =>
    `${name} will no longer see “${project}” or its tasks.`,
  makeOwner: (name: string) => `Make ${name} the owner`,
  transferTitle: (name: string) => `Make ${name} the owner?`,
  transferDescription: (name: string, project: string) =>
    `${name} will own “${project}”; you stay on as an admin.`,
  transfer: 'Transfer',
  leave: 'Leave project',
  leaveDescription: (project: string) => `You will no longer see “${project}” or its tasks.`,
  left: (project: string) => `You left “${project}”`,
  settings: 'Project settings',
  save: 'Save',
  saved: 'Project saved',
  archive: 'Archive project',
  restore: 'Restore project',
  archivedNotice: 'This project is archived: it is read-only until it is restored.',
  deleteProject: 'Delete project',
  deleteTitle: (project: string) => `Delete “${project}”?`,
  deleteDescription: (project: string) =>
    `“${project}” and every task in it, with their files, comments and history, are deleted for every member. This cannot be undone.`,
  deleted: (project: string) => `“${project}” was deleted`,
  gone: 'Project no longer available',
  goneDescription: (project: string) => `“${project}” was deleted, or you were removed from it.`,
  notFound: 'Project not found',
  you: 'you',
  actionFailed: 'That did not work. Please try again.',
  moveTaskTo: 'Move task to…',
  taskMoved: 'Task moved',
  taskMovedTo: (task: string, project: string) => `“${task}” is now in ${project}.`,
  moveFailed: 'Failed to move task',
} as const;

export const ROLE_LABELS: Record<ProjectRole, string> = {
  owner: 'Owner',
  admin: 'Admin',
  editor: 'Editor',
  commenter: 'Commenter',
  viewer: 'Viewer',
};

/** What each role may do, in a sentence, for the share dialog. */
export const ROLE_HINTS: Record<ProjectRole, string> = {
  owner: 'Everything, including deleting the project',
  admin: 'Manages the project and its editors, commenters and viewers',
  editor: 'Adds, changes and completes tasks',
  commenter: 'Sees tasks and comments on them',
  viewer: 'Sees tasks',
};

/** The share dialog's first line: the caller's role, in a sentence. */
export const YOUR_ROLE: Record<ProjectRole, string> = {
  owner: 'You own this project: you may do everything, and only you may delete it.',
  admin: 'You are an admin: you manage the project and its editors, commenters and viewers.',
  editor: 'You are an editor: you add, change and complete tasks.',
  commenter: 'You are a commenter: you see the tasks and comment on them.',
  viewer: 'You are a viewer: you see the tasks.',
};
