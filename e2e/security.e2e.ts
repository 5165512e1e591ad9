import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COPY, THEME_STORAGE_KEY } from '../src/common/spec';
import { TOKEN_MESSAGES } from '../src/common/tokens';
import {
  apiFromPage,
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openPage,
  type RunningServer,
  screenshot,
  signIn,
  startServer,
  unnamedFormFields,
} from './harness';

describeBrowser('the Security dialog: your devices and API tokens', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const openSecurity = async (page: Page) => {
    await page.getByRole('button', { name: /^Settings for / }).click();
    await page.getByRole('menuitem', { name: COPY.security }).click();
    return page.getByRole('dialog', { name: COPY.security });
  };

  it('signs out another browser, which finds itself signed out at its next request', async () => {
    const laptop = await openPage(browser, server);
    await signIn(laptop.page);
    const phone = await openPage(browser, server);
    await signIn(phone.page);

    const dialog = await openSecurity(laptop.page);
    const devices = dialog.getByRole('region', { name: 'Your devices' });
    await devices.getByRole('listitem').nth(1).waitFor();
    expect(await devices.getByText('This device').count()).toBe(1);
    await screenshot(laptop.page, 'security-dialog');

    // The other session's row is the one without 'This device'.
    await devices
      .getByRole('button', { name: /^Sign out / })
      .first()
      .click();
    await laptop.page.getByRole('status').filter({ hasText: 'Signed out that device.' }).first().waitFor();
    await expect.poll(() => devices.getByRole('listitem').count()).toBe(1);

    // The phone's next request is refused and it shows the login screen.
    await phone.page.reload();
    await phone.page.getByLabel('Username').waitFor();
    expect(laptop.errors).toEqual([]);
    await laptop.context.close();
    await phone.context.close();
  });

  it("'Sign out everywhere else' keeps this browser signed in", async () => {
    const first = await openPage(browser, server);
    await signIn(first.page);
    const second = await openPage(browser, server);
    await signIn(second.page);

    const dialog = await openSecurity(first.page);
    await dialog.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await first.page
      .getByRole('alertdialog')
      .getByRole('button', { name: 'Sign out everywhere else' })
      .click();
    await first.page.getByRole('status').filter({ hasText: 'Signed out everywhere else.' }).first().waitFor();
    await expect
      .poll(() => dialog.getByRole('region', { name: 'Your devices' }).getByRole('listitem').count())
      .toBe(1);

    await second.page.reload();
    await second.page.getByLabel('Username').waitFor();
    await first.page.reload();
    await first.page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
    await first.context.close();
    await second.context.close();
  });

  it('creates an API token shown once, which works until it is revoked', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await signIn(page);
    const dialog = await openSecurity(page);
    const tokens = dialog.getByRole('region', { name: 'API tokens' });
    await tokens.getByLabel('Token name').fill('My script');
    await tokens.getByRole('button', { name: 'Create token' }).click();
    const field = tokens.getByLabel('API token My script');
    await field.waitFor();
    const token = await field.inputValue();
    expect(token).toMatch(/^tl_[A-Za-z0-9_-]{32,}$/);
    await tokens.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await tokens.getByRole('listitem', { name: 'My script' }).waitFor();

    const listTasks = () =>
      fetch(`${server.url}/api/tasks`, { headers: { authorization: `Bearer ${token}` } }).then(
        (r) => r.status,
      );
    expect(await listTasks()).toBe(200);

    await tokens.getByRole('button', { name: 'Revoke My script' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke' }).click();
    await tokens.getByText('You have no API tokens.').waitFor();
    expect(await listTasks()).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('creates a read-only token limited to some projects; the list shows each token’s limits', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await signIn(page);
    await apiFromPage(page, 'POST', '/api/projects', { name: 'Website' });
    await apiFromPage(page, 'POST', '/api/projects', { name: 'Garden' });
    const dialog = await openSecurity(page);
    const tokens = dialog.getByRole('region', { name: 'API tokens' });

    await tokens.getByLabel('Token name').fill('Reader');
    await tokens.getByRole('checkbox', { name: /^Read only/ }).check();
    await tokens.getByRole('group', { name: 'Projects' }).getByRole('checkbox', { name: 'Inbox' }).check();
    await tokens.getByRole('group', { name: 'Projects' }).getByRole('checkbox', { name: 'Website' }).check();
    await tokens.getByRole('button', { name: 'Create token' }).click();
    const token = await tokens.getByLabel('API token Reader').inputValue();
    await tokens.getByRole('button', { name: 'Done' }).click();
    await tokens
      .getByRole('listitem', { name: 'Reader' })
      .getByText('Read only · Inbox, Website', { exact: true })
      .waitFor();
    // The form starts over: nothing checked, so the next token has no limits.
    expect(await tokens.getByRole('checkbox', { name: /^Read only/ }).isChecked()).toBe(false);
    await tokens.getByLabel('Token name').fill('Writer');
    await tokens.getByRole('button', { name: 'Create token' }).click();
    await tokens
      .getByRole('listitem', { name: 'Writer' })
      .getByText('Read and write · All projects', { exact: true })
      .waitFor();

    const write = await fetch(`${server.url}/api/tasks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'From a reader' }),
    });
    expect([write.status, await write.json()]).toEqual([403, { message: TOKEN_MESSAGES.readOnly }]);
    expect(errors).toEqual([]);

    // The dialog with both tokens, in light and dark, at 1280 and 390 px: the same signed-in page,
    // reloaded in each theme at each width (a context and a sign-in each took 10 s on a busy machine).
    for (const theme of ['light', 'dark'] as const) {
      for (const width of [1280, 390]) {
        const label = `${width}-${theme}`;
        await page.setViewportSize({ width, height: 844 });
        await page.evaluate(([key, value]) => localStorage.setItem(key!, value!), [THEME_STORAGE_KEY, theme]);
        await page.reload();
        const shown = await openSecurity(page);
        await shown.getByText('Read only · Inbox, Website', { exact: true }).scrollIntoViewIfNeeded();
        expect(await page.evaluate(() => document.documentElement.classList.contains('dark')), label).toBe(
          theme === 'dark',
        );
        await expectAccessible(page, `security tokens [${label}]`);
        expect(await unnamedFormFields(page), label).toEqual([]);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${label} scrolls sideways`).toBeLessThanOrEqual(0);
        await screenshot(page, `security-tokens-${label}`);
        expect(errors).toEqual([]);
      }
    }
    await context.close();
  });
});
