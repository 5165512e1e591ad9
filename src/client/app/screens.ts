import { useLocation } from 'wouter';

/**
 * The signed-in screens and their addresses (spec §2, issue 21): the Inbox at `/` (the spec's main
 * screen), its archive, the tasks assigned to the caller, and one project. Kept apart from the
 * routes so the sidebar, the shortcuts and the palette read the same answer.
 */
export const SCREEN_PATHS = { inbox: '/', archive: '/archive', assigned: '/assigned' } as const;
export const projectHref = (id: number) => `/projects/${id}`;

export type Screen =
  | { page: 'inbox' }
  | { page: 'archive' }
  | { page: 'assigned' }
  | { page: 'project'; projectId: number };

const PROJECT_PATH = /^\/projects\/([1-9]\d{0,14})$/;

/** The signed-in screen at `path` (a trailing slash aside), or null: nothing there (404). */
export function screenAt(path: string): Screen | null {
  const trimmed = path.length > 1 ? path.replace(/\/$/, '') : path;
  for (const page of ['inbox', 'archive', 'assigned'] as const) {
    if (trimmed === SCREEN_PATHS[page]) return { page };
  }
  const project = PROJECT_PATH.exec(trimmed);
  return project ? { page: 'project', projectId: Number(project[1]) } : null;
}

/** The screen the address shows now (null outside the signed-in screens). */
export function useScreen(): Screen | null {
  return screenAt(useLocation()[0]);
}

/** Focus to the screen's heading, where a screen reader starts reading a screen just opened. */
export const focusScreenHeading = () => document.querySelector<HTMLElement>('main h1')?.focus();
