import fs from 'node:fs';
import path from 'node:path';
import type { Browser, FileChooser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TaskFile } from '../src/common/files';
import type { Task } from '../src/common/tasks';
import {
  animationsSettled,
  apiFromPage,
  createTaskFromPage,
  describeBrowser,
  launchBrowser,
  type OpenPage,
  openPage,
  type RunningServer,
  screenshot,
  signIn,
  startServer,
} from './harness';

/** Small enough that the test can go over it quickly. */
const MAX_UPLOAD_BYTES = 1024 * 1024;

/** Per-task files and the Add New Task attachments (spec §2, §4, §5, §8), driven as a person would. */
describeBrowser('files in the browser', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServer({ MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Signed in as the admin, with one fresh task on the list. */
  async function withTask(title: string): Promise<OpenPage & { task: Task }> {
    const opened = await openPage(browser, server);
    await signIn(opened.page);
    for (const old of await apiFromPage<Task[]>(opened.page, 'GET', '/api/tasks')) {
      await apiFromPage(opened.page, 'DELETE', `/api/tasks/${old.id}`);
    }
    const task = await createTaskFromPage(opened.page, title);
    await opened.page.reload();
    await card(opened.page, title).waitFor();
    return { ...opened, task };
  }

  const card = (page: Page, title: string) => page.getByRole('article', { name: title, exact: true });
  const toasts = (page: Page) => page.getByRole('region', { name: /Notifications/ });
  const menu = (page: Page) => page.getByRole('menu');

  /** As a person does it: the badge, then 'Add Files', then the browser's file chooser. */
  async function addFromCard(page: Page, title: string, files: Parameters<FileChooser['setFiles']>[0]) {
    await card(page, title)
      .getByRole('button', { name: /^(No Files|\d+ File\(s\))$/ })
      .click();
    const chooser = page.waitForEvent('filechooser');
    await menu(page).getByRole('menuitem', { name: 'Add Files' }).click();
    await (await chooser).setFiles(files);
  }

  /** Opens a card's files menu once the last one has finished closing, as a person would see it. */
  async function openFiles(page: Page, title: string, badge: string) {
    await menu(page).waitFor({ state: 'detached' });
    await card(page, title).getByRole('button', { name: badge }).click();
    await menu(page).waitFor();
  }

  async function expectToast(page: Page, title: string, ...lines: string[]) {
    await toasts(page).getByText(title, { exact: true }).waitFor();
    for (const line of lines) await toasts(page).getByText(line, { exact: true }).waitFor();
  }

  const blobs = () => fs.readdirSync(path.join(server.dataDir, 'files')).filter((n) => n !== '.incoming');

  const text = (name: string, content: string, mimeType = 'text/plain') => ({
    name,
    mimeType,
    buffer: Buffer.from(content),
  });
  const binary = Buffer.from(Array.from({ length: 1536 }, (_, i) => i % 251));

  it('adds files from the card, counts, downloads and deletes them', async () => {
    const { page, errors } = await withTask('Quarterly report');
    const taskCard = card(page, 'Quarterly report');
    const badge = taskCard.getByRole('button', { name: 'No Files' });
    await badge.waitFor();

    await addFromCard(page, 'Quarterly report', [
      text('notes.txt', 'hello files'),
      { name: 'data.bin', mimeType: 'application/octet-stream', buffer: binary },
    ]);
    await expectToast(page, 'Files Uploading', 'Uploading 2 files...');
    await taskCard.getByRole('button', { name: '2 Files' }).waitFor();

    await openFiles(page, 'Quarterly report', '2 Files');
    await menu(page).getByRole('menuitem', { name: 'Add Files' }).waitFor();
    await menu(page).getByText('notes.txt', { exact: true }).waitFor();
    await menu(page).getByText('11 Bytes', { exact: true }).waitFor();
    await menu(page).getByText('1.50 KB', { exact: true }).waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      menu(page).getByRole('menuitem', { name: 'Download data.bin' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('data.bin');
    expect(fs.readFileSync(await download.path()).equals(binary)).toBe(true);

    await openFiles(page, 'Quarterly report', '2 Files');
    await menu(page).getByRole('menuitem', { name: 'Delete notes.txt' }).click();
    await expectToast(page, 'File Deleted', 'File removed successfully');
    await menu(page).getByText('notes.txt', { exact: true }).waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await taskCard.getByRole('button', { name: '1 File' }).waitFor();
    expect(blobs()).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('shows the server reason when an upload is refused, and the list stays as it was', async () => {
    const { page, task } = await withTask('Too big');
    await addFromCard(page, 'Too big', [
      {
        name: 'huge.bin',
        mimeType: 'application/octet-stream',
        buffer: Buffer.alloc(2 * MAX_UPLOAD_BYTES),
      },
    ]);
    await expectToast(
      page,
      'Upload Error',
      'Failed to upload files',
      '"huge.bin" is larger than the 1.00 MB upload limit.',
    );
    await card(page, 'Too big').getByRole('button', { name: 'No Files' }).waitFor();
    expect(await apiFromPage<TaskFile[]>(page, 'GET', `/api/tasks/${task.id}/files`)).toEqual([]);
  });

  it('tells of a failed download, delete and list', async () => {
    const { page, task } = await withTask('Flaky');
    const taskCard = card(page, 'Flaky');
    await addFromCard(page, 'Flaky', [text('gone.txt', 'x'), text('stale.txt', 'y')]);
    await taskCard.getByRole('button', { name: '2 Files' }).waitFor();
    const files = await apiFromPage<TaskFile[]>(page, 'GET', `/api/tasks/${task.id}/files`);

    // The content vanishes from storage: the download answers 404.
    const gone = files.find((f) => f.originalName === 'gone.txt')!;
    for (const blob of blobs()) fs.rmSync(path.join(server.dataDir, 'files', blob));
    await openFiles(page, 'Flaky', '2 Files');
    await menu(page)
      .getByRole('menuitem', { name: `Download ${gone.originalName}` })
      .click();
    await expectToast(page, 'Download Failed', 'Could not download file. Please try again.');

    // The server fails the delete: its reason is shown under the catalogue's copy.
    const stale = files.find((f) => f.originalName === 'stale.txt')!;
    await page.route(
      (url) => url.pathname === `/api/files/${stale.id}`,
      (route) =>
        route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"Disk on fire"}' }),
    );
    await openFiles(page, 'Flaky', '2 Files');
    await menu(page).getByRole('menuitem', { name: 'Delete stale.txt' }).click();
    await expectToast(page, 'Error', 'Failed to delete file', 'Disk on fire');
    await page.keyboard.press('Escape');

    await page.route(
      (url) => url.pathname === `/api/tasks/${task.id}/files`,
      (route) =>
        route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"Broken"}' }),
    );
    await page.reload();
    // The list is fetched when the menu opens; the badge's count came in one call for every card.
    await openFiles(page, 'Flaky', '2 Files');
    await expectToast(page, 'Error', 'Failed to fetch files');
  });

  it('attaches files in the Add New Task form and uploads them to the new task', async () => {
    const { page, errors } = await withTask('Placeholder');
    await page.getByRole('button', { name: 'Add Task' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add New Task' });
    await dialog.getByLabel('Title').fill('With attachments');
    const picker = dialog.locator('input[type="file"]');
    expect(await picker.getAttribute('accept')).toContain('image/png');

    await picker.setInputFiles([
      { name: 'photo.png', mimeType: 'image/png', buffer: tinyPng() },
      text('readme.txt', 'read me'),
      { name: 'tool.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') },
      { name: 'big.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(10 * 1024 * 1024 + 1) },
      { name: 'report.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4') },
    ]);
    const list = dialog.getByRole('list', { name: 'Attached files' });
    await list.getByText('report.pdf').waitFor();
    // Wrong type and over 10 MB: skipped without a word.
    expect(await list.getByRole('listitem').count()).toBe(3);
    expect(await list.locator('img').count()).toBe(1);

    // Past five, extras are dropped.
    await picker.setInputFiles(['a', 'b', 'c', 'd'].map((n) => text(`${n}.txt`, n)));
    await list.getByText('b.txt').waitFor();
    expect(await list.getByRole('listitem').count()).toBe(5);
    expect(await list.getByText('c.txt').count()).toBe(0);

    await dialog.getByRole('button', { name: 'Remove a.txt' }).click();
    expect(await list.getByRole('listitem').count()).toBe(4);

    // The uploads are held until the progress has been seen and removal seen refused meanwhile.
    let releaseUploads!: () => void;
    const uploadsHeld = new Promise<void>((resolve) => {
      releaseUploads = resolve;
    });
    await page.route('**/api/tasks/*/files', async (route) => {
      if (route.request().method() === 'POST') await uploadsHeld;
      await route.fallback();
    });
    await dialog.getByRole('button', { name: 'Add Task' }).click();
    await list.getByRole('progressbar', { name: 'Upload of photo.png' }).waitFor();
    await expect
      .poll(async () =>
        Number(
          await list.getByRole('progressbar', { name: 'Upload of photo.png' }).getAttribute('aria-valuenow'),
        ),
      )
      .toBeGreaterThan(0);
    expect(await dialog.getByRole('button', { name: 'Remove photo.png' }).isDisabled()).toBe(true);
    await screenshot(page, 'files-attachments-uploading');
    releaseUploads();
    await list.getByText('Uploaded').first().waitFor();
    await screenshot(page, 'files-attachments-celebration');
    await expectToast(page, 'Task Created');
    await dialog.waitFor({ state: 'detached' });

    await card(page, 'With attachments').getByRole('button', { name: '4 Files' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('says so when some attachments fail after the task is created', async () => {
    const { page } = await withTask('Placeholder');
    let posts = 0;
    await page.route('**/api/tasks/*/files', (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      posts += 1;
      return posts === 1
        ? route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"Broken"}' })
        : route.fallback();
    });
    await page.getByRole('button', { name: 'Add Task' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add New Task' });
    await dialog.getByLabel('Title').fill('Half attached');
    await dialog.locator('input[type="file"]').setInputFiles([text('one.txt', '1'), text('two.txt', '2')]);
    await dialog.getByRole('button', { name: 'Add Task' }).click();
    await expectToast(page, 'Error', 'Task created but some files failed to upload');
    await card(page, 'Half attached').getByRole('button', { name: '1 File' }).waitFor();
  });

  it('looks right in light and dark', async () => {
    const { page } = await withTask('Design review');
    await addFromCard(page, 'Design review', [
      text('meeting-notes-with-a-rather-long-name-that-must-be-truncated.txt', 'notes'),
      { name: 'mockup.png', mimeType: 'image/png', buffer: tinyPng() },
    ]);
    for (const theme of ['light', 'dark'] as const) {
      await page.evaluate((t) => localStorage.setItem('theme', t), theme);
      await page.reload();
      await openFiles(page, 'Design review', '2 Files');
      await menu(page).getByText('mockup.png').waitFor();
      await animationsSettled(page);
      await screenshot(page, `files-menu-${theme}`);
      await page.keyboard.press('Escape');

      await page.getByRole('button', { name: 'Add Task' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add New Task' });
      await dialog
        .locator('input[type="file"]')
        .setInputFiles([
          { name: 'photo.png', mimeType: 'image/png', buffer: tinyPng() },
          text('brief.txt', 'x'),
        ]);
      await dialog.getByText('brief.txt').waitFor();
      await animationsSettled(page);
      await screenshot(page, `files-attachments-${theme}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }
  });
});

/** A 16x16 violet PNG, small enough to write inline. */
function tinyPng(): Buffer {
  return Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR4nGPojvlGEmIY1TCqYfhqAAAq1t0QMabSpAAAAABJRU5ErkJggg==',
    'base64',
  );
}
