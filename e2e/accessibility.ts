import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { localIsoDate } from '../src/client/tasks/dates';
import { OFFLINE_COPY } from '../src/common/offline';
import { COPY, ERRORS, THEME_STORAGE_KEY } from '../src/common/spec';
import {
  apiFromPage,
  budget,
  createTaskFromPage,
  deleteAllTasks,
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openContext,
  type RunningServer,
  screenshot,
  signIn,
  startServer,
  unnamedFormFields,
} from './harness';

/**
 * Issue 10: axe on every screen (the login screen's three modes, reset password, 404, the list
 * empty and full, offline (issue 31), an expanded card, every dialog, the menus, the archive), in light and dark, at
 * 1280x800 and 390x844. No violation of impact serious or critical; at 390 px nothing scrolls
 * sideways and dialogs fit. Each screen's document title names it.
 */
export const VIEWPORTS = {
  desktop: { name: 'desktop', width: 1280, height: 800 },
  phone: { name: 'phone', width: 390, height: 844 },
} as const;
type Viewport = (typeof VIEWPORTS)[keyof typeof VIEWPORTS];
const THEMES = ['light', 'dark'] as const;

/**
 * The suite for one viewport, in both themes. Each viewport has a file of its own
 * (accessibility-desktop.e2e.ts, accessibility-phone.e2e.ts), so the two run side by side.
 */
export function describeAccessibility(viewport: Viewport) {
  describeBrowser(`accessibility of every screen at ${viewport.name} width`, () => {
    let server: RunningServer;
    let browser: Browser;

    beforeAll(async () => {
      [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    });
    afterAll(async () => {
      await browser?.close();
      await server?.stop();
    });

    interface Check {
      page: Page;
      label: string;
      phone: boolean;
    }

    /** axe, sideways scrolling and dialog fit for what the page shows now; a screenshot to look at. */
    async function audit({ page, label, phone }: Check, screen: string, title?: string) {
      await expectAccessible(page, `${screen} [${label}]`);
      expect(await unnamedFormFields(page), `${screen} [${label}]: fields with neither id nor name`).toEqual(
        [],
      );
      if (phone) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${screen} [${label}] scrolls sideways`).toBeLessThanOrEqual(0);
        const dialog = page.getByRole('dialog');
        if ((await dialog.count()) > 0) {
          const box = await dialog.first().boundingBox();
          expect(box!.x, `${screen} [${label}] dialog`).toBeGreaterThanOrEqual(0);
          expect(box!.x + box!.width, `${screen} [${label}] dialog`).toBeLessThanOrEqual(390);
        }
      }
      if (title) expect(await page.title(), screen).toBe(`${title} · Tasklane`);
      await screenshot(page, `a11y-${screen}-${label}`);
    }

    /**
     * Reduced motion (the app's own rule shortens every animation and transition to nothing): what
     * is audited is the settled screen either way, and each dialog and menu opened and closed no
     * longer waits out its fade (a fifth of the time of 'menus, dialogs and archive').
     */
    async function newContext(
      theme: string,
      viewport: { width: number; height: number },
    ): Promise<BrowserContext> {
      const context = await openContext(browser, { baseURL: server.url, viewport, reducedMotion: 'reduce' });
      await context.addInitScript(
        ([key, value]) => localStorage.setItem(key!, value!),
        [THEME_STORAGE_KEY, theme],
      );
      return context;
    }

    async function open(theme: string, viewport: Viewport, label: string) {
      const context = await newContext(theme, viewport);
      const page = await context.newPage();
      const check: Check = { page, label, phone: viewport.name === 'phone' };
      return { context, page, check };
    }

    async function openMenuItem(page: Page, name: string) {
      await page.getByRole('button', { name: /^Settings for / }).click();
      await page.getByRole('menuitem', { name }).click();
    }

    async function closeDialog(page: Page) {
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    }
    for (const theme of THEMES) {
      const label = `${viewport.name}-${theme}`;

      it(
        `passes axe on the signed-out screens: ${label}`,
        async () => {
          const { context, page, check } = await open(theme, viewport, label);
          try {
            // Signed out.
            await page.goto('/');
            await page.getByRole('button', { name: COPY.signIn }).waitFor();
            await audit(check, 'login-sign-in', COPY.signIn);
            await page.getByLabel('Username').fill('nobody');
            await page.getByLabel('Password').fill('wrong');
            await page.getByRole('button', { name: COPY.signIn }).click();
            await page.getByRole('alert').filter({ hasText: ERRORS.invalidLogin }).waitFor();
            await audit(check, 'login-error');
            await page.getByRole('button', { name: COPY.sendMeMyPassword }).click();
            await page.getByRole('button', { name: COPY.backToSignIn }).waitFor();
            await audit(check, 'login-send-password', COPY.sendMeMyPassword);
            await page.getByRole('button', { name: COPY.backToSignIn }).click();
            await page.getByRole('button', { name: COPY.requestAccess }).click();
            await page.getByRole('button', { name: COPY.backToSignIn }).waitFor();
            await audit(check, 'login-request-access', COPY.requestAccess);
            await page.goto('/reset-password/not-a-real-token');
            await page.getByRole('heading').first().waitFor();
            await audit(check, 'reset-password');
          } finally {
            await context.close();
          }
        },
        budget(120_000),
      );

      it(
        `passes axe on the list and a card: ${label}`,
        async () => {
          const { context, page, check } = await open(theme, viewport, label);
          try {
            // Signed in: the list empty, then full.
            await page.goto('/');
            await signIn(page);
            await deleteAllTasks(page);
            await page.reload();
            await page.getByText(COPY.noTasks).waitFor();
            await audit(check, 'list-empty', 'Tasks');

            const today = new Date();
            const yesterday = new Date(today.getTime() - 86_400_000);
            await createTaskFromPage(page, 'Plan next week', { description: 'No date on this one' });
            await createTaskFromPage(page, 'Renew the passport', { dueDate: localIsoDate(yesterday) });
            await createTaskFromPage(page, 'Call the plumber', {
              dueDate: localIsoDate(today),
              description: 'Ask about the boiler',
            });
            const withNotes = await createTaskFromPage(page, 'Write the launch post', {
              description: 'Three paragraphs',
              dueDate: '2030-05-17',
            });
            await apiFromPage(page, 'PATCH', `/api/tasks/${withNotes.id}`, { notes: 'Keep it short.' });
            const done = await createTaskFromPage(page, 'Done already');
            await apiFromPage(page, 'PATCH', `/api/tasks/${done.id}`, { completed: true, archived: true });
            await page.reload();
            await page.getByRole('article', { name: 'Plan next week' }).waitFor();
            // Overdue and due-today dates say so in words.
            await page.getByRole('article', { name: 'Renew the passport' }).getByText('Overdue:').waitFor();
            await page.getByRole('article', { name: 'Call the plumber' }).getByText('Due today:').waitFor();
            await audit(check, 'list-full', 'Tasks');

            // Issue 31: offline, the header's status and the account menu's 'Needs a connection'.
            await context.setOffline(true);
            const offlineStatus = page.getByRole('banner').getByRole('status');
            await offlineStatus.filter({ hasText: OFFLINE_COPY.offline }).waitFor();
            await audit(check, 'offline-status', 'Tasks');
            await page.getByRole('button', { name: /^Settings for / }).click();
            await page.getByRole('menuitem', { name: new RegExp(`^${COPY.aiAgents}`) }).waitFor();
            await audit(check, 'settings-menu-offline');
            await page.keyboard.press('Escape');
            await page.getByRole('menu').waitFor({ state: 'detached' });
            await context.setOffline(false);
            await offlineStatus.filter({ hasText: OFFLINE_COPY.offline }).waitFor({ state: 'detached' });

            // An error toast (the destructive variant) over the list.
            const fragile = page.getByRole('article', { name: 'Plan next week' });
            const taskCalls = (url: URL) => url.pathname.startsWith('/api/tasks/');
            await page.route(taskCalls, (route) =>
              route.request().method() === 'PATCH'
                ? route.fulfill({
                    status: 500,
                    contentType: 'application/json',
                    body: '{"message":"Broken"}',
                  })
                : route.fallback(),
            );
            await fragile.getByRole('checkbox', { name: 'Mark as complete' }).click();
            const notifications = page.getByRole('region', { name: /Notifications/ });
            const errorToast = notifications.getByText(ERRORS.updateStatus, { exact: true });
            await errorToast.waitFor();
            // F8 focuses the toasts' region, which holds their timers: on a busy machine the audit
            // outlasted the toast's five seconds, and its Close button was gone.
            await page.keyboard.press('F8');
            await audit(check, 'toast-error');
            await page.unroute(taskCalls);
            // Closed now, not left to time out: its fade-out could overlap a later audit and read as low contrast.
            await notifications.getByRole('button', { name: 'Close' }).click();
            await errorToast.waitFor({ state: 'detached' });

            const card = page.getByRole('article', { name: 'Write the launch post' });
            await card.getByRole('button', { name: 'Expand task' }).click();
            await card.getByRole('textbox', { name: 'Notes' }).waitFor();
            await audit(check, 'card-expanded');
            await card.getByRole('button', { name: 'Collapse task' }).click();

            // The files menu of the last card, at the bottom of the page.
            const last = page.getByRole('article', { name: 'Plan next week' });
            await last.scrollIntoViewIfNeeded();
            await last.getByRole('button', { name: COPY.noFiles }).click();
            await page.getByRole('menuitem', { name: COPY.addFiles }).waitFor();
            await audit(check, 'files-menu-last-card');
            await page.keyboard.press('Escape');
          } finally {
            await context.close();
          }
        },
        budget(120_000),
      );

      it(
        `passes axe on the menus, dialogs and archive: ${label}`,
        async () => {
          const { context, page, check } = await open(theme, viewport, label);
          try {
            await page.goto('/');
            await signIn(page);
            await deleteAllTasks(page);
            await createTaskFromPage(page, 'Plan next week');
            const done = await createTaskFromPage(page, 'Done already');
            await apiFromPage(page, 'PATCH', `/api/tasks/${done.id}`, { completed: true, archived: true });
            await page.reload();
            await page.getByRole('article', { name: 'Plan next week' }).waitFor();

            await page.getByRole('button', { name: COPY.addTask }).click();
            await page.getByRole('dialog', { name: COPY.addNewTask }).waitFor();
            await audit(check, 'dialog-add-task');
            await closeDialog(page);

            await page.getByRole('button', { name: /^Settings for / }).click();
            await page.getByRole('menuitem', { name: COPY.faq }).waitFor();
            await audit(check, 'settings-menu');
            await page.keyboard.press('Escape');
            await page.getByRole('menu').waitFor({ state: 'detached' });

            await openMenuItem(page, COPY.changePassword);
            await page.getByRole('dialog', { name: COPY.changePassword }).waitFor();
            await audit(check, 'dialog-change-password');
            await closeDialog(page);

            await openMenuItem(page, COPY.security);
            const security = page.getByRole('dialog', { name: COPY.security });
            await security.getByText('This device').waitFor();
            await audit(check, 'dialog-security');
            await closeDialog(page);

            await openMenuItem(page, 'Notifications');
            await page.getByRole('dialog', { name: 'Notifications' }).getByRole('table').waitFor();
            await audit(check, 'dialog-notifications');
            await closeDialog(page);

            for (const [item, screen] of [
              ['Calendar feed', 'dialog-calendar-feed'],
              ['Export my data', 'dialog-export'],
              ['Import tasks', 'dialog-import'],
            ] as const) {
              await openMenuItem(page, item);
              await page.getByRole('dialog', { name: item }).waitFor();
              await audit(check, screen);
              await closeDialog(page);
            }

            await page.keyboard.press('Control+k');
            await page.getByRole('dialog', { name: 'Command palette' }).waitFor();
            await audit(check, 'command-palette');
            await closeDialog(page);
            await page.locator('body').press('?');
            await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
            await audit(check, 'dialog-shortcuts');
            await closeDialog(page);

            await openMenuItem(page, COPY.aiAgents);
            const agents = page.getByRole('dialog', { name: COPY.aiAgents });
            await agents.getByRole('tab', { name: COPY.manageAgents }).waitFor();
            await audit(check, 'dialog-ai-agents');
            await agents.getByRole('tab', { name: COPY.tutorial }).click();
            await audit(check, 'dialog-ai-agents-tutorial');
            await closeDialog(page);

            await openMenuItem(page, 'Connect AI');
            await page.getByRole('dialog', { name: 'Connect AI' }).waitFor();
            await audit(check, 'dialog-connect-ai');
            await closeDialog(page);

            await openMenuItem(page, COPY.manageUsers);
            await page.getByRole('dialog', { name: COPY.userManagement }).waitFor();
            await page.waitForLoadState('networkidle');
            await audit(check, 'dialog-user-management');
            await closeDialog(page);

            await openMenuItem(page, COPY.faq);
            const faq = page.getByRole('dialog', { name: COPY.faq });
            await faq.getByRole('button').first().click();
            await audit(check, 'dialog-faq');
            await closeDialog(page);

            await page.getByRole('tab', { name: new RegExp(COPY.archived) }).click();
            await page.getByRole('article', { name: 'Done already' }).waitFor();
            await audit(check, 'archived-tab');

            await page.goto('/archive');
            await page.getByRole('heading', { name: COPY.archiveOverview }).waitFor();
            await page.getByRole('article', { name: 'Done already' }).waitFor();
            await audit(check, 'archive', 'Archive');

            await page.goto('/no/such/page');
            await page.getByRole('heading', { name: COPY.pageNotFound }).waitFor();
            await audit(check, 'not-found', COPY.pageNotFound);
          } finally {
            await context.close();
          }
        },
        budget(180_000),
      );
    }
  });
}
