import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OFFLINE_COPY } from '../src/common/offline';

import {
  budget,
  describeBrowser,
  launchBrowser,
  openPage,
  type RunningServer,
  signIn,
  startServer,
} from './harness';

/** This file tests the service worker itself: the harness blocks it elsewhere. */
const WITH_SERVICE_WORKER = { serviceWorkers: 'allow' } as const;

/**
 * Issue 13, Installable (decision 020): a valid web app manifest with PNG icons, a service worker
 * that precaches the app shell so a reload works offline, and an 'Offline' status (a notice signed
 * out, the header's status signed in: issue 31) that goes away when the network is back. The API never goes through the worker.
 */
describeBrowser('the installable app', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('links a valid manifest whose icons answer as PNG, and an Apple touch icon', async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const manifestHref = html.match(/<link rel="manifest" href="([^"]+)"/)?.[1];
    expect(manifestHref).toBe('/manifest.webmanifest');
    expect(html).toContain('<link rel="apple-touch-icon" href="/icons/apple-touch-icon.png"');
    expect(html).toContain('<meta name="theme-color"');

    const response = await fetch(`${server.url}${manifestHref}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    const manifest = (await response.json()) as {
      name: string;
      short_name: string;
      start_url: string;
      display: string;
      theme_color: string;
      background_color: string;
      icons: { src: string; sizes: string; type: string; purpose?: string }[];
    };
    expect(manifest).toMatchObject({
      name: 'Tasklane',
      short_name: 'Tasklane',
      start_url: '/',
      display: 'standalone',
    });
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
    expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/i);
    const sizes = manifest.icons.map((icon) => icon.sizes);
    expect(sizes).toContain('192x192');
    expect(sizes).toContain('512x512');
    expect(manifest.icons.some((icon) => icon.purpose?.split(' ').includes('maskable'))).toBe(true);

    for (const src of [...manifest.icons.map((icon) => icon.src), '/icons/apple-touch-icon.png']) {
      const icon = await fetch(new URL(src, server.url));
      expect(icon.status, src).toBe(200);
      expect(icon.headers.get('content-type'), src).toBe('image/png');
      const bytes = new Uint8Array(await icon.arrayBuffer());
      expect([...bytes.subarray(1, 4)], src).toEqual([0x50, 0x4e, 0x47]); // "PNG"
    }
  });

  it('serves the service worker as JavaScript that is always revalidated', async () => {
    const response = await fetch(`${server.url}/sw.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^(application|text)\/javascript/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("worker-src 'self'");
    expect(csp).toContain("manifest-src 'self'");
  });

  /** Waits until the service worker is active and controls the page. */
  async function controlled(page: Page) {
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  }

  const offlineNotice = (page: Page) => page.getByRole('status').filter({ hasText: OFFLINE_COPY.offline });

  it('opens the login screen offline from the cached shell, with the offline notice', async () => {
    const { context, page } = await openPage(browser, server, '/', WITH_SERVICE_WORKER);
    try {
      await page.getByRole('button', { name: 'Sign In', exact: true }).waitFor();
      await controlled(page);

      await context.setOffline(true);
      await expect.poll(() => page.evaluate(() => navigator.onLine)).toBe(false);
      await offlineNotice(page).waitFor();

      await page.reload();
      await page.getByRole('button', { name: 'Sign In', exact: true }).waitFor();
      await offlineNotice(page).waitFor();
      expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
      // The API is network only: offline, it fails instead of answering from a cache.
      const api = await page.evaluate(() =>
        fetch('/api/auth/providers').then(
          (response) => `answered ${response.status}`,
          () => 'failed',
        ),
      );
      expect(api).toBe('failed');

      await context.setOffline(false);
      await offlineNotice(page).waitFor({ state: 'detached' });
    } finally {
      await context.close();
    }
  });

  it('leaves what is no page to the server: robots.txt and /.well-known/ never get the cached app', async () => {
    const { context, page } = await openPage(browser, server, '/', WITH_SERVICE_WORKER);
    try {
      await controlled(page);
      const robots = await page.goto(`${server.url}/robots.txt`);
      expect(robots?.fromServiceWorker()).toBe(false);
      expect(await robots?.text()).toContain('Disallow: /api/');
      const wellKnown = await page.goto(`${server.url}/.well-known/oauth-protected-resource`);
      expect(wellKnown?.fromServiceWorker()).toBe(false);
      expect(wellKnown?.status()).toBe(404);
      expect(await wellKnown?.json()).toEqual({ message: expect.any(String) });
    } finally {
      await context.close();
    }
  });

  it('leaves API calls to the network, where browser tests can still intercept them', async () => {
    // Other browser tests stub API answers with page.route, which cannot see what a worker answers.
    const { context, page } = await openPage(browser, server, '/', WITH_SERVICE_WORKER);
    try {
      await controlled(page);
      await page.route('**/api/auth/providers', (route) => route.fulfill({ json: { stubbed: true } }));
      const ask = () => page.evaluate(() => fetch('/api/auth/providers').then((response) => response.json()));
      // Playwright attaches to the worker on its own time: until then, a request the worker passes
      // on escapes the route (seen once at load 11). Once attached, every one is stubbed.
      await expect.poll(ask, { timeout: budget(10_000) }).toEqual({ stubbed: true });
      const [answered, body] = await Promise.all([
        page.waitForResponse((response) => response.url().endsWith('/api/auth/providers')),
        ask(),
      ]);
      expect(body).toEqual({ stubbed: true });
      expect(answered.fromServiceWorker()).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('opens the main screen offline when signed in; one notice, gone when back online', async () => {
    const { context, page } = await openPage(browser, server, '/', WITH_SERVICE_WORKER);
    try {
      await signIn(page);
      await controlled(page);

      await context.setOffline(true);
      await page.reload();
      await page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
      await offlineNotice(page).waitFor();
      // The failed loads put the app in 'reconnecting'; while offline, only the offline notice shows.
      await expect.poll(() => page.getByText('Reconnecting…').count()).toBe(0);

      await context.setOffline(false);
      await offlineNotice(page).waitFor({ state: 'detached' });
      // Back online, the server is checked at once and the lists load.
      await page.getByText('Reconnecting…').waitFor({ state: 'detached', timeout: budget(5_000) });
      await expect.poll(() => offlineNotice(page).count()).toBe(0);

      // Nothing the API answered was kept by the worker.
      const cached = await page.evaluate(async () => {
        const urls: string[] = [];
        for (const name of await caches.keys()) {
          for (const request of await (await caches.open(name)).keys())
            urls.push(new URL(request.url).pathname);
        }
        return urls;
      });
      expect(cached).toContain('/index.html');
      expect(cached.filter((url) => url.startsWith('/api/'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
