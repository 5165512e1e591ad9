import { ADMIN } from './app.mjs';

/**
 * A page for a browser bench, at 1280x900 with no service worker. Cold: signed in through the API
 * (the session cookie and the stored session, as a sign-in leaves them) on an empty cache, the page
 * not yet opened; `beforeVisit(api, login)` runs first with that session. Warm: signed in through the
 * form, the first card shown. The caller closes the context.
 */
export async function openBenchPage(browser, url, { cold, beforeVisit }) {
  let storageState;
  if (cold) {
    const api = await browser.newContext({ baseURL: url });
    const login = await (await api.request.post('/api/auth/login', { data: ADMIN })).json();
    await beforeVisit?.(api, login);
    const { cookies } = await api.storageState();
    await api.close();
    storageState = {
      cookies,
      origins: [
        {
          origin: url,
          localStorage: [
            { name: 'sessionId', value: login.sessionId },
            { name: 'user', value: JSON.stringify(login.user) },
            { name: 'isAuthenticated', value: 'true' },
          ],
        },
      ],
    };
  }
  const context = await browser.newContext({
    baseURL: url,
    viewport: { width: 1280, height: 900 },
    serviceWorkers: 'block',
    storageState,
  });
  const page = await context.newPage();
  if (!cold) {
    await page.goto('/');
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.locator('article[data-task-id]').first().waitFor({ timeout: 60_000 });
  }
  return { context, page };
}
