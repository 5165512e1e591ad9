import type { Locator, Page } from 'playwright-core';
import { PROJECT_COPY } from '../src/client/projects/copy';
import type { CredentialsResponse } from '../src/common/admin';
import type { Project } from '../src/common/projects';
import type { Task } from '../src/common/tasks';
import { VIEWPORTS } from './accessibility';
import { ADMIN, apiFromPage, type BrowserSuite, openThemedPage, signIn } from './harness';

/**
 * What the projects' browser tests share (projects.e2e.ts, and projects-accessibility.e2e.ts, a file
 * of its own so the two run side by side): sign-ins, accounts and projects made through the API,
 * and the locators of the sidebar, the Share dialog and the palette, on `suite`'s server.
 */
export function projectHelpers(suite: BrowserSuite) {
  type Options = {
    theme?: 'light' | 'dark';
    viewport?: { width: number; height: number };
    path?: string;
    /** 'reduce' for an audit: the settled screens are the same, and nothing waits out a fade. */
    reducedMotion?: 'reduce' | 'no-preference';
  };

  /** A fresh suite.browser context signed in as `username`, on `path` once signed in. */
  async function signedIn(
    username: string = ADMIN.username,
    password: string = ADMIN.password,
    { theme = 'light', viewport = VIEWPORTS.desktop, path = '/', reducedMotion }: Options = {},
  ): Promise<Page> {
    const page = await openThemedPage(suite, { theme, viewport, reducedMotion });
    await page.goto('/');
    await signIn(page, username, password);
    if (path !== '/') {
      await page.goto(path);
      await page.locator('main h1').waitFor();
    }
    return page;
  }

  let people = 0;
  /** A new account, made by the administrator through the API. */
  async function newPerson(admin: Page, firstName: string) {
    people += 1;
    const created = await apiFromPage<CredentialsResponse>(admin, 'POST', '/api/admin/users', {
      firstName,
      email: `${firstName.toLowerCase().replace(/\W/g, '')}${people}@example.com`,
    });
    return { id: created.user.id, username: created.user.username, password: created.password };
  }

  const createProject = (page: Page, name: string, color = 'teal') =>
    apiFromPage<Project>(page, 'POST', '/api/projects', { name, color });
  const share = (page: Page, projectId: number, user: string, role: string) =>
    apiFromPage(page, 'POST', `/api/projects/${projectId}/members`, { user, role });
  const projectTasks = (page: Page, projectId: number) =>
    apiFromPage<Task[]>(page, 'GET', `/api/tasks?projectId=${projectId}`);
  const inboxTasks = (page: Page) => apiFromPage<Task[]>(page, 'GET', '/api/tasks');

  const sidebar = (page: Page) => page.getByRole('navigation', { name: PROJECT_COPY.navigation });
  // The link's name is the project's, then its count ('Garden, 2 tasks').
  const projectLink = (page: Page, name: string) =>
    sidebar(page).getByRole('link', {
      name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:,|$)`),
    });
  const shareDialog = (page: Page) => page.getByRole('dialog', { name: /^Share “/ });
  const palette = (page: Page) => page.getByRole('dialog', { name: 'Command palette' });
  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const toast = (page: Page, text: string) =>
    page.getByRole('region', { name: /Notifications/ }).getByText(text, { exact: true });

  function focused(page: Page): Promise<string> {
    return page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return 'body';
      const name = el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '';
      return `${el.tagName.toLowerCase()}:${name}`;
    });
  }

  async function openShare(page: Page): Promise<Locator> {
    await page.getByRole('button', { name: PROJECT_COPY.share, exact: true }).click();
    const dialog = shareDialog(page);
    await dialog.getByRole('list', { name: PROJECT_COPY.members }).waitFor();
    return dialog;
  }

  return {
    signedIn,
    newPerson,
    createProject,
    share,
    projectTasks,
    inboxTasks,
    sidebar,
    projectLink,
    shareDialog,
    palette,
    card,
    toast,
    focused,
    openShare,
  };
}
