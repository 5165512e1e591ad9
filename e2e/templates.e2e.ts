import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { PROJECT_COPY } from '../src/client/projects/copy';
import { SECTION_COPY } from '../src/client/sections/copy';
import { TEMPLATE_COPY } from '../src/client/templates/copy';
import type { Project } from '../src/common/projects';
import type { Section } from '../src/common/sections';
import { THEME_STORAGE_KEY } from '../src/common/spec';
import type { Task } from '../src/common/tasks';
import type { Template } from '../src/common/templates';
import { VIEWPORTS } from './accessibility';
import {
  apiFromPage,
  browserSuite,
  budget,
  describeBrowser,
  expectAccessible,
  openThemedPage,
  screenshot,
  signIn,
  unnamedFormFields,
} from './harness';

/**
 * Issue 29, templates in the browser: 'Save as template' in a project's header, 'New project from
 * template' beside 'New project' (from the keyboard alone), the new project's sections, tasks and
 * checklists; axe on both dialogs in both themes at 1280 and 390 px.
 */
describeBrowser('templates in the browser', () => {
  const suite = browserSuite();

  async function signedIn(viewport: { width: number; height: number } = VIEWPORTS.desktop): Promise<Page> {
    const page = await openThemedPage(suite, { theme: 'light', viewport });
    await page.goto('/');
    await signIn(page);
    return page;
  }

  /** A project with sections and tasks in them, one with a checklist, made through the API. */
  async function projectWith(page: Page, name: string) {
    const project = await apiFromPage<Project>(page, 'POST', '/api/projects', { name, color: 'green' });
    const section = (title: string) =>
      apiFromPage<Section>(page, 'POST', `/api/projects/${project.id}/sections`, { name: title });
    const sow = await section('Sow');
    const harvest = await section('Harvest');
    const task = (title: string, sectionId: number) =>
      apiFromPage<Task>(page, 'POST', '/api/tasks', { title, projectId: project.id, sectionId });
    const seeds = await task('Buy seeds', sow.id);
    await task('Pick beans', harvest.id);
    for (const title of ['Tomatoes', 'Basil']) {
      await apiFromPage(page, 'POST', `/api/tasks/${seeds.id}/checklist`, { title });
    }
    return project;
  }

  const sidebar = (page: Page) => page.getByRole('navigation', { name: PROJECT_COPY.navigation });
  const toast = (page: Page, text: string) =>
    page.getByRole('region', { name: /Notifications/ }).getByText(text, { exact: true });

  function focused(page: Page): Promise<string> {
    return page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return 'body';
      const labelled = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
      const name = el.getAttribute('aria-label') ?? labelled ?? el.textContent?.trim() ?? '';
      return `${el.tagName.toLowerCase()}:${name}`;
    });
  }

  it('saves a project as a template and makes a new project of it, from the keyboard alone', async () => {
    const page = await signedIn();
    const source = await projectWith(page, 'Vegetable garden');
    await page.goto(`/projects/${source.id}`);
    await page.getByRole('article', { name: 'Buy seeds' }).waitFor();

    // Save as template: the project's name by default, changed here.
    const saveButton = page.getByRole('button', { name: TEMPLATE_COPY.saveAsTemplate });
    await saveButton.click();
    const save = page.getByRole('dialog', { name: TEMPLATE_COPY.saveAsTemplate });
    const templateName = save.getByRole('textbox', { name: TEMPLATE_COPY.templateName });
    expect(await templateName.inputValue()).toBe('Vegetable garden');
    await templateName.fill('Garden kit');
    await save.getByRole('button', { name: TEMPLATE_COPY.saveTemplate }).click();
    await toast(page, TEMPLATE_COPY.saved).waitFor();
    await save.waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe(`button:${TEMPLATE_COPY.saveAsTemplate}`);
    const [template] = await apiFromPage<Template[]>(page, 'GET', '/api/templates');
    expect(template).toMatchObject({ name: 'Garden kit', taskCount: 2 });

    // New project from template, by keyboard: the newest template is chosen, its name proposed.
    await sidebar(page).getByRole('button', { name: TEMPLATE_COPY.newFromTemplate }).focus();
    await page.keyboard.press('Enter');
    const create = page.getByRole('dialog', { name: TEMPLATE_COPY.newFromTemplate });
    await create.waitFor();
    const choice = create.getByRole('radio', { name: /^Garden kit/ });
    await expect.poll(() => choice.isChecked()).toBe(true);
    await expect.poll(() => focused(page)).toMatch(/^input:/);
    // The template's radio, its delete button, then the name, the date, Cancel and Create.
    await choice.focus();
    await page.keyboard.press('Tab');
    await expect.poll(() => focused(page)).toBe(`button:${TEMPLATE_COPY.deleteTemplate('Garden kit')}`);
    await page.keyboard.press('Tab');
    await expect.poll(() => focused(page)).toBe(`input:${TEMPLATE_COPY.projectName}`);
    expect(await create.getByRole('textbox', { name: TEMPLATE_COPY.projectName }).inputValue()).toBe(
      'Garden kit',
    );
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Garden 2027');
    await page.keyboard.press('Tab');
    await expect.poll(() => focused(page)).toBe(`input:${TEMPLATE_COPY.startDate}`);
    const today = await create.getByLabel(TEMPLATE_COPY.startDate).inputValue();
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // Tab goes through the date's own parts (month, day, year), then Cancel, then Create.
    const passed: string[] = [];
    while (passed.length < 6 && (await focused(page)) !== `button:${TEMPLATE_COPY.createProject}`) {
      await page.keyboard.press('Tab');
      passed.push(await focused(page));
    }
    expect(passed.slice(-2)).toEqual(['button:Cancel', `button:${TEMPLATE_COPY.createProject}`]);
    await page.keyboard.press('Enter');

    // The new project's screen, its heading focused: its sections, tasks and checklist.
    await create.waitFor({ state: 'detached' });
    await toast(page, TEMPLATE_COPY.projectCreated).waitFor();
    await expect.poll(() => focused(page)).toBe('h1:Garden 2027');
    await page.getByRole('button', { name: SECTION_COPY.collapse('Sow') }).waitFor();
    await page.getByRole('button', { name: SECTION_COPY.collapse('Harvest') }).waitFor();
    const seeds = page.getByRole('article', { name: 'Buy seeds' });
    await seeds.getByText('0 of 2 checklist items done').waitFor();
    await page.getByRole('article', { name: 'Pick beans' }).waitFor();
    const made = (await apiFromPage<Project[]>(page, 'GET', '/api/projects')).find(
      (project) => project.name === 'Garden 2027',
    )!;
    expect(new URL(page.url()).pathname).toBe(`/projects/${made.id}`);
    await sidebar(page)
      .getByRole('link', { name: /^Garden 2027, 2 tasks$/ })
      .waitFor();
    await screenshot(page, 'templates-new-project');
  });

  it(
    'passes axe on both dialogs, light and dark, at 1280 and 390 px; a template is deleted from the list',
    async () => {
      const page = await signedIn();
      const source = await projectWith(page, 'Audit plot');
      await apiFromPage(page, 'POST', `/api/projects/${source.id}/template`, { name: 'Plot kit' });
      await page.goto(`/projects/${source.id}`);
      await page.getByRole('article', { name: 'Buy seeds' }).waitFor();
      const theme = (value: 'light' | 'dark') =>
        page.evaluate(
          ([key, next]) => {
            // As another tab's choice reaches this one: the app applies the stored theme.
            localStorage.setItem(key!, next!);
            window.dispatchEvent(new StorageEvent('storage', { key }));
          },
          [THEME_STORAGE_KEY, value],
        );

      for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
        await page.setViewportSize(viewport);
        const phone = viewport === VIEWPORTS.phone;
        for (const mode of ['light', 'dark'] as const) {
          await theme(mode);
          const label = `${viewport.name}-${mode}`;
          const audit = async (what: string) => {
            await expectAccessible(page, `${what} [${label}]`);
            expect(await unnamedFormFields(page), what).toEqual([]);
            if (phone) {
              const overflow = await page.evaluate(() =>
                Math.max(
                  document.documentElement.scrollWidth - window.innerWidth,
                  ...[...document.querySelectorAll('[role="dialog"]')].map(
                    (d) => d.scrollWidth - d.clientWidth,
                  ),
                ),
              );
              expect(overflow, `${what} [${label}] scrolls sideways`).toBeLessThanOrEqual(0);
            }
            await screenshot(page, `templates-${what}-${label}`);
          };

          await page.getByRole('button', { name: TEMPLATE_COPY.saveAsTemplate }).click();
          const save = page.getByRole('dialog', { name: TEMPLATE_COPY.saveAsTemplate });
          await save.getByRole('textbox', { name: TEMPLATE_COPY.templateName }).fill('');
          await save.getByRole('button', { name: TEMPLATE_COPY.saveTemplate }).click();
          await save.getByText('name is required').waitFor();
          await audit('save-dialog');
          await page.keyboard.press('Escape');
          await save.waitFor({ state: 'detached' });

          if (phone) await page.getByRole('button', { name: PROJECT_COPY.openNavigation }).click();
          await sidebar(page).getByRole('button', { name: TEMPLATE_COPY.newFromTemplate }).click();
          const create = page.getByRole('dialog', { name: TEMPLATE_COPY.newFromTemplate });
          await create.getByRole('radio', { name: /^Plot kit/ }).waitFor();
          await audit('new-from-template-dialog');
          await page.keyboard.press('Escape');
          await create.waitFor({ state: 'detached' });
        }
      }

      // Deleting: the template leaves the list, and focus stays in the dialog.
      await page.setViewportSize(VIEWPORTS.desktop);
      await sidebar(page).getByRole('button', { name: TEMPLATE_COPY.newFromTemplate }).click();
      const create = page.getByRole('dialog', { name: TEMPLATE_COPY.newFromTemplate });
      await create.getByRole('button', { name: TEMPLATE_COPY.deleteTemplate('Plot kit') }).click();
      await toast(page, TEMPLATE_COPY.deleted).waitFor();
      await create.getByRole('radio', { name: /^Plot kit/ }).waitFor({ state: 'detached' });
      expect(
        (await apiFromPage<Template[]>(page, 'GET', '/api/templates')).map((template) => template.name),
      ).not.toContain('Plot kit');
      await expect
        .poll(() => page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]')))
        .toBe(true);
    },
    budget(120_000),
  );
});
