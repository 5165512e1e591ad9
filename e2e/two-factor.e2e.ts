import fs from 'node:fs';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COPY, THEME_STORAGE_KEY, TOASTS } from '../src/common/spec';
import { TWO_FACTOR_MESSAGES } from '../src/common/two-factor';
import {
  ADMIN,
  apiFromPage,
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openContext,
  type RunningServer,
  screenshot,
  startServer,
} from './harness';

/** The code an authenticator app shows for the next 30-second step: accepted, and never one used before. */
const nextCode = (secret: string) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + 30_000 });

describeBrowser('two-factor sign-in', () => {
  let server: RunningServer;
  let browser: Browser;
  let adminRecoveryCodes: string[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(theme: 'light' | 'dark') {
    const context = await openContext(browser, {
      baseURL: server.url,
      viewport: { width: 1280, height: 900 },
    });
    await context.addInitScript(
      ([key, value]) => localStorage.setItem(key!, value!),
      [THEME_STORAGE_KEY, theme],
    );
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) errors.push(message.text());
    });
    await page.goto('/');
    return { context, page, errors };
  }

  const signInWithPassword = async (page: Page, username: string, password: string) => {
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: COPY.signIn }).click();
  };

  const openSecurity = async (page: Page) => {
    await page.getByRole('button', { name: /^Settings for / }).click();
    await page.getByRole('menuitem', { name: COPY.security }).click();
    return page.getByRole('dialog').getByRole('region', { name: 'Two-factor authentication' });
  };

  /** Set up in the Security dialog: QR code and key, a code, then the recovery codes. */
  async function setUp(page: Page, label: string) {
    const section = await openSecurity(page);
    await section.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await section.getByRole('img', { name: /QR code for your authenticator app/ }).waitFor();
    // Focus moves to the step's heading, so the instructions are read first.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toMatch(/Scan the QR code/);
    const secret = (await section.locator('code').textContent())!.replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await expectAccessible(page, `setup ${label}`);
    await screenshot(page, `two-factor-setup-${label}`);

    await section.getByLabel('Authentication code').fill('000000');
    await section.getByRole('button', { name: 'Turn on' }).click();
    await section.getByRole('alert').filter({ hasText: 'The code is not correct' }).waitFor();
    await section
      .getByLabel('Authentication code')
      .fill(TOTP.generate({ secret: Secret.fromBase32(secret) }));
    await section.getByRole('button', { name: 'Turn on' }).click();
    const list = section.getByRole('list', { name: 'Recovery codes' });
    await list.waitFor();
    const codes = await list.getByRole('listitem').allTextContents();
    expect(codes).toHaveLength(10);
    await expectAccessible(page, `recovery codes ${label}`);
    await screenshot(page, `two-factor-codes-${label}`);
    return { section, secret, codes };
  }

  it('sets up two-factor sign-in in Security, then signs in with the password and a code', async () => {
    const { page, context, errors } = await open('light');
    await signInWithPassword(page, ADMIN.username, ADMIN.password);
    await page.getByRole('heading', { name: 'Your Tasks' }).waitFor();

    const { section, secret, codes } = await setUp(page, 'light');
    adminRecoveryCodes = codes;
    const downloading = page.waitForEvent('download');
    await section.getByRole('button', { name: 'Download' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('tasklane-recovery-codes.txt');
    const text = fs.readFileSync((await download.path())!, 'utf8');
    for (const code of codes) expect(text).toContain(code);
    await section.getByRole('button', { name: 'Done' }).click();
    await section.getByText('10 of 10 recovery codes left.').waitFor();
    expect(await apiFromPage(page, 'GET', '/api/auth/2fa')).toEqual({ enabled: true, recoveryCodesLeft: 10 });
    await screenshot(page, 'two-factor-on-light');

    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: /^Settings for / }).click();
    await page.getByRole('menuitem', { name: COPY.logOut }).click();

    await signInWithPassword(page, ADMIN.username, ADMIN.password);
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('sessionId'))).toBeNull();
    await expectAccessible(page, 'second step');
    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').filter({ hasText: TWO_FACTOR_MESSAGES.wrongCode }).waitFor();
    await screenshot(page, 'two-factor-sign-in-light');

    // A way back, and in again.
    await page.getByRole('button', { name: COPY.backToSignIn }).click();
    await signInWithPassword(page, ADMIN.username, ADMIN.password);
    await page.getByLabel('Authentication code').fill(nextCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    await page.getByRole('status').filter({ hasText: TOASTS.welcomeBack }).first().waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('lets an administrator turn off a user’s two-factor sign-in from user management', async () => {
    // The administrator signs in with a recovery code from the first test.
    const admin = await open('light');
    await signInWithPassword(admin.page, ADMIN.username, ADMIN.password);
    await admin.page.getByLabel('Authentication code').fill(adminRecoveryCodes[0]!);
    await admin.page.getByRole('button', { name: 'Verify' }).click();
    await admin.page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    const { user, password } = await apiFromPage<{ user: { username: string }; password: string }>(
      admin.page,
      'POST',
      '/api/admin/users',
      { firstName: 'Dana', email: 'dana@example.com' },
    );

    const dana = await open('dark');
    await signInWithPassword(dana.page, user.username, password);
    await dana.page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    const { section } = await setUp(dana.page, 'dark');
    await section.getByRole('button', { name: 'Done' }).click();
    await screenshot(dana.page, 'two-factor-on-dark');

    await admin.page.getByRole('button', { name: /^Settings for / }).click();
    await admin.page.getByRole('menuitem', { name: COPY.manageUsers }).click();
    const row = admin.page.getByRole('listitem', { name: user.username });
    await row.getByText('2FA', { exact: true }).waitFor();
    await row
      .getByRole('button', { name: `Turn off two-factor authentication for ${user.username}` })
      .click();
    await admin.page.getByRole('alertdialog').getByRole('button', { name: 'Turn off' }).click();
    await admin.page
      .getByRole('status')
      .filter({ hasText: `Two-factor authentication is off for ${user.username}.` })
      .first()
      .waitFor();
    await row.getByText('2FA', { exact: true }).waitFor({ state: 'detached' });
    expect(await row.getByRole('button', { name: /Turn off two-factor authentication/ }).count()).toBe(0);

    // Dana signs in with the password alone again.
    await dana.page.keyboard.press('Escape');
    await dana.page.evaluate(() => localStorage.clear());
    await dana.page.goto('/');
    await signInWithPassword(dana.page, user.username, password);
    await dana.page.getByRole('heading', { name: 'Your Tasks' }).waitFor();

    expect(admin.errors).toEqual([]);
    expect(dana.errors).toEqual([]);
    await admin.context.close();
    await dana.context.close();
  });
});
