import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AiRun } from '../../common/ai-runs';
import type { Project } from '../../common/projects';
import type { Task } from '../../common/tasks';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { type FakeProvider, startFakeProvider } from '../testing/fake-provider';
import { makePdf } from '../testing/pdf';
import { allocateBudget, attachmentKind, createAttachmentReader } from './attachments';
import { taskMessage } from './service';

const silent = pino({ level: 'silent' });

describe('the budget', () => {
  it('keeps files that fit whole and cuts the largest first', () => {
    expect(allocateBudget([100, 300, 5000], 1000)).toEqual([100, 300, 600]);
    expect(allocateBudget([5000, 100, 300], 1000)).toEqual([600, 100, 300]);
    expect(allocateBudget([2000, 3000], 1000)).toEqual([500, 500]);
    expect(allocateBudget([200, 2000, 3000], 1000)).toEqual([200, 400, 400]);
    expect(allocateBudget([400, 2000, 3000], 1000)).toEqual([333, 333, 334]);
    expect(allocateBudget([10, 20], 1000)).toEqual([10, 20]);
    expect(allocateBudget([], 1000)).toEqual([]);
  });

  it('never hands out more than the budget', () => {
    for (const lengths of [
      [7, 7, 7],
      [1, 999, 999, 999],
      [0, 50_000],
      [333, 333, 334, 1],
    ]) {
      const shares = allocateBudget(lengths, 1000);
      expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1000);
      for (const [i, share] of shares.entries()) expect(share).toBeLessThanOrEqual(lengths[i]!);
    }
  });
});

describe('which attachments are read', () => {
  it.each([
    ['notes.md', 'application/octet-stream', 'text'],
    ['notes.markdown', 'text/markdown', 'text'],
    ['readme', 'text/plain', 'text'],
    ['log.txt', 'application/octet-stream', 'text'],
    ['table.csv', 'application/vnd.ms-excel', 'text'],
    ['data.json', 'application/json', 'text'],
    ['data', 'application/ld+json', 'text'],
    ['page.txt', 'text/plain; charset=utf-8', 'text'],
    ['report.pdf', 'application/octet-stream', 'pdf'],
    ['report', 'application/pdf', 'pdf'],
    ['photo.jpg', 'image/jpeg', 'other'],
    ['sheet.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'other'],
  ])('%s (%s) is %s', (name, type, kind) => {
    expect(attachmentKind(name, type)).toBe(kind);
  });
});

describe.each(testDialects)('attachments as AI context on %s', (dialect) => {
  let fake: FakeProvider;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    fake = await startFakeProvider();
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    fake.reset();
    for (const app of apps.splice(0)) await app.close();
  });

  async function start(env: Record<string, string> = {}) {
    const t = await createTestApp(dialect, {
      env: { OPENAI_API_KEY: 'server-key', OPENAI_BASE_URL: fake.baseUrl, ...env },
    });
    apps.push(t);
    return t;
  }

  const createTask = async (user: TestUser) => {
    const response = await user.request('POST', '/api/tasks', {
      title: 'Summarise',
      description: 'The files',
    });
    expect(response.statusCode).toBe(201);
    return response.json() as Task;
  };

  const BOUNDARY = '----tasklane-attachments-test';
  async function upload(
    t: TestApp,
    user: TestUser,
    taskId: number,
    files: Array<{ name: string; content: string | Buffer; type?: string }>,
  ) {
    const body = Buffer.concat([
      ...files.flatMap((file) => [
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="${file.name}"\r\n` +
            `Content-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`,
        ),
        Buffer.from(file.content),
        Buffer.from('\r\n'),
      ]),
      Buffer.from(`--${BOUNDARY}--\r\n`),
    ]);
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/tasks/${taskId}/files`,
      headers: { ...user.headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: body,
    });
    expect(response.statusCode).toBe(201);
  }

  /** Runs the task through POST /api/ai/execute and answers the user message the model was sent. */
  async function execute(user: TestUser, task: Task) {
    const response = await user.request('POST', '/api/ai/execute', { taskId: task.id });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ result: 'Here is the draft.' });
    const messages = fake.requests.at(-1)!.body.messages;
    expect(messages[1]!.role).toBe('user');
    return messages[1]!.content;
  }

  const reader = (t: TestApp, budgetChars: number, timeoutMs?: number) =>
    createAttachmentReader({
      db: t.ctx.db.kysely,
      store: t.ctx.fileStore,
      budgetChars,
      timeoutMs,
      logger: silent,
    });

  /** Each attachment's text as the prompt holds it, by name. */
  const sections = (prompt: string) =>
    Object.fromEntries(
      [...prompt.matchAll(/^Attachment: (\S+)[^\n]*\n<<<\n([\s\S]*?)\n>>>$/gm)].map((m) => [m[1]!, m[2]!]),
    );

  it('gives a Markdown and a PDF attachment to the model, after the task', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    const markdown = '# Meeting notes\n\n- ship the **beta** on Friday\n- café budget: 120 €\n';
    await upload(t, alice, task.id, [
      // Browsers send .md as application/octet-stream: the extension decides.
      { name: 'notes.md', content: markdown },
      {
        name: 'report.pdf',
        content: makePdf([['Quarterly report (draft)'], ['Revenue grew 12% on page two']]),
        type: 'application/pdf',
      },
    ]);

    const message = await execute(alice, task);
    expect(message.startsWith(`${taskMessage('Summarise', 'The files')}\n\n`)).toBe(true);
    expect(sections(message)).toEqual({
      'notes.md': markdown,
      'report.pdf': 'Quarterly report (draft)\nRevenue grew 12% on page two',
    });
    expect(message).not.toContain('not read');
    expect(await reader(t, 20_000).read(task.id)).toMatchObject({ notes: [] });
  });

  it('cuts the largest file to keep within AI_CONTEXT_CHARS, keeps smaller ones whole, and notes it', async () => {
    const t = await start({ AI_CONTEXT_CHARS: '1000' });
    const alice = await t.signUp();
    const task = await createTask(alice);
    const small = `${'s'.repeat(99)}\n`;
    const table = `a,b\n${'1,2\n'.repeat(74)}`; // 300 characters
    const big = Array.from({ length: 500 }, (_, i) => `line ${String(i).padStart(3, '0')}`).join('\n');
    await upload(t, alice, task.id, [
      { name: 'big.md', content: big, type: 'text/markdown' },
      { name: 'small.txt', content: small, type: 'text/plain' },
      { name: 'table.csv', content: table, type: 'text/csv' },
    ]);

    const message = await execute(alice, task);
    const texts = sections(message);
    expect(texts['small.txt']).toBe(small);
    expect(texts['table.csv']).toBe(table);
    expect(texts['big.md']).toBe(big.slice(0, 600));
    expect(message).toContain('Attachment: big.md (the first 600 characters)\n');
    const total = Object.values(texts).reduce((sum, text) => sum + text.length, 0);
    expect(total).toBe(1000);

    expect((await reader(t, 1000).read(task.id)).notes).toEqual(['big.md: first 600 characters used']);
  });

  it('reads no more bytes of a text file than the budget can use, without splitting a character', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    // 3 bytes a character: 4 × 50 bytes read cut the 67th character in the middle.
    await upload(t, alice, task.id, [{ name: 'wide.txt', content: '€'.repeat(5000), type: 'text/plain' }]);
    const { prompt, notes } = await reader(t, 50).read(task.id);
    expect(sections(prompt)['wide.txt']).toBe('€'.repeat(50));
    expect(notes).toEqual(['wide.txt: first 50 characters used']);
  });

  it('skips a malformed PDF with a note, and the run still succeeds', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    await upload(t, alice, task.id, [
      { name: 'broken.pdf', content: '%PDF-1.7\n1 0 obj\n<< /Type /Catalog', type: 'application/pdf' },
      { name: 'cut.pdf', content: makePdf([['Half a file']]).subarray(0, 40), type: 'application/pdf' },
      { name: 'ok.md', content: 'Still read.' },
    ]);

    const message = await execute(alice, task);
    expect(sections(message)).toEqual({ 'ok.md': 'Still read.' });
    expect(message).toContain('Other attachments (not read): broken.pdf, cut.pdf');
    expect((await reader(t, 20_000).read(task.id)).notes).toEqual([
      'broken.pdf: skipped, not a readable PDF',
      'cut.pdf: skipped, not a readable PDF',
    ]);
  });

  it('names an image and a spreadsheet but does not read them', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    await upload(t, alice, task.id, [
      { name: 'photo.jpg', content: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), type: 'image/jpeg' },
      { name: 'sheet.xlsx', content: 'PK\u0003\u0004', type: 'application/zip' },
    ]);

    const message = await execute(alice, task);
    expect(message).toBe(
      `${taskMessage('Summarise', 'The files')}\n\nOther attachments (not read): photo.jpg, sheet.xlsx`,
    );
    expect((await reader(t, 20_000).read(task.id)).notes).toEqual([]);
  });

  it('keeps the notes with the run', async () => {
    const t = await start({ AI_CONTEXT_CHARS: '10' });
    const alice = await t.signUp();
    const task = await createTask(alice);
    await upload(t, alice, task.id, [{ name: 'long.txt', content: 'x'.repeat(50), type: 'text/plain' }]);

    expect((await alice.request('POST', '/api/ai/execute', { taskId: task.id })).statusCode).toBe(200);
    const [run] = (await alice.request('GET', `/api/tasks/${task.id}/ai-runs`)).json() as AiRun[];
    expect(run!.notes).toEqual(['long.txt: first 10 characters used']);
  });

  it('reads a shared task’s files, whoever uploaded them, for an editor; a non-member’s run is refused', async () => {
    const t = await start();
    const [alice, bob, carol] = [await t.signUp(), await t.signUp(), await t.signUp()];
    const project = (await alice.request('POST', '/api/projects', { name: 'Shared' })).json() as Project;
    const shared = await alice.request('POST', `/api/projects/${project.id}/members`, {
      user: bob.user.username,
      role: 'editor',
    });
    expect(shared.statusCode).toBe(201);
    const created = await alice.request('POST', '/api/tasks', {
      title: 'Summarise',
      description: 'The files',
      projectId: project.id,
    });
    const task = created.json() as Task;
    await upload(t, alice, task.id, [{ name: 'brief.md', content: 'Alice wrote this.' }]);

    expect(sections(await execute(bob, task))).toEqual({ 'brief.md': 'Alice wrote this.' });
    const refused = await carol.request('POST', '/api/ai/execute', { taskId: task.id });
    expect([refused.statusCode, refused.json()]).toEqual([404, { message: 'Task not found' }]);
    expect(fake.requests).toHaveLength(1);
  });

  it('gives up on a file that takes too long, and stops when the run is cancelled', async () => {
    const t = await start();
    const alice = await t.signUp();
    const task = await createTask(alice);
    await upload(t, alice, task.id, [
      { name: 'slow.pdf', content: makePdf([['Too slow']]), type: 'application/pdf' },
    ]);
    expect(await reader(t, 20_000, 1).read(task.id)).toEqual({
      prompt: 'Other attachments (not read): slow.pdf',
      notes: ['slow.pdf: skipped, took too long to read'],
    });

    const cancel = new AbortController();
    const reading = reader(t, 20_000).read(task.id, cancel.signal);
    cancel.abort(new Error('cancelled'));
    await expect(reading).rejects.toThrow('cancelled');
  });

  it('reads in a worker thread: GET /healthz answers within 2 s while a 600-page PDF is read', async () => {
    // A budget large enough that every page is read.
    const t = await start({ AI_CONTEXT_CHARS: '5000000' });
    const alice = await t.signUp();
    const task = await createTask(alice);
    const line = 'Budget, schedule and risks of the project, discussed at length (see appendix).';
    const pages = Array.from({ length: 600 }, (_, p) => [
      `Page ${p + 1}`,
      // Ten lines a page: the whole book is read well within the reader's 20 s, even on a busy machine.
      ...Array.from({ length: 10 }, () => line),
    ]);
    await upload(t, alice, task.id, [{ name: 'book.pdf', content: makePdf(pages), type: 'application/pdf' }]);

    const started = performance.now();
    let finished = false;
    const running = execute(alice, task).finally(() => {
      finished = true;
    });
    const latencies: number[] = [];
    while (!finished) {
      const before = performance.now();
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      if (!finished) latencies.push(performance.now() - before);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const message = await running;
    const runMs = performance.now() - started;
    expect(message).toContain('Page 1\n');
    expect(message).toContain('Page 600\n');
    // The read overlapped the checks, and none of them waited on it.
    expect(latencies.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...latencies)).toBeLessThan(2000);
    console.info(
      `600-page PDF (${dialect}): run ${Math.round(runMs)} ms; ${latencies.length} /healthz checks during it, ` +
        `slowest ${Math.round(Math.max(...latencies))} ms`,
    );
  }, 60_000);
});
