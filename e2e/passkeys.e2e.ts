import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COPY, THEME_STORAGE_KEY, TOASTS } from '../src/common/spec';
import {
  ADMIN,
  apiFromPage,
  describeBrowser,
  expectAccessible,
  framesDrawn,
  launchBrowser,
  openContext,
  openPage,
  type RunningServer,
  screenshot,
  signIn,
  startServer,
} from './harness';

const PASSKEY_BUTTON = 'Sign in with a passkey';

/**
 * Passkeys in Chromium with its virtual authenticator (DevTools protocol, WebAuthn domain): a
 * platform authenticator that keeps discoverable credentials and verifies the person at once. The
 * server runs at http://localhost:<port> with APP_URL saying so: passkeys need a host name.
 */
describeBrowser('passkeys', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({}, { hostName: true }), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function addVirtualAuthenticator(page: Page, { isUserVerified = true } = {}) {
    const cdp: CDPSession = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified,
        automaticPresenceSimulation: true,
      },
    });
    return { cdp, authenticatorId };
  }

  const menu = (page: Page) => page.getByRole('button', { name: /^Settings for / });
  const toast = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).first();

  async function openSecurity(page: Page) {
    await menu(page).click();
    await page.getByRole('menuitem', { name: COPY.security }).click();
    return page.getByRole('dialog').getByRole('region', { name: 'Passkeys' });
  }

  it('adds a passkey in Security, signs out, and signs back in with it, no username asked', async () => {
    const { page, context, errors } = await openPage(browser, server);
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page);
    await signIn(page);

    const section = await openSecurity(page);
    await section.getByText('You have no passkeys.').waitFor();
    await section.getByRole('button', { name: 'Add a passkey' }).click();
    await section.getByText('Name is required').waitFor();
    await section.getByLabel('Passkey name').fill('Test laptop');
    await section.getByRole('button', { name: 'Add a passkey' }).click();
    const row = section.getByRole('listitem', { name: 'Test laptop' });
    await row.waitFor();
    await toast(page, "Passkey 'Test laptop' added.").waitFor();
    await expect(row.textContent()).resolves.toMatch(/Added .* · Never used/);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    await expectAccessible(page, 'Security with a passkey');
    await screenshot(page, 'passkeys-security-light');

    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await menu(page).click();
    await page.getByRole('menuitem', { name: COPY.logOut }).click();
    await page.getByLabel('Username').waitFor();

    const button = page.getByRole('button', { name: PASSKEY_BUTTON });
    await expectAccessible(page, 'login screen with the passkey button');
    await screenshot(page, 'passkeys-login-light');
    await button.click();
    // Together: the welcome toast may be gone before a busy machine shows the main screen.
    await Promise.all([
      page.getByRole('heading', { name: 'Your Tasks' }).waitFor(),
      toast(page, TOASTS.welcomeBack).waitFor(),
    ]);
    await expect(menu(page).textContent()).resolves.toContain(ADMIN.username);
    expect(await page.evaluate(() => localStorage.getItem('sessionId'))).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const [listed] = await apiFromPage<{ lastUsedAt: string | null }[]>(page, 'GET', '/api/auth/passkeys');
    expect(listed!.lastUsedAt).not.toBeNull();
    const again = await openSecurity(page);
    await expect(again.getByRole('listitem', { name: 'Test laptop' }).textContent()).resolves.toMatch(
      /Last used/,
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it('renames and removes a passkey; a removed one no longer signs in', async () => {
    const { page, context } = await openPage(browser, server);
    await addVirtualAuthenticator(page);
    await signIn(page);
    const section = await openSecurity(page);
    await section.getByLabel('Passkey name').fill('Old name');
    await section.getByRole('button', { name: 'Add a passkey' }).click();
    await section.getByRole('listitem', { name: 'Old name' }).waitFor();

    await section.getByRole('button', { name: 'Rename Old name' }).click();
    await section.getByLabel('New name for Old name').fill('Phone');
    await section.getByRole('button', { name: 'Save' }).click();
    await section.getByRole('listitem', { name: 'Phone' }).waitFor();

    await section.getByRole('button', { name: 'Remove Phone' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await toast(page, "Passkey 'Phone' removed.").waitFor();
    await section.getByRole('listitem', { name: 'Phone' }).waitFor({ state: 'detached' });

    // The authenticator still holds it; the server no longer knows it.
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await menu(page).click();
    await page.getByRole('menuitem', { name: COPY.logOut }).click();
    await page.getByRole('button', { name: PASSKEY_BUTTON }).click();
    await page.getByRole('alert').filter({ hasText: 'not registered with Tasklane' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Your Tasks' }).count()).toBe(0);
    await context.close();
  });

  it('says so clearly when the person is not verified or cancels', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await addVirtualAuthenticator(page, { isUserVerified: false });
    await page.getByRole('button', { name: PASSKEY_BUTTON }).click();
    await page.getByRole('alert').filter({ hasText: 'The passkey prompt was closed or timed out' }).waitFor();
    await screenshot(page, 'passkeys-login-cancelled-light');
    await expect(page.getByRole('button', { name: PASSKEY_BUTTON }).isEnabled()).resolves.toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('hides the button and explains in Security when the server cannot take passkeys', async () => {
    // What GET /api/auth/providers answers when APP_URL is an IP address (passkeys.test.ts checks
    // the server's side); a second server just for this would double the file's start-up.
    const { page, context } = await openPage(browser, server);
    await page.route('**/api/auth/providers', (route) => route.fulfill({ json: { passkeys: false } }));
    const answered = page.waitForResponse('**/api/auth/providers');
    await page.goto('/');
    await page.getByLabel('Username').waitFor();
    await answered;
    await framesDrawn(page); // the login screen has had its answer
    expect(await page.getByRole('button', { name: PASSKEY_BUTTON }).count()).toBe(0);
    await signIn(page);
    const section = await openSecurity(page);
    await section.getByText('Passkeys are not available on this server').waitFor();
    expect(await section.getByRole('button', { name: 'Add a passkey' }).count()).toBe(0);
    await context.close();
  });

  it('looks right in the dark theme', async () => {
    const context = await openContext(browser, {
      baseURL: server.url,
      viewport: { width: 1280, height: 900 },
    });
    await context.addInitScript(([key]) => localStorage.setItem(key!, 'dark'), [THEME_STORAGE_KEY]);
    const page = await context.newPage();
    await page.goto('/');
    await addVirtualAuthenticator(page);
    await page.getByRole('button', { name: PASSKEY_BUTTON }).waitFor();
    await expectAccessible(page, 'login screen, dark');
    await screenshot(page, 'passkeys-login-dark');
    await signIn(page);
    const section = await openSecurity(page);
    await section.getByLabel('Passkey name').fill('Dark laptop');
    await section.getByRole('button', { name: 'Add a passkey' }).click();
    await section.getByRole('listitem', { name: 'Dark laptop' }).waitFor();
    await expectAccessible(page, 'Security, dark');
    await screenshot(page, 'passkeys-security-dark');
    await context.close();
  });
});
