import type { Locator, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { CredentialsResponse } from '../src/common/admin';
import type { Comment } from '../src/common/comments';
import type { Project, ProjectMember } from '../src/common/projects';
import { THEME_STORAGE_KEY } from '../src/common/spec';
import type { Task } from '../src/common/tasks';
import {
  apiFromPage,
  browserSuite,
  budget,
  describeBrowser,
  expectAccessible,
  type OpenPage,
  openContext,
  openPage,
  screenshot,
  signIn,
  watchLiveStream,
} from './harness';

const XSS_LINK = '[x](javascript:alert(1))';
const XSS_IMAGE = '<img src=x onerror=alert(1)>';

/**
 * Working together on a task (issue 21): two people share a project; one assigns the other and
 * comments (Ctrl+Enter) with a mention and two attempts at running script; the other sees it live.
 * A shared project's tasks are shown on its screen, `/projects/{id}` (the projects screens, i21-ui).
 */
describeBrowser('comments, assignees and activity in the browser', () => {
  const suite = browserSuite({ expectNoErrors: false });
  const { opened } = suite;
  let admin: OpenPage;
  let ben: { username: string; password: string; firstName: string };
  let project: Project;
  let adminName: string;
  /** Every alert, confirm or prompt any page raised: a script from a comment would raise one. */
  const dialogs: string[] = [];

  beforeAll(async () => {
    admin = await session();
    await signIn(admin.page);
    const created = await apiFromPage<CredentialsResponse>(admin.page, 'POST', '/api/admin/users', {
      firstName: 'Ben',
      email: 'ben@example.com',
    });
    ben = { username: created.user.username, password: created.password, firstName: 'Ben' };
    project = await apiFromPage<Project>(admin.page, 'POST', '/api/projects', {
      name: 'Website',
      color: 'teal',
    });
    await apiFromPage(admin.page, 'POST', `/api/projects/${project.id}/members`, {
      user: ben.username,
      role: 'editor',
    });
    const members = await apiFromPage<ProjectMember[]>(
      admin.page,
      'GET',
      `/api/projects/${project.id}/members`,
    );
    adminName = members.find((member) => member.role === 'owner')!.firstName;
  }, budget(60_000));

  async function session(contextOptions = {}): Promise<OpenPage> {
    const tab = await openPage(suite.browser, suite.server, '/', contextOptions);
    tab.page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    return tab;
  }

  const newTask = (title: string) =>
    apiFromPage<Task>(admin.page, 'POST', '/api/tasks', { title, projectId: project.id });
  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const section = (scope: Locator, name: string | RegExp) => scope.getByRole('region', { name, exact: true });
  /** Named 'Comments', then the count once there are any: 'Comments (2)'. */
  const comments = (scope: Locator) => section(scope, /^Comments( \(\d+\))?$/);

  async function openProject(page: Page) {
    await page.goto(`/projects/${project.id}`);
    await page.getByRole('heading', { name: 'Website', level: 1 }).waitFor();
  }

  async function expand(scope: Locator) {
    await scope.getByRole('button', { name: 'Expand task' }).click();
    await section(scope, 'Activity').getByRole('listitem').first().waitFor();
    await comments(scope)
      .getByText('No comments yet.')
      .or(comments(scope).getByRole('listitem').first())
      .waitFor();
  }

  it(
    'one assigns the other and comments with Ctrl+Enter; the other sees it live; no script runs',
    async () => {
      const task = await newTask('Launch the new site');
      const other = await session();
      opened.push(other);
      await signIn(other.page, ben.username, ben.password);
      const { listening } = await watchLiveStream(other.page);
      await openProject(other.page);
      await listening;
      const benCard = card(other.page, task.title);
      await expand(benCard);

      await openProject(admin.page);
      const adminCard = card(admin.page, task.title);
      await expand(adminCard);

      // Assign Ben from the keyboard: the picker opens, Space ticks him, Escape closes it.
      const assignees = section(adminCard, 'Assignees');
      await assignees.getByText('No one is assigned.').waitFor();
      await assignees.getByRole('button', { name: 'Assign' }).focus();
      await admin.page.keyboard.press('Enter');
      const picker = admin.page.getByRole('dialog', { name: 'Assign people' });
      const benBox = picker.getByRole('checkbox', { name: new RegExp(`^Ben @${ben.username}`) });
      await benBox.focus();
      // Listened for before the key: the answer may come before the box shows the tick.
      const saved = admin.page.waitForResponse(
        (response) =>
          response.url().endsWith(`/api/tasks/${task.id}`) && response.request().method() === 'PATCH',
      );
      await admin.page.keyboard.press('Space');
      await expect.poll(() => benBox.isChecked()).toBe(true);
      await saved;
      await admin.page.keyboard.press('Escape');
      await picker.waitFor({ state: 'detached' });
      await assignees.getByRole('listitem').filter({ hasText: 'Ben' }).waitFor();

      // Comment with Ctrl+Enter: a mention, a javascript: link and raw HTML.
      const composer = comments(adminCard).getByRole('textbox', { name: 'Add a comment' });
      await composer.fill(`Over to you @${ben.username}: ${XSS_LINK} and ${XSS_IMAGE} **done**`);
      await composer.press('Control+Enter');
      await expect.poll(() => composer.inputValue(), { timeout: budget(10_000) }).toBe('');

      for (const [page, scope] of [
        [admin.page, adminCard],
        [other.page, benCard],
      ] as const) {
        // Ben's card has not been reloaded: the comment reaches it live.
        const thread = comments(scope);
        const item = thread.getByRole('listitem').filter({ hasText: 'Over to you' });
        await item.waitFor({ timeout: budget(10_000) });
        expect(await item.locator('mark').textContent()).toBe(`@${ben.username}`);
        expect(await item.locator('strong').textContent()).toBe('done');
        // The raw HTML shows as the text it is; the javascript: link is words, not a link.
        await item.getByText(XSS_IMAGE, { exact: false }).waitFor();
        expect(await item.locator('img').count()).toBe(0);
        expect(await item.getByRole('link').count()).toBe(0);
        expect(await page.locator('a[href^="javascript:" i], [onerror]').count()).toBe(0);
        await item.getByText('x', { exact: true }).click();
        // Activity tells of both, newest first.
        const activity = section(scope, 'Activity').getByRole('listitem');
        await expect
          .poll(() => activity.allTextContents(), { timeout: budget(10_000) })
          .toEqual([
            expect.stringContaining(`${adminName} commented`),
            expect.stringContaining(`${adminName} assigned Ben`),
            expect.stringContaining(`${adminName} created this`),
          ]);
      }
      // Ben's own collapsed card: his initials, named, and the count.
      await benCard.getByRole('button', { name: 'Collapse task' }).click();
      await benCard.getByText('Assigned to Ben').waitFor();
      await benCard.getByText('1 comment', { exact: true }).waitFor();

      const stored = await apiFromPage<Comment[]>(admin.page, 'GET', `/api/tasks/${task.id}/comments`);
      expect(stored.map((comment) => comment.body)).toEqual([
        `Over to you @${ben.username}: ${XSS_LINK} and ${XSS_IMAGE} **done**`,
      ]);
      expect(dialogs).toEqual([]);
      expect(admin.errors).toEqual([]);
      expect(other.errors).toEqual([]);
    },
    budget(90_000),
  );

  it(
    'the author edits and deletes their comment from the keyboard; a link opens apart, with noopener',
    async () => {
      const task = await newTask('Write the release notes');
      await apiFromPage(admin.page, 'POST', `/api/tasks/${task.id}/comments`, {
        body: 'See [the plan](https://example.com/plan)',
      });
      await openProject(admin.page);
      const scope = card(admin.page, task.title);
      await expand(scope);
      const thread = comments(scope);
      const link = thread.getByRole('link', { name: 'the plan' });
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await link.getAttribute('target')).toBe('_blank');

      await thread.getByRole('button', { name: 'Edit comment' }).click();
      const field = thread.getByRole('textbox', { name: 'Edit your comment' });
      await field.fill('Plan moved to the wiki');
      await field.press('Control+Enter');
      await thread.getByText('Plan moved to the wiki').waitFor();
      await thread.getByText('(edited)').waitFor();
      await expect
        .poll(() => admin.page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe('Edit comment');

      await admin.page.keyboard.press('Tab');
      await admin.page.keyboard.press('Enter');
      await thread.getByText('No comments yet.').waitFor();
      // Focus goes to the composer, not to the page.
      await expect
        .poll(() => admin.page.evaluate(() => document.activeElement?.getAttribute('name')))
        .toBe('comment');
      expect(await apiFromPage<Comment[]>(admin.page, 'GET', `/api/tasks/${task.id}/comments`)).toEqual([]);
      expect(admin.errors).toEqual([]);
    },
    budget(60_000),
  );

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 800 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    for (const theme of ['light', 'dark']) {
      it(
        `passes axe on an expanded card with comments and activity: ${viewport.name}-${theme}`,
        async () => {
          const context = await openContext(suite.browser, { baseURL: suite.server.url, viewport });
          await context.addInitScript(
            ([key, value]) => localStorage.setItem(key!, value!),
            [THEME_STORAGE_KEY, theme],
          );
          const page = await context.newPage();
          opened.push({ context, page, errors: [] });
          await page.goto('/');
          await signIn(page);
          const title = `Plan the launch party ${viewport.name} ${theme}`;
          const task = await newTask(title);
          await apiFromPage(page, 'PATCH', `/api/tasks/${task.id}`, {
            assigneeIds: [
              (await apiFromPage<ProjectMember[]>(page, 'GET', `/api/projects/${project.id}/members`)).find(
                (m) => m.firstName === 'Ben',
              )!.userId,
            ],
          });
          await apiFromPage(page, 'POST', `/api/tasks/${task.id}/comments`, {
            body: `@${ben.username} can you book the venue? Options:\n\n- The **roof** terrace\n- [The hall](https://example.com/hall)\n\n\`budget: 500\``,
          });
          await apiFromPage(page, 'PATCH', `/api/tasks/${task.id}`, { title: `${title}!` });
          await openProject(page);
          const scope = card(page, `${title}!`);
          await expand(scope);
          await expectAccessible(page, `comments [${viewport.name}-${theme}]`, 'article');
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          expect(overflow).toBeLessThanOrEqual(0);
          await screenshot(page, `comments-${viewport.name}-${theme}`);
          await section(scope, 'Assignees').getByRole('button', { name: 'Assign' }).click();
          await page.getByRole('dialog', { name: 'Assign people' }).waitFor();
          await expectAccessible(page, `assignee picker [${viewport.name}-${theme}]`);
          await screenshot(page, `assignees-${viewport.name}-${theme}`);
        },
        budget(60_000),
      );
    }
  }
});
