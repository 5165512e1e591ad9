import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COPY, ERRORS, TOASTS, VALIDATION } from '../src/common/spec';
import { startSmtpServer } from '../src/server/testing/smtp';
import {
  ADMIN,
  describeBrowser,
  framesDrawn,
  launchBrowser,
  openPage,
  type RunningServer,
  signIn,
  startServer,
} from './harness';

const ADMIN_EMAIL = 'admin@example.com';

describeBrowser('signing in, out and back', () => {
  let server: RunningServer;
  let browser: Browser;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startServer({ SMTP_URL: smtp.url, ADMIN_EMAIL });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  const menu = (page: Page) => page.getByRole('button', { name: /^Settings for / });
  const toast = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).first();

  it('shows only the login screen to a visitor, on every app route', async () => {
    const { page, context, errors } = await openPage(browser, server);
    for (const route of ['/', '/archive']) {
      await page.goto(route);
      await expect(page.getByRole('button', { name: COPY.signIn })).toBeTruthy();
      await page.getByLabel('Username').waitFor();
      expect(await page.getByRole('heading', { name: 'Your Tasks' }).count()).toBe(0);
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it('loads, signs in and shows the archive with no Content-Security-Policy violation', async () => {
    // Issue 20: Zod probed for eval with Function(''), which the CSP refuses, on every page load.
    const { page, context, errors } = await openPage(browser, server);
    await signIn(page);
    await page.goto('/archive');
    await page.getByRole('heading', { name: COPY.archiveOverview }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('refuses a wrong password with the server message, then signs in and out', async () => {
    const { page, context, errors } = await openPage(browser, server);
    // Toasts load with the first one raised (ui/toaster.tsx): a toast here would fetch its module.
    const toastModule: string[] = [];
    page.on('request', (request) => {
      if (/\/toast-list-[\w-]+\.js$/.test(request.url())) toastModule.push(request.url());
    });
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: COPY.signIn }).click();
    await page.getByRole('alert').filter({ hasText: ERRORS.invalidLogin }).first().waitFor();
    // Shown once, inline and announced; not again as a toast (issue 10).
    await framesDrawn(page);
    expect(toastModule).toEqual([]);
    expect(await page.getByText(ERRORS.invalidLogin, { exact: true }).count()).toBe(1);

    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: COPY.signIn }).click();
    // Watched for together: on a busy machine the main screen can take longer to appear than the
    // welcome toast stays.
    await Promise.all([
      page.getByRole('heading', { name: 'Your Tasks' }).waitFor(),
      toast(page, TOASTS.welcomeBack).waitFor(),
    ]);
    expect(await page.evaluate(() => localStorage.getItem('sessionId'))).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await page.evaluate(() => localStorage.getItem('isAuthenticated'))).toBe('true');
    await expect(menu(page).textContent()).resolves.toContain(`${ADMIN.username} ${COPY.adminSuffix}`);

    await menu(page).click();
    await page.getByRole('menuitem', { name: COPY.logOut }).click();
    await page.getByLabel('Username').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('sessionId'))).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('validates the sign-in form before calling the server', async () => {
    const { page, context } = await openPage(browser, server);
    await page.getByRole('button', { name: COPY.signIn }).click();
    await page.getByText('Username is required').waitFor();
    await context.close();
  });

  it('sends a reset link that sets a new password', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await page.getByRole('button', { name: COPY.sendMeMyPassword }).click();
    expect(await page.getByLabel('Email').getAttribute('type')).toBe('email');
    await page.getByLabel('Email').fill(ADMIN_EMAIL);
    await page.getByRole('button', { name: COPY.sendMeMyPassword }).click();
    await toast(page, TOASTS.passwordSent).waitFor();
    // back on the sign-in form
    await page.getByLabel('Username').waitFor();

    const [mail] = await smtp.waitFor(1);
    const link = mail!.text.match(/http:\/\/localhost:\d+(\/reset-password\/[A-Za-z0-9_-]+)/)![1]!;
    await page.goto(link);
    await page.getByLabel('New Password', { exact: true }).fill('abc');
    await page.getByLabel(/^Confirm/).fill('abc');
    await page.getByRole('button', { name: 'Set Password' }).click();
    await page.getByText(VALIDATION.passwordTooShort).waitFor();
    await page.getByLabel('New Password', { exact: true }).fill('fresh-password');
    await page.getByLabel(/^Confirm/).fill('different');
    await page.getByRole('button', { name: 'Set Password' }).click();
    await page.getByText(VALIDATION.passwordsDoNotMatch).waitFor();
    await page.getByLabel(/^Confirm/).fill('fresh-password');
    await page.getByRole('button', { name: 'Set Password' }).click();
    await page.getByText('Password Reset').waitFor();

    await page.goto('/');
    await signIn(page, ADMIN.username, 'fresh-password');
    // put it back for the other tests, through the Change Password dialog
    await menu(page).click();
    await page.getByRole('menuitem', { name: COPY.changePassword }).click();
    const dialog = page.getByRole('dialog', { name: COPY.changePassword });
    await dialog.getByLabel('Current Password').fill('fresh-password');
    await dialog.getByLabel('New Password', { exact: true }).fill('abc');
    await dialog.getByLabel(/^Confirm/).fill('abc');
    await dialog.getByRole('button', { name: COPY.changePassword }).click();
    await dialog.getByText(VALIDATION.passwordTooShort).waitFor();
    await dialog.getByLabel('New Password', { exact: true }).fill(ADMIN.password);
    await dialog.getByLabel(/^Confirm/).fill('mismatch');
    await dialog.getByRole('button', { name: COPY.changePassword }).click();
    await dialog.getByText(VALIDATION.passwordsDoNotMatch).waitFor();
    await dialog.getByLabel('Current Password').fill('not-the-password');
    await dialog.getByLabel(/^Confirm/).fill(ADMIN.password);
    await dialog.getByRole('button', { name: COPY.changePassword }).click();
    await dialog.getByText('Current password is incorrect.').first().waitFor();
    await dialog.getByLabel('Current Password').fill('fresh-password');
    await dialog.getByRole('button', { name: COPY.changePassword }).click();
    await toast(page, TOASTS.passwordChanged).waitFor();
    await dialog.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('submits an access request', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await page.getByRole('button', { name: COPY.requestAccess }).click();
    expect(await page.getByLabel('Email').getAttribute('type')).toBe('email');
    await page.getByLabel('Email').fill('newcomer@example.com');
    await page.getByLabel('Desired Username').fill('newcomer');
    await page.getByLabel('Message (optional)').fill('Hello, I am on the team.');
    await page.getByRole('button', { name: COPY.requestAccess }).click();
    await toast(page, TOASTS.accessRequestSubmitted).waitFor();
    await page.getByLabel('Username').waitFor();
    // each mode has a way back
    await page.getByRole('button', { name: COPY.requestAccess }).click();
    await page.getByRole('button', { name: COPY.backToSignIn }).click();
    await page.getByLabel('Username').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps the theme over a reload and shows the 404 page', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await signIn(page);
    expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(false);
    await menu(page).click();
    await page.getByRole('menuitem', { name: 'Dark Mode' }).click();
    expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');
    await page.reload();
    await page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
    await menu(page).click();
    await page.getByRole('menuitem', { name: 'Light Mode' }).click();
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('light');

    await page.goto('/definitely/not/here');
    await page.getByRole('heading', { name: COPY.pageNotFound }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('opens the FAQ with six questions', async () => {
    const { page, context } = await openPage(browser, server);
    await signIn(page);
    await menu(page).click();
    await page.getByRole('menuitem', { name: COPY.faq }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.locator('[data-radix-collection-item], button[aria-expanded]').count()).toBe(6);
    await context.close();
  });

  it('confirms the stored session on load and shows the login screen when it has ended', async () => {
    const { page, context } = await openPage(browser, server);
    await signIn(page);
    const sessionId = await page.evaluate(() => localStorage.getItem('sessionId'));
    const logout = await fetch(`${server.url}/api/auth/logout`, {
      method: 'POST',
      headers: { 'user-session': sessionId ?? '' },
    });
    expect(logout.status).toBe(204);
    await page.reload();
    await page.getByLabel('Username').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('sessionId'))).toBeNull();
    await context.close();
  });

  it('signs out in every tab of the browser at once', async () => {
    const { page, context } = await openPage(browser, server);
    await signIn(page);
    const second = await context.newPage();
    await second.goto('/');
    await second.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    await menu(page).click();
    await page.getByRole('menuitem', { name: COPY.logOut }).click();
    await second.getByLabel('Username').waitFor();
    await context.close();
  });
});
