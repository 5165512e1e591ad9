import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { Relation } from '../src/common/relations';
import { THEME_STORAGE_KEY } from '../src/common/spec';
import { VIEWPORTS } from './accessibility';
import {
  apiFromPage,
  browserSuite,
  createTaskFromPage,
  deleteAllTasks,
  describeBrowser,
  expectAccessible,
  openThemedPage,
  signIn,
  unnamedFormFields,
} from './harness';

/**
 * Issue 29, in the browser: a dependency added from the expanded card by searching task titles
 * (keyboard only), 'Blocked' on the card while the blocker is open, the link to the other task,
 * the blocker completed, the dependency removed; axe on the card with its Dependencies section in
 * both themes at desktop and phone widths, in one page.
 */
describeBrowser('dependencies in the browser', () => {
  const suite = browserSuite();

  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const dependencies = (scope: Locator) => scope.getByRole('region', { name: 'Dependencies' });
  const blockedBadge = (scope: Locator) => scope.getByText('Blocked', { exact: true });

  async function expand(scope: Locator) {
    await scope.getByRole('button', { name: 'Expand task' }).click();
    await dependencies(scope).getByText('Loading dependencies…').waitFor({ state: 'detached' });
  }

  /** Light or dark, as the app's own toggle sets it (the class on the root and the stored choice). */
  const setTheme = (page: Page, theme: 'light' | 'dark') =>
    page.evaluate(
      ([key, value]) => {
        localStorage.setItem(key!, value!);
        document.documentElement.classList.toggle('dark', value === 'dark');
      },
      [THEME_STORAGE_KEY, theme],
    );

  it('adds a dependency by searching, shows Blocked until the blocker is done, links to it and removes it', async () => {
    const page = await openThemedPage(suite, { viewport: VIEWPORTS.desktop });
    await page.goto('/');
    await signIn(page);
    await deleteAllTasks(page);
    const report = await createTaskFromPage(page, 'Write the report');
    const figures = await createTaskFromPage(page, 'Gather the figures');
    await page.reload();
    const reportCard = card(page, 'Write the report');
    await reportCard.waitFor();
    expect(await blockedBadge(reportCard).count()).toBe(0);
    await expand(reportCard);
    const section = dependencies(reportCard);
    await section.getByText('No dependencies.').waitFor();

    // Keyboard only: the kind, then the task found by its title.
    const kind = section.getByRole('combobox', { name: 'Kind of dependency' });
    await kind.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('option', { name: 'Blocked by', exact: true }).waitFor();
    await page.keyboard.press('Enter');
    expect(await kind.textContent()).toBe('Blocked by');
    await page.keyboard.press('Tab');
    const search = section.getByRole('combobox', { name: 'Search tasks to add as a dependency' });
    expect(await search.evaluate((el) => el === document.activeElement)).toBe(true);
    // 'the' is in both titles: the task itself is never offered.
    await page.keyboard.type('the');
    const option = section.getByRole('option', { name: 'Gather the figures' });
    await option.waitFor();
    expect(await section.getByRole('option').allTextContents()).toEqual(['Gather the figures']);
    await page.keyboard.press('ArrowDown');
    expect(await search.getAttribute('aria-activedescendant')).toBe(await option.getAttribute('id'));
    // The open list too: its options, the one pointed at, the input's ARIA.
    await expectAccessible(
      page,
      'the dependency combobox, open',
      `article[data-task-id="${report.id}"] > div.border-t`,
    );
    await page.keyboard.press('Enter');

    const link = section.getByRole('link', { name: 'Gather the figures' });
    await link.waitFor();
    expect(await section.getByRole('listitem').first().textContent()).toContain('Blocked by');
    await expect.poll(() => search.inputValue()).toBe('');
    await section.getByRole('status').filter({ hasText: 'Added: Blocked by Gather the figures' }).waitFor();
    const relations = await apiFromPage<Relation[]>(page, 'GET', `/api/tasks/${report.id}/relations`);
    expect(relations).toMatchObject([{ kind: 'blocked_by', otherTaskId: figures.id }]);
    // The card shows 'Blocked', collapsed as well as expanded.
    await blockedBadge(reportCard).waitFor();
    expect(await blockedBadge(card(page, 'Gather the figures')).count()).toBe(0);

    // axe on the whole page with the expanded card, its Dependencies and 'Blocked', in both themes
    // at both widths, in this one page.
    for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
      await page.setViewportSize(viewport);
      // The resize can move the card from under the pointer, which collapses it (spec §2): the
      // pointer back on it keeps it open, and a collapsed one opens again.
      await reportCard.hover();
      if ((await reportCard.getByRole('button', { name: 'Expand task' }).count()) > 0)
        await expand(reportCard);
      for (const theme of ['light', 'dark'] as const) {
        await setTheme(page, theme);
        await dependencies(reportCard).waitFor();
        await expectAccessible(page, `the expanded card's dependencies, ${theme}, ${viewport.name}`);
      }
      const sideways = await page.evaluate(
        () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
      );
      expect(sideways, `${viewport.name}: the page scrolls sideways`).toBe(false);
    }
    await setTheme(page, 'light');
    await page.setViewportSize(VIEWPORTS.desktop);
    expect(await unnamedFormFields(page)).toEqual([]);

    const collapse = reportCard.getByRole('button', { name: 'Collapse task' });
    if ((await collapse.count()) > 0) await collapse.click();
    await reportCard.getByRole('button', { name: 'Expand task' }).waitFor();
    await blockedBadge(reportCard).waitFor();

    // The link opens the other task's card, where the same relation reads the other way.
    await expand(reportCard);
    await dependencies(reportCard).getByRole('link', { name: 'Gather the figures' }).click();
    const figuresCard = card(page, 'Gather the figures');
    await dependencies(figuresCard).getByRole('link', { name: 'Write the report' }).waitFor();
    expect(await dependencies(figuresCard).getByRole('listitem').textContent()).toContain('Blocks');

    // The blocker done: 'Blocked' goes, and the dependency shows its task done.
    await figuresCard.getByRole('checkbox', { name: 'Mark as complete' }).click();
    await figuresCard.waitFor({ state: 'detached' });
    await blockedBadge(reportCard).waitFor({ state: 'detached' });
    // The click on the other card was outside this one, which closed it (spec §2).
    await reportCard.getByRole('button', { name: 'Expand task' }).waitFor();
    await expand(reportCard);
    await dependencies(reportCard).getByRole('link', { name: 'Gather the figures (done)' }).waitFor();

    // Removed, by its accessible name; focus stays in the section.
    await dependencies(reportCard)
      .getByRole('button', { name: 'Remove dependency on "Gather the figures"' })
      .click();
    await dependencies(reportCard).getByText('No dependencies.').waitFor();
    expect(await apiFromPage<Relation[]>(page, 'GET', `/api/tasks/${report.id}/relations`)).toEqual([]);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '')).toBe(
      'Search tasks to add as a dependency',
    );
  });
});
