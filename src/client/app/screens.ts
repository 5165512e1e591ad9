import { useLocation } from 'wouter';

/**
 * The signed-in screens and their addresses (spec §2, issue 21): the Inbox at `/` (the spec's main
 * screen), its archive, the tasks assigned to the caller, and one project. Kept apart from the
 * routes so the sidebar, the shortcuts and the palette read the same answer.
 */
export const SCREEN_PATHS = {
  inbox: '/',
  archive: '/archive',
  assigned: '/assigned',
  // Issue 23: the views of what is due (decision 038).
  today: '/today',
  upcoming: '/upcoming',
  calendar: '/calendar',
} as const;
export const projectHref = (id: number) => `/projects/${id}`;
/** A project's calendar (issue 23): a screen of its own under the project's address. */
export const projectCalendarHref = (id: number) => `/projects/${id}/calendar`;

type PlainPage = keyof typeof SCREEN_PATHS;
export type Screen =
  | { page: PlainPage }
  | { page: 'project'; projectId: number }
  | { page: 'project-calendar'; projectId: number };

const PROJECT_PATH = /^\/projects\/([1-9]\d{0,14})(\/calendar)?$/;

/** The signed-in screen at `path` (a trailing slash aside), or null: nothing there (404). */
export function screenAt(path: string): Screen | null {
  const trimmed = path.length > 1 ? path.replace(/\/$/, '') : path;
  for (const page of Object.keys(SCREEN_PATHS) as PlainPage[]) {
    if (trimmed === SCREEN_PATHS[page]) return { page };
  }
  const project = PROJECT_PATH.exec(trimmed);
  if (!project) return null;
  return { page: project[2] ? 'project-calendar' : 'project', projectId: Number(project[1]) };
}

/** The screen the address shows now (null outside the signed-in screens). */
export function useScreen(): Screen | null {
  return screenAt(useLocation()[0]);
}

/** Focus to the screen's heading, where a screen reader starts reading a screen just opened. */
export const focusScreenHeading = () => document.querySelector<HTMLElement>('main h1')?.focus();
