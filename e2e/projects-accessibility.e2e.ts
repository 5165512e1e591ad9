import { expect, it } from 'vitest';
import { PROJECT_COPY } from '../src/client/projects/copy';
import { VIEWPORTS } from './accessibility';
import {
  ADMIN,
  apiFromPage,
  browserSuite,
  budget,
  describeBrowser,
  expectAccessible,
  framesDrawn,
  screenshot,
  unnamedFormFields,
} from './harness';
import { projectHelpers } from './projects';

/**
 * Issue 21, 'In the browser': axe on the sidebar (a drawer on a phone), a project's screen, the
 * Share and New project dialogs and a commenter's view, in both themes at desktop and phone widths.
 * Apart from projects.e2e.ts so the two files run side by side.
 */
describeBrowser('projects in the browser: accessibility', () => {
  const suite = browserSuite();
  const { signedIn, newPerson, createProject, share, sidebar, projectLink, card, focused, openShare } =
    projectHelpers(suite);

  const AUDITS = [
    ['light', VIEWPORTS.desktop],
    ['dark', VIEWPORTS.desktop],
    ['light', VIEWPORTS.phone],
    ['dark', VIEWPORTS.phone],
  ] as const;

  for (const [theme, viewport] of AUDITS) {
    const label = `${viewport.name}-${theme}`;
    it(
      `passes axe on the sidebar, a project, the share and new-project dialogs: ${label}`,
      async () => {
        const owner = await signedIn(ADMIN.username, ADMIN.password, {
          theme,
          viewport,
          reducedMotion: 'reduce',
        });
        const phone = viewport === VIEWPORTS.phone;
        const person = await newPerson(owner, `Dee ${label}`);
        const project = await createProject(owner, `Launch ${label}`, 'violet');
        await share(owner, project.id, person.username, 'commenter');
        const archived = await createProject(owner, `Old ${label}`, 'brown');
        await apiFromPage(owner, 'PATCH', `/api/projects/${archived.id}`, { archived: true });
        await apiFromPage(owner, 'POST', '/api/tasks', {
          title: 'Draft the announcement',
          projectId: project.id,
        });
        await owner.goto(`/projects/${project.id}`);
        await card(owner, 'Draft the announcement').waitFor();

        const audit = async (screen: string) => {
          await expectAccessible(owner, `${screen} [${label}]`);
          expect(await unnamedFormFields(owner), screen).toEqual([]);
          if (phone) {
            const overflow = await owner.evaluate(
              () => document.documentElement.scrollWidth - window.innerWidth,
            );
            expect(overflow, `${screen} [${label}] scrolls sideways`).toBeLessThanOrEqual(0);
            // Nor does a dialog's content: it fits the dialog.
            const dialogOverflow = await owner.evaluate(() =>
              Math.max(
                0,
                ...[...document.querySelectorAll('[role="dialog"]')].map(
                  (d) => d.scrollWidth - d.clientWidth,
                ),
              ),
            );
            expect(dialogOverflow, `${screen} [${label}] dialog scrolls sideways`).toBe(0);
          }
          await screenshot(owner, `projects-${screen}-${label}`);
        };

        if (phone) {
          expect(await sidebar(owner).count()).toBe(0);
          await owner.getByRole('button', { name: PROJECT_COPY.openNavigation }).click();
          await owner.getByRole('dialog', { name: PROJECT_COPY.navigation }).waitFor();
        }
        await sidebar(owner)
          .getByRole('button', { name: new RegExp(PROJECT_COPY.archivedProjects) })
          .click();
        await projectLink(owner, `Old ${label}`).waitFor();
        await audit('sidebar');
        if (phone) {
          // A link followed closes the drawer; the screen's heading takes focus.
          await projectLink(owner, `Launch ${label}`).click();
          await owner.getByRole('dialog', { name: PROJECT_COPY.navigation }).waitFor({ state: 'detached' });
          await expect.poll(() => focused(owner)).toBe(`h1:Launch ${label}`);
        }
        await owner.getByRole('list', { name: PROJECT_COPY.members }).getByRole('img').nth(1).waitFor();
        await audit('project');

        const dialog = await openShare(owner);
        await audit('share-dialog');
        await dialog.getByRole('button', { name: 'Close' }).click();
        await dialog.waitFor({ state: 'detached' });

        if (phone) {
          await owner.getByRole('button', { name: PROJECT_COPY.openNavigation }).click();
        }
        await sidebar(owner).getByRole('button', { name: PROJECT_COPY.newProject, exact: true }).click();
        const create = owner.getByRole('dialog', { name: PROJECT_COPY.newProject });
        await create.waitFor();
        await create.getByRole('button', { name: PROJECT_COPY.createProject }).click();
        await create.getByText('Name is required').waitFor();
        await audit('new-project-dialog');
        await owner.keyboard.press('Escape');
        await create.waitFor({ state: 'detached' });
        if (phone) {
          // Back to the menu button that opened the drawer.
          await expect.poll(() => focused(owner)).toBe(`button:${PROJECT_COPY.openNavigation}`);
        }

        // The commenter's view of the same project: no controls to change tasks.
        const commenter = await signedIn(person.username, person.password, {
          theme,
          viewport,
          path: `/projects/${project.id}`,
          reducedMotion: 'reduce',
        });
        await card(commenter, 'Draft the announcement').waitFor();
        await expectAccessible(commenter, `project-commenter [${label}]`);
        await screenshot(commenter, `projects-project-commenter-${label}`);
        await commenter.goto('/assigned');
        await commenter.getByText(PROJECT_COPY.assignedEmpty).waitFor();
        await expectAccessible(commenter, `assigned [${label}]`);
        await screenshot(commenter, `projects-assigned-${label}`);
        await framesDrawn(commenter);
      },
      budget(120_000),
    );
  }
});
