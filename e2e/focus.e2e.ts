import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { COPY, TOASTS } from '../src/common/spec';
import type { Task } from '../src/common/tasks';
import {
  apiFromPage,
  browserSuite,
  createTaskFromPage,
  deleteAllTasks,
  describeBrowser,
  framesDrawn,
  openContext,
  signIn,
} from './harness';

/**
 * Issue 10: a card's controls keep their identity under the pointer and focus, every control works
 * from the keyboard, and focus goes where a person expects after each action, never to <body>.
 */
describeBrowser('card controls and focus', () => {
  const suite = browserSuite();
  const { opened } = suite;

  /** Signed in as the admin on a list holding just `titles`, first on top. */
  async function listOf(titles: string[], options: Parameters<Browser['newContext']>[0] = {}) {
    const context = await openContext(suite.browser, {
      baseURL: suite.server.url,
      viewport: { width: 1280, height: 900 },
      ...options,
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    opened.push({ context, page, errors });
    await page.goto('/');
    await signIn(page);
    await deleteAllTasks(page);
    for (const title of [...titles].reverse()) {
      await createTaskFromPage(page, title, { description: `About ${title}` });
    }
    await page.reload();
    await page.getByRole('heading', { name: COPY.yourTasks }).waitFor();
    if (titles.length > 0) await card(page, titles[0]!).waitFor();
    return page;
  }

  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const cardCount = (page: Page) => page.getByRole('tabpanel').getByRole('article').count();

  /** What has focus, as a person would name it: its role-ish tag and accessible label or text. */
  function focused(page: Page): Promise<string> {
    return page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return 'body';
      const name = el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '';
      return `${el.tagName.toLowerCase()}:${name}`;
    });
  }

  async function expectFocus(page: Page, expected: string) {
    await expect.poll(() => focused(page)).toBe(expected);
  }

  it('deletes on a phone with the first tap on Delete Task', async () => {
    const page = await listOf(['Tap me', 'Stay'], {
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    });
    await card(page, 'Tap me').getByRole('button', { name: COPY.deleteTask }).tap();
    await card(page, 'Tap me').waitFor({ state: 'detached' });
    expect(await cardCount(page)).toBe(1);
  });

  it('deletes with a click right after the pointer arrives, and again on the card that slides under it', async () => {
    const page = await listOf(['First', 'Second', 'Third']);
    const box = await card(page, 'First').getByRole('button', { name: COPY.deleteTask }).boundingBox();
    const x = box!.x + box!.width / 2;
    const y = box!.y + box!.height / 2;
    // No hover pause: the pointer moves in and presses at once.
    await page.mouse.click(x, y);
    await card(page, 'First').waitFor({ state: 'detached' });
    // 'Second' has moved up under the pointer; the next click must not be lost.
    await page.mouse.click(x, y);
    await card(page, 'Second').waitFor({ state: 'detached' });
    expect(await cardCount(page)).toBe(1);
  });

  it('keeps focus placed directly on Delete Task, and Enter deletes; focus moves to the next card', async () => {
    const page = await listOf(['Focus me', 'Next one']);
    const button = card(page, 'Focus me').getByRole('button', { name: COPY.deleteTask });
    // A screen reader's browse mode moves focus straight to the button, with no hover first.
    await button.evaluate((element: HTMLElement) => element.focus());
    await framesDrawn(page);
    expect(await focused(page)).toBe(`button:${COPY.deleteTask}`);
    expect(await button.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await card(page, 'Focus me').waitFor({ state: 'detached' });
    await expectFocus(page, 'article:Next one');
  });

  it('reaches every card control with Tab, in order, and each works from the keyboard', async () => {
    const page = await listOf(['Keyboard task']);
    const target = card(page, 'Keyboard task');
    await target.getByRole('button', { name: 'Drag to reorder' }).focus();
    const order = ['div:Drag to reorder'];
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press('Tab');
      order.push(await focused(page));
    }
    expect(order).toEqual([
      'div:Drag to reorder',
      'input:Mark as complete',
      'button:Keyboard task',
      'button:About Keyboard task',
      `button:${COPY.noFiles}`,
      `button:${COPY.deleteTask}`,
      'button:Expand task',
    ]);

    // The expand button: Space opens the panel and keeps focus.
    await page.keyboard.press('Space');
    await target.getByRole('textbox', { name: 'Notes' }).waitFor();
    await expectFocus(page, 'button:Collapse task');
    await page.keyboard.press('Enter');
    await target.getByRole('textbox', { name: 'Notes' }).waitFor({ state: 'detached' });

    // The files badge: Enter opens its menu on 'Add Files'; Escape closes it back onto the badge.
    await target.getByRole('button', { name: COPY.noFiles }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menuitem', { name: COPY.addFiles }).waitFor();
    await expectFocus(page, `div:${COPY.addFiles}`);
    await page.keyboard.press('Escape');
    await expectFocus(page, `button:${COPY.noFiles}`);

    // The title: Enter edits, Enter saves, and focus comes back to the title.
    await target.getByRole('button', { name: 'Keyboard task', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('End');
    await page.keyboard.type(' renamed');
    await page.keyboard.press('Enter');
    const renamed = card(page, 'Keyboard task renamed');
    await renamed.waitFor();
    await expectFocus(page, 'button:Keyboard task renamed');

    // The completion toggle: Space completes; with no card left, focus goes to 'Add Task'.
    await renamed.getByRole('checkbox', { name: 'Mark as complete' }).focus();
    await page.keyboard.press('Space');
    await page
      .getByRole('region', { name: /Notifications/ })
      .getByText(TOASTS.taskCompleted[0])
      .waitFor();
    await renamed.waitFor({ state: 'detached' });
    await expectFocus(page, `button:${COPY.addTask}`);
  });

  it('moves focus to the next card after completing one, and to the previous when it was last', async () => {
    const page = await listOf(['One', 'Two', 'Three']);
    await card(page, 'One').getByRole('checkbox', { name: 'Mark as complete' }).click();
    await card(page, 'One').waitFor({ state: 'detached' });
    await expectFocus(page, 'article:Two');
    await card(page, 'Three').getByRole('button', { name: COPY.deleteTask }).click();
    await card(page, 'Three').waitFor({ state: 'detached' });
    await expectFocus(page, 'article:Two');
  });

  it('hands focus back to Add Task whichever way the dialog closes', async () => {
    const page = await listOf([]);
    const addTask = page.getByRole('button', { name: COPY.addTask });
    const dialog = page.getByRole('dialog', { name: COPY.addNewTask });
    const open = async () => {
      await addTask.click();
      await dialog.waitFor();
    };

    await open();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expectFocus(page, `button:${COPY.addTask}`);

    await open();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectFocus(page, `button:${COPY.addTask}`);

    await open();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectFocus(page, `button:${COPY.addTask}`);

    await open();
    await dialog.getByLabel('Title').fill('Made in the dialog');
    await dialog.getByRole('button', { name: COPY.addTask }).click();
    await dialog.waitFor({ state: 'detached' });
    await card(page, 'Made in the dialog').waitFor();
    await expectFocus(page, `button:${COPY.addTask}`);
  });

  it('moves focus to the notes after Clear, and to the new screen’s heading after navigating or signing in', async () => {
    const page = await listOf(['With notes']);
    const task = (await apiFromPage<Task[]>(page, 'GET', '/api/tasks'))[0]!;
    await apiFromPage(page, 'PATCH', `/api/tasks/${task.id}`, { notes: 'Something to clear' });
    await card(page, 'With notes').getByRole('button', { name: 'Expand task' }).click();
    const notes = card(page, 'With notes').getByRole('textbox', { name: 'Notes' });
    await expect.poll(() => notes.inputValue()).toBe('Something to clear');
    await card(page, 'With notes').getByRole('button', { name: 'Clear notes' }).click();
    await expect.poll(() => notes.inputValue()).toBe('');
    await expectFocus(page, 'textarea:');

    await page.getByRole('link', { name: 'View archive' }).click();
    await page.getByRole('heading', { name: COPY.archiveOverview }).waitFor();
    await expectFocus(page, `h1:${COPY.archiveOverview}`);

    await page.getByRole('link', { name: COPY.activeTasks }).click();
    await expectFocus(page, `h1:${COPY.yourTasks}`);

    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await signIn(page);
    await expectFocus(page, `h1:${COPY.yourTasks}`);
  });

  it('keeps a focused control clear of the sticky header', async () => {
    const titles = Array.from({ length: 30 }, (_, i) => `Row ${i + 1}`);
    const page = await listOf(titles);
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    // Shift+Tab upwards from the last card's last control: every stop must be visible below the header.
    await card(page, 'Row 30').getByRole('button', { name: 'Expand task' }).focus();
    const covered: string[] = [];
    for (let i = 0; i < 60; i += 1) {
      await page.keyboard.press('Shift+Tab');
      const hidden = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        const header = document.querySelector('header');
        if (!el || !header || header.contains(el)) return null;
        const headerBottom = header.getBoundingClientRect().bottom;
        const rect = el.getBoundingClientRect();
        return rect.top < headerBottom ? (el.getAttribute('aria-label') ?? el.textContent ?? '') : null;
      });
      if (hidden !== null) covered.push(hidden);
    }
    expect(covered).toEqual([]);
  });
});
