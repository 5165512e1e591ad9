import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { PROJECT_COPY } from '../src/client/projects/copy';
import { SECTION_COPY } from '../src/client/sections/copy';
import type { Project } from '../src/common/projects';
import type { Section } from '../src/common/sections';
import type { Task } from '../src/common/tasks';
import { VIEWPORTS } from './accessibility';
import {
  ADMIN,
  apiFromPage,
  browserSuite,
  createTaskFromPage,
  describeBrowser,
  dragAnnouncement,
  expectAccessible,
  framesDrawn,
  openThemedPage,
  signIn,
} from './harness';

/**
 * Issue 23, in the browser: sections added, renamed and deleted; the List grouped by section with
 * collapsible headers; the Board, its cards dragged between columns by mouse, touch and keyboard
 * (saved: the API says so after a reload), a column moved, 'Add a task' at a column's foot; the
 * view remembered and in the address; axe on the board and the grouped list in both themes at
 * desktop and phone widths, the page never scrolling sideways.
 */
describeBrowser('sections and the board in the browser', () => {
  const suite = browserSuite();

  type Options = {
    theme?: 'light' | 'dark';
    viewport?: { width: number; height: number };
    hasTouch?: boolean;
  };

  async function signedIn({ theme = 'light', viewport = VIEWPORTS.desktop, hasTouch }: Options = {}) {
    const page = await openThemedPage(suite, { theme, viewport, hasTouch });
    await page.goto('/');
    await signIn(page, ADMIN.username, ADMIN.password);
    return { page, context: page.context() };
  }

  let projects = 0;
  /** A project with sections `names` and, in each, the tasks named; `none` for the tasks in none. */
  async function projectWith(page: Page, layout: Record<string, string[]>) {
    projects += 1;
    const project = await apiFromPage<Project>(page, 'POST', '/api/projects', {
      name: `Board ${projects}`,
      color: 'teal',
    });
    const sections: Record<string, Section> = {};
    for (const name of Object.keys(layout)) {
      if (name === 'none') continue;
      sections[name] = await apiFromPage<Section>(page, 'POST', `/api/projects/${project.id}/sections`, {
        name,
      });
    }
    const tasks: Record<string, Task> = {};
    for (const [name, titles] of Object.entries(layout)) {
      // Each new task goes on top: created last to first, they read in the order given.
      for (const title of [...titles].reverse()) {
        tasks[title] = await createTaskFromPage(page, title, {
          projectId: project.id,
          sectionId: sections[name]?.id ?? null,
        } as Partial<Task>);
      }
    }
    return { project, sections, tasks };
  }

  const projectTasks = (page: Page, projectId: number) =>
    apiFromPage<Task[]>(page, 'GET', `/api/tasks?projectId=${projectId}`);
  const sectionsOf = (page: Page, projectId: number) =>
    apiFromPage<Section[]>(page, 'GET', `/api/projects/${projectId}/sections`);
  /** The titles of a column's cards, top to bottom. */
  const columnTitles = (page: Page, name: string) =>
    column(page, name)
      .locator('article[data-task-id]')
      .evaluateAll((cards) =>
        cards
          .map((card) => ({ top: card.getBoundingClientRect().top, title: card.getAttribute('aria-label') }))
          .sort((a, b) => a.top - b.top)
          .map((card) => card.title),
      );
  const column = (page: Page, name: string) =>
    page.getByRole('region', { name: SECTION_COPY.board }).getByRole('region', { name, exact: true });
  const cardHandle = (page: Page, title: string) =>
    page
      .getByRole('article', { name: title, exact: true })
      .getByRole('button', { name: SECTION_COPY.moveCard });
  const sectionOf = async (page: Page, projectId: number, title: string) =>
    (await projectTasks(page, projectId)).find((task) => task.title === title)?.sectionId;
  const noSideways = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  /** A sidebar link by the start of its name (a project's is followed by its count: 'Board 3, 1 task'). */
  const sidebarLink = (page: Page, name: string) =>
    page
      .getByRole('navigation', { name: PROJECT_COPY.navigation })
      .getByRole('link', { name: new RegExp(`^${name}(?:,|$)`) });

  async function openBoard(page: Page, projectId: number) {
    await page.goto(`/projects/${projectId}?view=board`);
    await page.getByRole('region', { name: SECTION_COPY.board }).waitFor();
  }

  it('adds, renames and deletes sections in the List; a deleted section’s tasks go to No section', async () => {
    const { page } = await signedIn();
    const { project } = await projectWith(page, { none: ['Loose end'] });
    await page.goto(`/projects/${project.id}`);
    await page.getByRole('article', { name: 'Loose end' }).waitFor();
    // No sections: the list as it always was, no header.
    expect(await page.locator('[data-section-id]').count()).toBe(0);

    for (const name of ['Doing', 'Done']) {
      await page.getByRole('button', { name: SECTION_COPY.addSection }).click();
      const dialog = page.getByRole('dialog', { name: SECTION_COPY.addSection });
      await dialog.getByRole('textbox', { name: SECTION_COPY.sectionName }).fill(name);
      await dialog.getByRole('button', { name: SECTION_COPY.addSection }).click();
      await page.getByRole('button', { name: SECTION_COPY.collapse(name) }).waitFor();
    }
    // An empty name is refused in the dialog, with the schema's words.
    await page.getByRole('button', { name: SECTION_COPY.addSection }).click();
    const empty = page.getByRole('dialog', { name: SECTION_COPY.addSection });
    await empty.getByRole('button', { name: SECTION_COPY.addSection }).click();
    await empty.getByText('Name is required').waitFor();
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: SECTION_COPY.renameOf('Done') }).click();
    const rename = page.getByRole('dialog', { name: SECTION_COPY.rename });
    await rename.getByRole('textbox', { name: SECTION_COPY.sectionName }).fill('Shipped');
    await rename.getByRole('button', { name: SECTION_COPY.save }).click();
    await page.getByRole('button', { name: SECTION_COPY.collapse('Shipped') }).waitFor();
    expect((await sectionsOf(page, project.id)).map((s) => s.name)).toEqual(['Doing', 'Shipped']);

    // A task into 'Doing', then 'Doing' deleted: the task stays, in no section.
    const doing = (await sectionsOf(page, project.id))[0]!;
    const task = (await projectTasks(page, project.id))[0]!;
    await apiFromPage(page, 'PATCH', `/api/tasks/${task.id}`, { sectionId: doing.id });
    await page.getByRole('button', { name: SECTION_COPY.deleteOf('Doing') }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: SECTION_COPY.delete }).click();
    await expect
      .poll(async () => (await sectionsOf(page, project.id)).map((s) => s.name))
      .toEqual(['Shipped']);
    await expect.poll(() => sectionOf(page, project.id, 'Loose end')).toBeNull();
    await page.getByRole('article', { name: 'Loose end' }).waitFor();
  });

  it('groups the List by section; a header collapses its tasks, remembered after a reload', async () => {
    const { page } = await signedIn();
    const { project, tasks } = await projectWith(page, {
      none: ['Unsorted'],
      Doing: ['Paint fence', 'Mow lawn'],
      Done: ['Buy seeds'],
    });
    await page.goto(`/projects/${project.id}`);
    await page.getByRole('article', { name: 'Buy seeds' }).waitFor();
    // In order: the tasks in none, then each header and its tasks.
    const order = await page.locator('[data-section-id], article[data-task-id]').evaluateAll((rows) =>
      rows
        .map((row) => ({
          top: row.getBoundingClientRect().top,
          text: row.getAttribute('aria-label') ?? `# ${row.querySelector('button span')?.textContent}`,
        }))
        .sort((a, b) => a.top - b.top)
        .map((row) => row.text),
    );
    expect(order).toEqual(['Unsorted', '# Doing', 'Paint fence', 'Mow lawn', '# Done', 'Buy seeds']);

    await page.getByRole('button', { name: SECTION_COPY.collapse('Doing') }).click();
    await expect.poll(() => page.getByRole('article', { name: 'Paint fence' }).count()).toBe(0);
    await page.reload();
    await page.getByRole('button', { name: SECTION_COPY.expand('Doing') }).waitFor();
    expect(await page.getByRole('article', { name: 'Mow lawn' }).count()).toBe(0);
    await page.getByRole('button', { name: SECTION_COPY.expand('Doing') }).click();
    await page.getByRole('article', { name: 'Mow lawn' }).waitFor();

    // A keyboard reorder across a header moves the card into the section above it.
    await page
      .getByRole('article', { name: 'Buy seeds' })
      .getByRole('button', { name: 'Drag to reorder' })
      .focus();
    await page.keyboard.press('Space');
    await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Space');
    await expect.poll(() => sectionOf(page, project.id, 'Buy seeds')).toBe(tasks['Paint fence']!.sectionId);
  });

  it('moves cards between columns by mouse and by keyboard, saved; moves a column; adds a task at a foot', async () => {
    const { page } = await signedIn();
    const { project, sections } = await projectWith(page, {
      none: ['Idea'],
      Doing: ['Write tests', 'Review'],
      Done: ['Ship it'],
    });
    await openBoard(page, project.id);
    await column(page, 'Doing').getByRole('article', { name: 'Review' }).waitFor();

    // Mouse: 'Idea' from 'No section' onto 'Done', below 'Ship it'.
    const handle = (await cardHandle(page, 'Idea').boundingBox())!;
    const target = (await column(page, 'Done').getByRole('article', { name: 'Ship it' }).boundingBox())!;
    const x = handle.x + handle.width / 2;
    const y = handle.y + handle.height / 2;
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + 5, y + 5, { steps: 3 });
    await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
    await page.mouse.move(target.x + target.width / 2, target.y + target.height + 20, { steps: 20 });
    await framesDrawn(page);
    await page.mouse.up();
    await expect.poll(() => sectionOf(page, project.id, 'Idea')).toBe(sections.Done!.id);
    await expect.poll(() => columnTitles(page, 'Done')).toEqual(['Ship it', 'Idea']);

    // Keyboard: 'Write tests' one column to the left, into 'No section'.
    await cardHandle(page, 'Write tests').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Space');
    await expect.poll(() => sectionOf(page, project.id, 'Write tests')).toBeNull();

    // Saved: after a reload the board shows the same.
    await page.reload();
    await column(page, SECTION_COPY.noSection).getByRole('article', { name: 'Write tests' }).waitFor();
    expect(await columnTitles(page, 'Done')).toEqual(['Ship it', 'Idea']);

    // A column moved by keyboard: 'Done' before 'Doing'.
    await page.getByRole('button', { name: SECTION_COPY.moveColumn('Done') }).focus();
    await page.keyboard.press('Space');
    await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Space');
    await expect
      .poll(async () => (await sectionsOf(page, project.id)).map((s) => s.name))
      .toEqual(['Done', 'Doing']);

    // 'Add a task' at the foot of 'Doing' puts the task in 'Doing'.
    await page.getByRole('button', { name: SECTION_COPY.addTaskTo('Doing') }).click();
    await page.getByRole('textbox', { name: SECTION_COPY.taskTitle }).fill('From the foot');
    await page.keyboard.press('Enter');
    await column(page, 'Doing').getByRole('article', { name: 'From the foot' }).waitFor();
    expect(await sectionOf(page, project.id, 'From the foot')).toBe(sections.Doing!.id);
  });

  it('moves a card between columns by touch, after a long press', async () => {
    const { page, context } = await signedIn({ hasTouch: true });
    const { project, sections } = await projectWith(page, { none: ['Touch me'], Later: ['Anchor'] });
    await openBoard(page, project.id);
    const handle = (await cardHandle(page, 'Touch me').boundingBox())!;
    const target = (await column(page, 'Later').getByRole('article', { name: 'Anchor' }).boundingBox())!;
    const x = Math.round(handle.x + handle.width / 2);
    const y = Math.round(handle.y + handle.height / 2);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
    await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
    const toX = target.x + target.width / 2;
    const toY = target.y + target.height + 20;
    for (let step = 1; step <= 15; step++) {
      const at = { x: Math.round(x + ((toX - x) * step) / 15), y: Math.round(y + ((toY - y) * step) / 15) };
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [at] });
    }
    await framesDrawn(page);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await expect.poll(() => sectionOf(page, project.id, 'Touch me')).toBe(sections.Later!.id);
  });

  it('keeps the view in the address and remembers it per project', async () => {
    const { page } = await signedIn();
    const { project } = await projectWith(page, { Backlog: ['Something'] });
    await page.goto(`/projects/${project.id}`);
    await page.getByRole('article', { name: 'Something' }).waitFor();
    await page.getByRole('button', { name: SECTION_COPY.board, exact: true }).click();
    await page.getByRole('region', { name: SECTION_COPY.board }).waitFor();
    expect(new URL(page.url()).searchParams.get('view')).toBe('board');
    // To the Inbox and back by the sidebar: the board, and the address says so.
    await sidebarLink(page, PROJECT_COPY.inbox).click();
    await page.getByRole('button', { name: SECTION_COPY.list, exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('view')).toBeNull();
    await sidebarLink(page, project.name).click();
    await page.getByRole('region', { name: SECTION_COPY.board }).waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('view')).toBe('board');
    // Filled in, not pushed: Back leaves the project rather than landing on it without the parameter.
    await page.goBack();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    // Opened again without the parameter: the board, as last chosen.
    await page.goto(`/projects/${project.id}`);
    await page.getByRole('region', { name: SECTION_COPY.board }).waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('view')).toBe('board');
    expect(
      await page.getByRole('button', { name: SECTION_COPY.board, exact: true }).getAttribute('aria-pressed'),
    ).toBe('true');
    await page.getByRole('button', { name: SECTION_COPY.list, exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('view')).toBeNull();
    await page.getByRole('article', { name: 'Something' }).waitFor();
    // The Inbox has its own view, the List still.
    await page.goto('/');
    await page.getByRole('button', { name: SECTION_COPY.list, exact: true }).waitFor();
    expect(
      await page.getByRole('button', { name: SECTION_COPY.list, exact: true }).getAttribute('aria-pressed'),
    ).toBe('true');

    // A board opened from its address is remembered too: away and back, it is still the board.
    const other = (await projectWith(page, { Backlog: ['Elsewhere'] })).project;
    await openBoard(page, other.id);
    await sidebarLink(page, PROJECT_COPY.inbox).click();
    await page.getByRole('button', { name: SECTION_COPY.list, exact: true }).waitFor();
    await sidebarLink(page, other.name).click();
    await column(page, 'Backlog').getByRole('article', { name: 'Elsewhere' }).waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('view')).toBe('board');
    await page.goto(`/projects/${other.id}`);
    await column(page, 'Backlog').getByRole('article', { name: 'Elsewhere' }).waitFor();
    expect(new URL(page.url()).searchParams.get('view')).toBe('board');
  });

  it('is accessible: the board and the grouped list, light and dark, desktop and phone', async () => {
    let layout: number | undefined;
    for (const theme of ['light', 'dark'] as const) {
      for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
        const { page } = await signedIn({ theme, viewport });
        if (layout === undefined) {
          const { project } = await projectWith(page, {
            none: ['Loose'],
            Doing: ['A task with a rather longer title to wrap', 'Another'],
            Review: ['Check'],
            Done: ['Old'],
          });
          layout = project.id;
        }
        const what = `${theme} ${viewport.name}`;
        await page.goto(`/projects/${layout}`);
        await page.getByRole('article', { name: 'Check' }).waitFor();
        await expectAccessible(page, `grouped list, ${what}`);
        expect(await noSideways(page), `grouped list, ${what}`).toBeLessThanOrEqual(0);
        await openBoard(page, layout);
        await column(page, 'Done').getByRole('article', { name: 'Old' }).waitFor();
        await expectAccessible(page, `board, ${what}`);
        expect(await noSideways(page), `board, ${what}`).toBeLessThanOrEqual(0);
        if (theme === 'light' && viewport === VIEWPORTS.desktop) {
          // Filtered, the cards have no handles to tab through: each column takes focus itself, so a
          // keyboard can scroll it (as for a viewer).
          await page.goto(`/projects/${layout}?view=board&q=o`);
          const cards = column(page, 'Done').getByRole('group', { name: SECTION_COPY.columnCards('Done') });
          await cards.getByRole('article', { name: 'Old' }).waitFor();
          expect(await cards.getAttribute('tabindex')).toBe('0');
          await expectAccessible(page, `filtered board, ${what}`);
        }
      }
    }
  });
});
