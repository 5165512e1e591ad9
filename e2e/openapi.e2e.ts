import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  budget,
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openContext,
  type RunningServer,
  screenshot,
  startServer,
} from './harness';

/**
 * Issue 12: the API reference at /api/docs renders every operation of /api/openapi.json in
 * Chromium, signed out, under the app's own Content-Security-Policy with nothing refused.
 */
describeBrowser('the API reference page', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    // At a host name with APP_URL saying so: the document's one server is the page's own origin.
    [server, browser] = await Promise.all([startServer({}, { hostName: true }), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it(
    'renders the operations with no CSP violation or console error, and passes axe',
    async () => {
      const spec = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { operationId: string }>>;
      };
      const operationIds = Object.values(spec.paths).flatMap((methods) =>
        Object.values(methods).map((operation) => operation.operationId),
      );

      const context = await openContext(browser, {
        baseURL: server.url,
        viewport: { width: 1280, height: 900 },
      });
      // Seen by the page itself: every refusal under the CSP, whatever the console says.
      await context.addInitScript(() => {
        const seen: string[] = [];
        (window as unknown as { cspViolations: string[] }).cspViolations = seen;
        document.addEventListener('securitypolicyviolation', (event) =>
          seen.push(`${event.violatedDirective} ${event.blockedURI}`),
        );
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' || /Content.Security.Policy/i.test(message.text())) {
          errors.push(`${message.type()}: ${message.text()}`);
        }
      });

      const response = await page.goto('/api/docs');
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self';");

      await page.locator('.opblock').first().waitFor();
      // Every operation is there. From 150 tags and operations on, Swagger UI draws them as a
      // virtual list against the window's scroll: each is seen as the page scrolls down.
      const seen = new Set<string>();
      await expect
        .poll(
          async () => {
            for (const id of await page.locator('.opblock-summary-operation-id').allTextContents()) {
              seen.add(id.trim());
            }
            await page.evaluate(() => window.scrollBy(0, window.innerHeight / 2));
            return operationIds.filter((id) => !seen.has(id));
          },
          { timeout: budget(60_000), interval: 50 },
        )
        .toEqual([]);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.getByText('Tasklane API', { exact: false }).first().waitFor();
      // "Try it out" sends to the server the document names: this one.
      expect(await page.locator('.servers select option').allTextContents()).toEqual([server.url]);
      await page.getByText('MIT', { exact: true }).waitFor();

      // An operation opens with its parameters and its documented answers.
      const createTask = page.locator('#operations-Tasks-createTask');
      await expect
        .poll(async () => {
          if ((await createTask.count()) > 0) return true;
          await page.evaluate(() => window.scrollBy(0, window.innerHeight / 2));
          return false;
        })
        .toBe(true);
      await createTask.locator('.opblock-summary-control').click();
      await createTask.getByText('Request body').waitFor();
      await createTask
        .getByText(/Write the quarterly report/)
        .first()
        .waitFor();
      await createTask.getByText('Created', { exact: true }).waitFor();
      await screenshot(page, 'api-docs');

      const violations = await page.evaluate(
        () => (window as unknown as { cspViolations: string[] }).cspViolations,
      );
      expect(violations).toEqual([]);
      expect(errors).toEqual([]);

      // Swagger UI's markup, headings included, is its own: the WCAG rules only.
      await expectAccessible(page, 'API reference', undefined, { bestPractice: false });

      // The watch above does see a refusal: an inline script is one.
      await page.evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'window.inlineRan = true';
        document.body.append(script);
      });
      await expect
        .poll(() => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations))
        .toEqual([expect.stringContaining('script-src')]);
      await context.close();
    },
    budget(120_000),
  );
});
