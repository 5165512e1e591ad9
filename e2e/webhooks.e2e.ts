import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { THEME_STORAGE_KEY } from '../src/common/spec';
import { WEBHOOK_COPY } from '../src/common/webhooks';
import {
  browserSuite,
  describeBrowser,
  expectAccessible,
  openContext,
  openPage,
  screenshot,
  signIn,
  unnamedFormFields,
} from './harness';

/** A receiver on loopback (allowed: WEBHOOKS_ALLOW_PRIVATE) that answers `status`. */
let status = 204;
const received: Array<{ body: string; headers: Record<string, string> }> = [];
const receiver = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const headers: Record<string, string> = {};
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      headers[name] = String(request.headers[name] ?? '');
    }
    received.push({ body: Buffer.concat(chunks).toString('utf8'), headers });
    response.writeHead(status).end();
  });
});
let receiverUrl = '';

describeBrowser("Integrations: a person's webhooks in the browser", () => {
  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });
  const suite = browserSuite({ env: { WEBHOOKS_ALLOW_PRIVATE: 'true', JOBS_POLL_INTERVAL_MS: '500' } });

  const openIntegrations = async (page: Page) => {
    await page.getByRole('button', { name: /^Settings for / }).click();
    await page.getByRole('menuitem', { name: WEBHOOK_COPY.menuItem }).click();
    return page.getByRole('dialog', { name: WEBHOOK_COPY.title });
  };

  it('adds a webhook, shows its secret once, sends a test the receiver verifies, redelivers a failure, turns it off and deletes it', async () => {
    const opened = await openPage(suite.browser, suite.server);
    suite.opened.push(opened);
    const { page } = opened;
    await signIn(page);
    const dialog = await openIntegrations(page);
    await dialog.getByText(WEBHOOK_COPY.empty).waitFor();

    // Events are required: none ticked is refused in the form.
    await dialog.getByLabel(WEBHOOK_COPY.urlLabel).fill(receiverUrl);
    // The form starts with 'Task created' and 'Task completed' ticked.
    for (const name of ['Task created', 'Task completed'])
      await dialog.getByRole('checkbox', { name }).uncheck();
    expect(await dialog.getByRole('checkbox', { checked: true }).count()).toBe(0);
    await dialog.getByRole('button', { name: WEBHOOK_COPY.create }).click();
    await dialog.getByText('events must name at least one event').waitFor();
    await dialog.getByRole('checkbox', { name: 'Task created' }).check();
    await dialog.getByRole('checkbox', { name: 'Comment added' }).check();
    await dialog.getByRole('button', { name: WEBHOOK_COPY.create }).click();

    const secretField = dialog.getByLabel(`Signing secret for ${receiverUrl}`);
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    await dialog.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const row = dialog.getByRole('listitem', { name: receiverUrl });
    await row.getByText('Task created, Comment added').waitFor();
    await screenshot(page, 'integrations-dialog');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await secretField.waitFor({ state: 'detached' });

    await row.getByRole('button', { name: WEBHOOK_COPY.sendTest }).click();
    await row.getByRole('listitem', { name: 'ping, attempt 1: succeeded' }).waitFor();
    expect(received).toHaveLength(1);
    const ping = new Verifier(secret).verify(received[0]!.body, received[0]!.headers) as {
      type: string;
      data: unknown;
    };
    expect(ping.type).toBe('ping');

    // A failure, then 'Redeliver' once the receiver is back: the same event again.
    status = 500;
    await row.getByRole('button', { name: WEBHOOK_COPY.sendTest }).click();
    await row.getByRole('listitem', { name: 'ping, attempt 1: failed' }).waitFor();
    await row.getByText('Answered 500').waitFor();
    status = 200;
    await row
      .getByRole('button', { name: `${WEBHOOK_COPY.redeliver} ping, attempt 1` })
      .first()
      .click();
    await expect.poll(() => received.length).toBe(3);
    expect(received[2]!.headers['webhook-id']).toBe(received[1]!.headers['webhook-id']);
    await expect
      .poll(() => row.getByRole('listitem', { name: 'ping, attempt 1: succeeded' }).count())
      .toBe(2);

    await row.getByRole('switch', { name: `Active: ${receiverUrl}` }).click();
    await row.getByText(WEBHOOK_COPY.off, { exact: true }).waitFor();
    expect(await row.getByRole('switch').getAttribute('aria-checked')).toBe('false');

    await row.getByRole('button', { name: `Delete ${receiverUrl}` }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await dialog.getByText(WEBHOOK_COPY.empty).waitFor();
  });

  for (const theme of ['light', 'dark'] as const) {
    for (const viewport of [
      { name: 'desktop', width: 1280, height: 800 },
      { name: 'phone', width: 390, height: 844 },
    ]) {
      it(`is accessible in ${theme} at ${viewport.width} px, with a webhook, its secret and its log`, async () => {
        const context = await openContext(suite.browser, {
          baseURL: suite.server.url,
          viewport: { width: viewport.width, height: viewport.height },
          // The audited screens are the settled ones either way; nothing waits out a fade.
          reducedMotion: 'reduce',
        });
        await context.addInitScript(
          ([key, value]) => localStorage.setItem(key!, value!),
          [THEME_STORAGE_KEY, theme],
        );
        const page = await context.newPage();
        try {
          await page.goto('/');
          await signIn(page);
          const dialog = await openIntegrations(page);
          await dialog.getByRole('checkbox', { name: 'Task created' }).waitFor();
          const label = `${viewport.name}-${theme}`;
          await expectAccessible(page, `integrations, empty [${label}]`);
          const url = `${receiverUrl}?${label}`;
          await dialog.getByLabel(WEBHOOK_COPY.urlLabel).fill(url);
          await dialog.getByRole('button', { name: WEBHOOK_COPY.create }).click();
          const row = dialog.getByRole('listitem', { name: url });
          await row.getByRole('button', { name: WEBHOOK_COPY.sendTest }).click();
          await row.getByRole('listitem', { name: /^ping, attempt 1: succeeded$/ }).waitFor();
          await expectAccessible(page, `integrations, a webhook and its log [${label}]`);
          expect(await unnamedFormFields(page)).toEqual([]);
          if (viewport.width === 390) {
            const overflow = await page.evaluate(
              () => document.documentElement.scrollWidth - window.innerWidth,
            );
            expect(overflow, 'scrolls sideways').toBeLessThanOrEqual(0);
            const box = await dialog.boundingBox();
            expect(box!.x).toBeGreaterThanOrEqual(0);
            expect(box!.x + box!.width).toBeLessThanOrEqual(390);
          }
          await screenshot(page, `a11y-dialog-integrations-${label}`);
          // Left as found: the next run starts without it.
          await row.getByRole('button', { name: `Delete ${url}` }).click();
          await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
          await row.waitFor({ state: 'detached' });
        } finally {
          await context.close();
        }
      });
    }
  }
});
