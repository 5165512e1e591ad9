import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COPY } from '../src/common/spec';
import { createPgSchema, type PgSchema } from '../src/server/testing/database';
import { startTcpProxy, type TcpProxy } from '../src/server/testing/tcp-proxy';
import {
  budget,
  createTaskFromPage,
  launchBrowser,
  openPage,
  type RunningServer,
  signIn,
  startServer,
} from './harness';

const BASE_URL = process.env.TEST_DATABASE_URL;

/**
 * Issue 10: PostgreSQL goes away under a signed-in browser (the server reaches it through a proxy
 * the test cuts). The page shows one calm 'Reconnecting…' notice, no error toasts, and carries on
 * without a server restart once the database is back.
 */
describe.runIf(BASE_URL)('the database going away, in the browser', () => {
  let schema: PgSchema;
  let proxy: TcpProxy;
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    schema = await createPgSchema(BASE_URL!, 'outage');
    const target = new URL(schema.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    target.hostname = '127.0.0.1';
    target.port = String(proxy.port);
    [server, browser] = await Promise.all([
      startServer({ DATABASE_URL: target.toString() }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await proxy?.close();
    await schema?.drop();
  });

  it(
    'shows one Reconnecting… notice and no error toast, then works again without a restart',
    async () => {
      const { page, context } = await openPage(browser, server);
      await signIn(page);
      await createTaskFromPage(page, 'Before the outage');
      await page.reload();
      await page.getByRole('article', { name: 'Before the outage' }).waitFor();

      await proxy.cut();
      // A card's file list loads when its menu opens: that request meets the outage.
      await page
        .getByRole('article', { name: 'Before the outage' })
        .getByRole('button', { name: COPY.noFiles })
        .click();
      const notice = page.getByRole('status').filter({ hasText: 'Reconnecting…' });
      await notice.waitFor({ timeout: budget(15_000) });
      expect(await notice.count()).toBe(1);
      const toasts = page.getByRole('region', { name: /Notifications/ }).getByRole('listitem');
      expect(await toasts.count()).toBe(0);

      await proxy.restore();
      await notice.waitFor({ state: 'detached', timeout: budget(20_000) });
      await page.keyboard.press('Escape');
      await createTaskFromPage(page, 'After the outage');
      await page.getByRole('article', { name: 'After the outage' }).waitFor();
      expect(await toasts.count()).toBe(0);
      await context.close();
    },
    budget(90_000),
  );
});
