import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  CALDAV_COPY,
  CALDAV_INBOX_NAME,
  CALDAV_REALM,
  davCollectionPath,
  davHomePath,
} from '../src/common/caldav';
import type { Project } from '../src/common/projects';
import { COPY, THEME_STORAGE_KEY } from '../src/common/spec';
import {
  ADMIN,
  apiFromPage,
  browserSuite,
  describeBrowser,
  expectAccessible,
  openPage,
  screenshot,
  signIn,
  unnamedFormFields,
} from './harness';

/**
 * Issue 30: Security → API tokens → 'For a CalDAV app' makes an app password, shown once with the
 * server address and the username; a CalDAV client signs in with them (HTTP Basic).
 */
describeBrowser('CalDAV: an app password from the Security dialog', () => {
  const suite = browserSuite();

  const openTokens = async (page: Page) => {
    await page.getByRole('button', { name: /^Settings for / }).click();
    await page.getByRole('menuitem', { name: COPY.security }).click();
    return page.getByRole('dialog', { name: COPY.security }).getByRole('region', { name: 'API tokens' });
  };

  /** The username and token the dialog showed, for the CalDAV requests. */
  let shown: { address: string; username: string; password: string } | undefined;

  it('makes a token for a CalDAV app with the keyboard, shown once with the address and the username, each to copy', async () => {
    const opened = await openPage(suite.browser, suite.server);
    suite.opened.push(opened);
    const { page } = opened;
    await signIn(page);
    const tokens = await openTokens(page);

    // The choice comes first in the form; it names the token and leaves it read and write.
    const choice = tokens.getByRole('checkbox', { name: new RegExp(`^${CALDAV_COPY.choice}`) });
    await choice.focus();
    await page.keyboard.press('Space');
    expect(await choice.isChecked()).toBe(true);
    const name = tokens.getByLabel('Token name');
    expect(await name.inputValue()).toBe(CALDAV_COPY.defaultName);
    expect(await tokens.getByRole('checkbox', { name: /^Read only/ }).isChecked()).toBe(false);
    await page.keyboard.press('Tab');
    expect(await name.evaluate((field) => field === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');

    const address = tokens.getByLabel(CALDAV_COPY.server);
    await address.waitFor();
    const username = tokens.getByLabel(CALDAV_COPY.username, { exact: true });
    const password = tokens.getByLabel(CALDAV_COPY.password);
    shown = {
      address: await address.inputValue(),
      username: await username.inputValue(),
      password: await password.inputValue(),
    };
    expect(shown.address).toBe(`${suite.server.url}/dav/`);
    expect(shown.username).toBe(ADMIN.username);
    expect(shown.password).toMatch(/^tl_[A-Za-z0-9_-]{32,}$/);
    await tokens.getByText(CALDAV_COPY.discovery(suite.server.url)).waitFor();

    // Each value has its own Copy, named for it.
    for (const [label, value] of [
      [CALDAV_COPY.server, shown.address],
      [CALDAV_COPY.username, shown.username],
      [CALDAV_COPY.password, shown.password],
    ] as const) {
      await tokens.getByRole('button', { name: `Copy ${label}` }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText()), label).toBe(value);
    }
    const row = tokens.getByRole('listitem', { name: CALDAV_COPY.defaultName });
    await row.getByText('Read and write · All projects', { exact: true }).waitFor();
    // An app password does not expire unless the person chose so: a phone's sync would stop silently.
    await row.getByText(/Never expires/).waitFor();
    await screenshot(page, 'caldav-app-password');

    // Shown once: Done puts it away, focus goes back to the form, which starts over without the choice.
    await tokens.getByRole('button', { name: 'Done' }).press('Enter');
    await address.waitFor({ state: 'detached' });
    await expect.poll(() => name.evaluate((field) => field === document.activeElement)).toBe(true);
    expect(await choice.isChecked()).toBe(false);
    expect(await name.inputValue()).toBe('');
  });

  it('the shown app password is accessible in light and dark, at 1280 and 390 px', async () => {
    const opened = await openPage(suite.browser, suite.server);
    suite.opened.push(opened);
    const { page } = opened;
    await signIn(page);
    for (const theme of ['light', 'dark'] as const) {
      for (const width of [1280, 390]) {
        const label = `${width}-${theme}`;
        await page.setViewportSize({ width, height: 844 });
        await page.evaluate(([key, value]) => localStorage.setItem(key!, value!), [THEME_STORAGE_KEY, theme]);
        await page.reload();
        const tokens = await openTokens(page);
        await tokens.getByRole('checkbox', { name: new RegExp(`^${CALDAV_COPY.choice}`) }).check();
        await tokens.getByRole('button', { name: 'Create token' }).click();
        await tokens.getByLabel(CALDAV_COPY.password).scrollIntoViewIfNeeded();
        expect(await page.evaluate(() => document.documentElement.classList.contains('dark')), label).toBe(
          theme === 'dark',
        );
        await expectAccessible(page, `CalDAV app password [${label}]`);
        expect(await unnamedFormFields(page), label).toEqual([]);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${label} scrolls sideways`).toBeLessThanOrEqual(0);
        await screenshot(page, `caldav-app-password-${label}`);
      }
    }
  });

  it('a CalDAV client signs in with that username and token, and not with the account password', async () => {
    expect(shown, 'the first test showed an app password').toBeDefined();
    const { address, username, password } = shown!;
    const basic = (secret: string) => `Basic ${Buffer.from(`${username}:${secret}`).toString('base64')}`;
    const propfind = (authorization?: string) =>
      fetch(`${suite.server.url}${davHomePath(username)}`, {
        method: 'PROPFIND',
        headers: {
          depth: '1',
          'content-type': 'application/xml; charset=utf-8',
          ...(authorization ? { authorization } : {}),
        },
        body: '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:displayname/><d:resourcetype/></d:prop></d:propfind>',
      });

    // The address the dialog showed is the server's, discovered from the origin alone too.
    const wellKnown = await fetch(`${suite.server.url}/.well-known/caldav`, { redirect: 'manual' });
    expect(wellKnown.status).toBe(301);
    expect(new URL(wellKnown.headers.get('location')!, suite.server.url).href).toBe(address);

    const home = await propfind(basic(password));
    const body = await home.text();
    expect(home.status, body).toBe(207);
    // The Inbox is there, first, under its CalDAV name.
    const opened = await openPage(suite.browser, suite.server);
    suite.opened.push(opened);
    await signIn(opened.page);
    const inbox = (await apiFromPage<Project[]>(opened.page, 'GET', '/api/projects')).find(
      (project) => project.inbox,
    )!;
    expect(body).toContain(davCollectionPath(username, inbox.id));
    expect(body).toContain(CALDAV_INBOX_NAME);

    // An account password is refused (no second factor could be asked), as is no password at all.
    for (const authorization of [basic(ADMIN.password), undefined]) {
      const refused = await propfind(authorization);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(`Basic realm="${CALDAV_REALM}"`);
    }
  });
});
