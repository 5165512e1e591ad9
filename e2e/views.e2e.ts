import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { VIEW_COPY } from '../src/client/views/copy';
import { dayAfterKey, longDayHeading } from '../src/client/views/days';
import type { PublicUser } from '../src/common/auth';
import { addDays, dateInZone } from '../src/common/due';
import type { Project } from '../src/common/projects';
import type { Task } from '../src/common/tasks';
import { VIEWPORTS } from './accessibility';
import {
  apiFromPage,
  browserSuite,
  deleteAllTasks,
  describeBrowser,
  dragAnnouncement,
  expectAccessible,
  framesDrawn,
  openThemedPage,
  screenshot,
  signIn,
} from './harness';

const ZONE = 'Europe/Berlin';

/**
 * Today, Upcoming and the calendar (issue 23): Today's two groups in their order, Upcoming's day
 * headings, a card dragged to another day (kept after a reload) and 'Add a task' on a day, the
 * calendar's arrow keys, Enter and drag, its agenda at a phone's width, g t and g u; axe on each
 * view in both themes at 1280 and 390 px.
 */
describeBrowser('Today, Upcoming and the calendar in the browser', () => {
  const suite = browserSuite();

  type Viewport = { width: number; height: number };
  async function signedIn(theme: 'light' | 'dark' = 'light', viewport: Viewport = VIEWPORTS.desktop) {
    const page = await openThemedPage(suite, { theme, viewport, timezoneId: ZONE, locale: 'en-GB' });
    await page.goto('/');
    await signIn(page);
    // The browser's zone is the account's (set at sign-in): the views' days are Berlin's.
    await expect
      .poll(async () => (await apiFromPage<{ user: PublicUser }>(page, 'GET', '/api/auth/me')).user.timeZone)
      .toBe(ZONE);
    return page;
  }

  const today = () => dateInZone(Date.now(), ZONE);
  const create = (page: Page, title: string, fields: Record<string, unknown> = {}) =>
    apiFromPage<Task>(page, 'POST', '/api/tasks', { title, ...fields });
  const task = (page: Page, id: number) => apiFromPage<Task>(page, 'GET', `/api/tasks/${id}`);
  const card = (scope: Page | Locator, title: string) =>
    scope.getByRole('article', { name: title, exact: true });
  const section = (page: Page, heading: string) =>
    page
      .locator('section')
      .filter({ has: page.getByRole('heading', { name: heading, level: 2, exact: true }) });
  const titlesIn = (scope: Locator) =>
    scope.getByRole('article').evaluateAll((cards) => cards.map((c) => c.getAttribute('aria-label')));
  const sidebar = (page: Page) => page.getByRole('navigation', { name: 'Projects' });
  const onlyMine = (page: Page) => page.getByRole('checkbox', { name: VIEW_COPY.onlyAssigned });

  /** No task in the Inbox and none of the projects earlier tests made: their tasks would show here. */
  async function clearAll(page: Page) {
    await deleteAllTasks(page);
    for (const project of await apiFromPage<Project[]>(page, 'GET', '/api/projects')) {
      if (!project.inbox && project.role === 'owner')
        await apiFromPage(page, 'DELETE', `/api/projects/${project.id}`);
    }
  }

  /** Drags with the mouse from one element to where `target` is, the lifted card's centre landing on it. */
  async function drag(page: Page, handle: Locator, lifted: Locator, target: Locator) {
    const from = (await handle.boundingBox())!;
    const item = (await lifted.boundingBox())!;
    const to = (await target.boundingBox())!;
    const start = { x: from.x + from.width / 2, y: from.y + from.height / 2 };
    // The library drops where the lifted card's centre is, not the pointer.
    const offset = { x: item.x + item.width / 2 - start.x, y: item.y + item.height / 2 - start.y };
    const end = { x: to.x + to.width / 2 - offset.x, y: to.y + to.height / 2 - offset.y };
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    await page.mouse.move(start.x, start.y + 10, { steps: 3 });
    await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
    await page.mouse.move(end.x, end.y, { steps: 15 });
    // Lists make room as the card passes: nudge it until the target is the one it is over.
    const wanted = await target.getAttribute('data-rfd-droppable-id');
    const over = () =>
      page.evaluate(() =>
        document
          .querySelector('[data-rfd-droppable-id].bg-accent\\/60')
          ?.getAttribute('data-rfd-droppable-id'),
      );
    for (let nudge = 0, y = end.y; nudge < 20; nudge += 1) {
      // The library follows the pointer on animation frames: on a busy machine it may not have yet.
      await framesDrawn(page);
      const now = await over();
      if (now === wanted) break;
      // Over no list yet: the same place again, rather than a guess at a direction.
      if (now) y += wanted && now > wanted ? -8 : 8;
      await page.mouse.move(end.x, y, { steps: 2 });
    }
    await expect.poll(over).toBe(wanted);
    await page.mouse.up();
  }

  it("Today: 'Overdue' then 'Today', by time then list order, across the Inbox, what is assigned to me and what nobody has in my projects; axe in both themes and widths", async () => {
    const page = await signedIn();
    await clearAll(page);
    const me = (await apiFromPage<{ user: { id: number } }>(page, 'GET', '/api/auth/me')).user;
    const day = today();
    await create(page, 'Pay rent', { dueDate: day });
    await create(page, 'Late call', { dueDate: day, dueTime: '23:59' });
    await create(page, 'Early call', { dueDate: day, dueTime: '00:00' });
    await create(page, 'File the report', { dueDate: addDays(day, -3) });
    await create(page, 'Next week', { dueDate: addDays(day, 7) });
    await create(page, 'No date');
    const site = await apiFromPage<Project>(page, 'POST', '/api/projects', {
      name: 'Website',
      color: 'teal',
    });
    const assigned = await create(page, 'Fix the footer', { dueDate: day, projectId: site.id });
    await apiFromPage(page, 'PATCH', `/api/tasks/${assigned.id}`, { assigneeIds: [me.id] });
    await create(page, 'Nobody’s task', { dueDate: day, projectId: site.id });

    await page.reload();
    const link = sidebar(page).getByRole('link', { name: /^Today, / });
    await expect.poll(() => link.getAttribute('aria-label')).toBe('Today, 6 tasks');
    await expect
      .poll(() =>
        sidebar(page)
          .getByRole('link', { name: /^Upcoming, / })
          .getAttribute('aria-label'),
      )
      .toBe('Upcoming, 6 tasks');
    await link.click();
    await page.getByRole('heading', { name: VIEW_COPY.today, level: 1 }).waitFor();
    expect(await page.title()).toBe('Today · Tasklane');
    expect(new URL(page.url()).pathname).toBe('/today');
    await card(page, 'Fix the footer').waitFor();
    expect(await page.locator('main section > h2').allTextContents()).toEqual(['Overdue 2', 'Today 4']);
    expect(await titlesIn(section(page, 'Overdue 2'))).toEqual(['File the report', 'Early call']);
    // Timed first by time, then the date-only ones in list order (position, then id).
    expect(await titlesIn(section(page, 'Today 4'))).toEqual([
      'Late call',
      'Nobody’s task',
      'Pay rent',
      'Fix the footer',
    ]);
    // A list across projects names each card's project, as a link there; the Inbox's cards need not.
    const footer = card(page, 'Fix the footer').getByRole('link', { name: 'Project: Website' });
    await footer.waitFor();
    expect(
      await card(page, 'Pay rent')
        .getByRole('link', { name: /^Project: / })
        .count(),
    ).toBe(0);
    await screenshot(page, 'views-today');
    await expectAccessible(page, 'Today, light, desktop');

    for (const [theme, viewport] of [
      ['dark', VIEWPORTS.desktop],
      ['light', VIEWPORTS.phone],
      ['dark', VIEWPORTS.phone],
    ] as const) {
      const other = await signedIn(theme, viewport);
      await other.goto('/today');
      await card(other, 'Pay rent').waitFor();
      await expectAccessible(other, `Today, ${theme}, ${viewport.name}`);
    }
    // The link opens the project, whose own cards do not repeat its name.
    await footer.click();
    await page.getByRole('heading', { name: 'Website', level: 1 }).waitFor();
    await card(page, 'Fix the footer').waitFor();
    expect(
      await card(page, 'Fix the footer')
        .getByRole('link', { name: /^Project: / })
        .count(),
    ).toBe(0);
  });

  it("'Only tasks assigned to me': a project's unassigned task shows on Today, Upcoming and the calendar until it is ticked, and the choice survives a reload; axe", async () => {
    const page = await signedIn();
    await clearAll(page);
    const day = today();
    await create(page, 'Water plants', { dueDate: day });
    const garden = await apiFromPage<Project>(page, 'POST', '/api/projects', {
      name: 'Garden',
      color: 'green',
    });
    await create(page, 'Mow the lawn', { dueDate: day, projectId: garden.id });
    const count = (name: string) =>
      sidebar(page)
        .getByRole('link', { name: new RegExp(`^${name}, `) })
        .getAttribute('aria-label');

    // By default an owner sees the unassigned work of her project coming, beside her Inbox.
    await page.goto('/today');
    await card(page, 'Mow the lawn').waitFor();
    await card(page, 'Water plants').waitFor();
    expect(await onlyMine(page).isChecked()).toBe(false);
    await expect.poll(() => count('Today')).toBe('Today, 2 tasks');
    await page.goto('/upcoming');
    await card(section(page, 'Today'), 'Mow the lawn').waitFor();
    await expectAccessible(page, 'Upcoming with the control, light, desktop');

    // Ticked (here by keyboard): only what is assigned to her, and her Inbox, on every view.
    await onlyMine(page).focus();
    await page.keyboard.press('Space');
    await card(page, 'Mow the lawn').waitFor({ state: 'detached' });
    await card(section(page, 'Today'), 'Water plants').waitFor();
    await expect.poll(() => count('Today')).toBe('Today, 1 task');
    await expect.poll(() => count('Upcoming')).toBe('Upcoming, 1 task');
    await page.reload();
    await card(page, 'Water plants').waitFor();
    expect(await onlyMine(page).isChecked()).toBe(true);
    expect(await card(page, 'Mow the lawn').count()).toBe(0);
    await page.goto('/today');
    await card(page, 'Water plants').waitFor();
    expect(await onlyMine(page).isChecked()).toBe(true);
    expect(await card(page, 'Mow the lawn').count()).toBe(0);
    await expectAccessible(page, 'Today, only mine, light, desktop');
    await page.goto('/calendar');
    const cell = page.getByRole('grid').locator(`td[data-day="${day}"]`);
    await cell.getByRole('link', { name: 'Water plants' }).waitFor();
    expect(await onlyMine(page).isChecked()).toBe(true);
    expect(await cell.getByRole('link', { name: 'Mow the lawn' }).count()).toBe(0);

    // Unticked on the calendar: back everywhere.
    await onlyMine(page).click();
    await cell.getByRole('link', { name: 'Mow the lawn' }).waitFor();
    await page.goto('/today');
    await card(page, 'Mow the lawn').waitFor();
    expect(await onlyMine(page).isChecked()).toBe(false);

    const phone = await signedIn('dark', VIEWPORTS.phone);
    await phone.goto('/today');
    await card(phone, 'Mow the lawn').waitFor();
    await expectAccessible(phone, 'Today with the control, dark, phone');
  });

  it("Upcoming: a heading per day, a card dragged to another day stays there after a reload, 'Add a task' on a day; g t and g u", async () => {
    const page = await signedIn();
    await clearAll(page);
    const day = today();
    const call = await create(page, 'Dentist', { dueDate: day, dueTime: '23:59' });
    await create(page, 'Water plants', { dueDate: addDays(day, 1) });
    await page.goto('/upcoming');
    await page.getByRole('heading', { name: VIEW_COPY.upcoming, level: 1 }).waitFor();
    expect(await page.title()).toBe('Upcoming · Tasklane');
    // The page heading comes before the list does: wait for the last day's heading.
    await page.locator('main section > h2').nth(13).waitFor();
    const headings = await page.locator('main section > h2').allTextContents();
    expect(headings).toHaveLength(14);
    expect(headings.slice(0, 3)).toEqual(['Today', 'Tomorrow', longDayHeading(addDays(day, 2))]);
    expect(headings.at(-1)).toBe(longDayHeading(addDays(day, 13)));
    await card(section(page, 'Tomorrow'), 'Water plants').waitFor();

    // Drag the Dentist from today to the day after tomorrow: due then, at the same time. The window
    // is tall enough that the library does not scroll the page under the card.
    await page.setViewportSize({ width: 1280, height: 1400 });
    const third = longDayHeading(addDays(day, 2));
    const dentist = card(page, 'Dentist');
    const [saved] = await Promise.all([
      page.waitForResponse(
        (response) =>
          response.request().method() === 'PATCH' && response.url().endsWith(`/api/tasks/${call.id}`),
      ),
      drag(
        page,
        dentist.getByRole('button', { name: 'Drag to reorder' }),
        dentist,
        section(page, third).locator('[data-rfd-droppable-id]'),
      ),
    ]);
    expect(saved.ok()).toBe(true);
    expect(await task(page, call.id)).toMatchObject({ dueDate: addDays(day, 2), dueTime: '23:59' });
    await page.reload();
    await card(section(page, third), 'Dentist').waitFor();
    expect(await card(section(page, 'Today'), 'Dentist').count()).toBe(0);

    // By keyboard: Alt+Down moves the focused card a day on, Alt+Up a day back; focus stays on it.
    await card(section(page, third), 'Dentist').focus();
    const [moved] = await Promise.all([
      page.waitForResponse(
        (response) =>
          response.request().method() === 'PATCH' && response.url().endsWith(`/api/tasks/${call.id}`),
      ),
      page.keyboard.press('Alt+ArrowDown'),
    ]);
    expect(moved.ok()).toBe(true);
    const fourthDay = longDayHeading(addDays(day, 3));
    await card(section(page, fourthDay), 'Dentist').waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Dentist');
    await page.keyboard.press('Alt+ArrowUp');
    await card(section(page, third), 'Dentist').waitFor();
    await expect.poll(async () => (await task(page, call.id)).dueDate).toBe(addDays(day, 2));
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Dentist');

    // 'Add a task' under a day: due that day, in the Inbox.
    const fourth = longDayHeading(addDays(day, 3));
    await page.getByRole('button', { name: `${VIEW_COPY.addTask}, ${fourth}` }).click();
    await page.getByRole('textbox', { name: `${VIEW_COPY.taskName}, due ${fourth}` }).fill('Buy flowers');
    await page.keyboard.press('Enter');
    await card(section(page, fourth), 'Buy flowers').waitFor();
    const added = (await apiFromPage<Task[]>(page, 'GET', '/api/tasks')).find(
      (t) => t.title === 'Buy flowers',
    );
    expect(added?.dueDate).toBe(addDays(day, 3));
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: `${VIEW_COPY.addTask}, ${fourth}` }).waitFor();
    await screenshot(page, 'views-upcoming');
    await expectAccessible(page, 'Upcoming, light, desktop');

    // g t and g u, listed in the shortcuts dialog.
    await page.locator('main h1').focus();
    await page.keyboard.press('g');
    await page.keyboard.press('t');
    await page.getByRole('heading', { name: VIEW_COPY.today, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/today');
    await page.keyboard.press('g');
    await page.keyboard.press('u');
    await page.getByRole('heading', { name: VIEW_COPY.upcoming, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/upcoming');
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.getByText('Go to Today').waitFor();
    await help.getByText('Go to Upcoming').waitFor();
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await palette.getByRole('option', { name: /Go to Today/ }).waitFor();
    await page.keyboard.press('Escape');

    for (const [theme, viewport] of [
      ['dark', VIEWPORTS.desktop],
      ['light', VIEWPORTS.phone],
      ['dark', VIEWPORTS.phone],
    ] as const) {
      const other = await signedIn(theme, viewport);
      await other.goto('/upcoming');
      await card(other, 'Water plants').waitFor();
      await expectAccessible(other, `Upcoming, ${theme}, ${viewport.name}`);
    }
  });

  it('the calendar: arrow keys move between days, Enter opens one, a task dragged to another day; a project’s calendar; the agenda at 390 px', async () => {
    const page = await signedIn();
    await clearAll(page);
    const day = today();
    const rent = await create(page, 'Pay rent', { dueDate: day });
    const site = await apiFromPage<Project>(page, 'POST', '/api/projects', {
      name: 'Website',
      color: 'teal',
    });
    await create(page, 'Launch', { dueDate: day, projectId: site.id });

    await page.goto('/calendar');
    await page.getByRole('heading', { name: VIEW_COPY.calendar, level: 1 }).waitFor();
    expect(await page.title()).toBe('Calendar · Tasklane');
    const grid = page.getByRole('grid');
    const cell = (date: string) => grid.locator(`td[data-day="${date}"]`);
    await cell(day).getByRole('link', { name: 'Pay rent' }).waitFor();
    // Assigned to nobody in my project: on my calendar, unless 'Only tasks assigned to me'.
    await cell(day).getByRole('link', { name: 'Launch' }).waitFor();
    await onlyMine(page).check();
    await cell(day).getByRole('link', { name: 'Launch' }).waitFor({ state: 'detached' });
    await onlyMine(page).uncheck();
    await cell(day).getByRole('link', { name: 'Launch' }).waitFor();
    expect(await cell(day).getAttribute('aria-current')).toBe('date');

    // Arrow keys move the focus between days (the month follows); Enter opens the day.
    const focusedDay = () => page.evaluate(() => document.activeElement?.getAttribute('data-day'));
    await cell(day).focus();
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-day')))
      .toBe(addDays(day, 1));
    await page.keyboard.press('ArrowDown');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-day')))
      .toBe(addDays(day, 8));
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-day'))).toBe(day);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: longDayHeading(day) });
    await dialog.getByRole('link', { name: 'Pay rent' }).waitFor();
    await expectAccessible(page, 'Calendar day, light, desktop');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-day'))).toBe(day);
    // Home and End: the week's ends (Monday to Sunday in en-GB); the month follows the focus.
    await page.keyboard.press('End');
    await expect.poll(focusedDay).toBe(dayAfterKey(day, 'End', 1));
    await page.keyboard.press('Home');
    await expect.poll(focusedDay).toBe(dayAfterKey(day, 'Home', 1));
    await page.reload();
    await cell(day).getByRole('link', { name: 'Pay rent' }).waitFor();

    // A task dragged by keyboard to the next day (the day before, on a Sunday: the arrow keys carry a
    // chip to the day beside it in its week's row) is due then: Space lifts the chip, an arrow key
    // carries it to the neighbouring day, Space drops it.
    const forward = dayAfterKey(day, 'End', 1) !== day;
    const target = forward ? addDays(day, 1) : addDays(day, -1);
    const chip = cell(day).getByRole('link', { name: 'Pay rent' });
    const over = () =>
      page.evaluate(() =>
        document
          .querySelector('[data-rfd-droppable-id].bg-accent\\/60')
          ?.getAttribute('data-rfd-droppable-id'),
      );
    // Together: a drag that fails leaves no wait for its answer behind, unhandled.
    const [saved] = await Promise.all([
      page.waitForResponse(
        (response) =>
          response.request().method() === 'PATCH' && response.url().endsWith(`/api/tasks/${rent.id}`),
      ),
      (async () => {
        await chip.focus();
        await page.keyboard.press('Space');
        await expect.poll(() => dragAnnouncement(page)).toMatch(/lifted/);
        await page.keyboard.press(forward ? 'ArrowRight' : 'ArrowLeft');
        await expect.poll(over).toBe(`day:${target}`);
        await page.keyboard.press('Space');
      })(),
    ]);
    expect(saved.ok()).toBe(true);
    expect((await task(page, rent.id)).dueDate).toBe(target);
    await page.reload();
    await cell(target).getByRole('link', { name: 'Pay rent' }).waitFor();
    await screenshot(page, 'views-calendar');
    await expectAccessible(page, 'Calendar, light, desktop');

    // A project's calendar, from its screen.
    await page.goto(`/projects/${site.id}`);
    await page.getByRole('main').getByRole('link', { name: VIEW_COPY.calendar, exact: true }).click();
    await page.getByRole('heading', { name: `Website · ${VIEW_COPY.calendar}`, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/projects/${site.id}/calendar`);
    await cell(day).getByRole('link', { name: 'Launch' }).waitFor();
    expect(await grid.getByRole('link', { name: 'Pay rent' }).count()).toBe(0);

    const dark = await signedIn('dark');
    await dark.goto('/calendar');
    await dark.getByRole('grid').getByRole('link', { name: 'Pay rent' }).waitFor();
    await expectAccessible(dark, 'Calendar, dark, desktop');

    // At 390 px, the month is an agenda: its days with tasks, one after the other.
    for (const theme of ['light', 'dark'] as const) {
      const phone = await signedIn(theme, VIEWPORTS.phone);
      await phone.goto('/calendar');
      await phone.getByRole('heading', { name: VIEW_COPY.calendar, level: 1 }).waitFor();
      if (target.slice(0, 7) === day.slice(0, 7)) {
        await phone
          .locator(`section[data-day="${target}"]`)
          .getByRole('link', { name: 'Pay rent' })
          .waitFor();
      }
      expect(await phone.getByRole('grid').count()).toBe(0);
      await screenshot(phone, `views-agenda-${theme}`);
      await expectAccessible(phone, `Calendar agenda, ${theme}, phone`);
    }
  });
});
