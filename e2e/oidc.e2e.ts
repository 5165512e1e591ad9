import net from 'node:net';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OIDC_ERRORS, OIDC_HANDOFF_COOKIE, OIDC_PATHS } from '../src/common/sign-in';
import { startOidcProvider, type TestOidcProvider } from '../src/server/testing/oidc-provider';
import {
  ADMIN,
  describeBrowser,
  launchBrowser,
  openContext,
  type RunningServer,
  screenshot,
  startServer,
} from './harness';

const ADMIN_EMAIL = 'admin@example.com';
const PROVIDER_NAME = 'Acme ID';

/** A port free now: the redirect URI registered at the provider must name it before the server starts. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describeBrowser('single sign-on through an OpenID Connect provider', () => {
  let provider: TestOidcProvider;
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    const appUrl = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider({ redirectUri: `${appUrl}${OIDC_PATHS.callback}` });
    provider.setAccount('admin-at-acme', { email: ADMIN_EMAIL, email_verified: true });
    provider.setAccount('stranger-at-acme', { email: 'stranger@example.com', email_verified: true });
    server = await startServer({
      PORT: String(port),
      APP_URL: appUrl,
      ADMIN_EMAIL,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_NAME: PROVIDER_NAME,
      // The server trusts the provider's private CA the way Node does, which is what this checks.
      NODE_EXTRA_CA_CERTS: provider.caFile,
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await provider?.close();
  });

  /** A fresh browser; it need not trust the test CA (the server's trust is under test, not Chromium's). */
  async function open(): Promise<{
    context: BrowserContext;
    page: import('playwright-core').Page;
    errors: string[];
  }> {
    const context = await openContext(browser, { baseURL: server.url, ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (
        message.type() === 'error' &&
        page.url().startsWith(server.url) &&
        !/status of 4\d\d/.test(message.text())
      )
        errors.push(message.text());
    });
    await page.goto('/');
    return { context, page, errors };
  }

  /** At the provider's (development) login page: any password will do. */
  async function logInAtProvider(page: import('playwright-core').Page, subject: string) {
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.locator('input[name="login"]').fill(subject);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
  }

  it(`shows 'Sign in with ${PROVIDER_NAME}', which goes through the provider and lands signed in on /`, async () => {
    const { context, page, errors } = await open();
    const button = page.getByRole('link', { name: `Sign in with ${PROVIDER_NAME}` });
    await button.click();
    await logInAtProvider(page, 'admin-at-acme');

    await page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByRole('button', { name: /^Settings for / }).waitFor();
    expect(await page.getByText(`${ADMIN.username}`, { exact: false }).count()).toBeGreaterThan(0);
    // The session is kept as a password sign-in's is, and the one-time marker is gone.
    expect(await page.evaluate(() => localStorage.getItem('sessionId'))).toEqual(expect.any(String));
    expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain(OIDC_HANDOFF_COOKIE);
    // A reload stays signed in.
    await page.reload();
    await page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('brings a person without an account back to the login screen with the reason, announced', async () => {
    const { context, page, errors } = await open();
    await page.getByRole('link', { name: `Sign in with ${PROVIDER_NAME}` }).click();
    await logInAtProvider(page, 'stranger-at-acme');

    await page.getByRole('alert').filter({ hasText: OIDC_ERRORS.noAccount }).waitFor();
    await page.getByLabel('Username').waitFor();
    // The code leaves the address once shown.
    expect(new URL(page.url()).search).toBe('');
    await screenshot(page, 'oidc-sign-in-error');
    expect(errors).toEqual([]);
    await context.close();
  });
});
