import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../common/agents';
import type { ChecklistItem } from '../../common/checklist';
import type { ExportDocument, ImportResult } from '../../common/data';
import type { Task } from '../../common/tasks';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';

const BOUNDARY = '----tasklane-import';

/** A multipart body with the file in `file`, as a browser's FormData sends it. */
function multipart(content: string | Buffer, filename = 'tasks.csv') {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), Buffer.from(content), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
}

describe.each(testDialects)('export and import on %s', (dialect) => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    alice = await t.signUp();
    bob = await t.signUp();
  });
  afterEach(async () => {
    await t.close();
  });

  const importFile = (user: TestUser, content: string | Buffer, query = '', filename?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/import${query}`,
      headers: { ...user.headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: multipart(content, filename),
    });
  const imported = async (user: TestUser, content: string | Buffer, query = ''): Promise<ImportResult> => {
    const response = await importFile(user, content, query);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const active = async (user: TestUser) => (await user.request('GET', '/api/tasks')).json() as Task[];
  const archived = async (user: TestUser) =>
    (await user.request('GET', '/api/tasks/archived')).json() as Task[];
  const checklist = async (user: TestUser, taskId: number) =>
    ((await user.request('GET', `/api/tasks/${taskId}/checklist`)).json() as ChecklistItem[]).map((i) => [
      i.title,
      i.done,
    ]);
  const exportJson = async (user: TestUser): Promise<ExportDocument> => {
    const response = await user.request('GET', '/api/export?format=json');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="tasklane-.*\.json"$/);
    return response.json();
  };

  /** What must survive a round trip: everything but ids, positions, update times and the agent's id. */
  const portable = (document: ExportDocument) => {
    const agentTitle = new Map(document.agents.map((agent) => [agent.id, agent.title]));
    return {
      tasks: document.tasks.map(({ id: _id, position: _p, updatedAt: _u, contextId, ...task }) => ({
        ...task,
        agent: contextId === null ? null : agentTitle.get(contextId),
      })),
      agents: document.agents.map(({ title, prompt }) => ({ title, prompt })),
    };
  };

  it('round-trips JSON into another account: tasks, checklist items, agents and their links', async () => {
    const agent = (
      await alice.request('POST', '/api/ai-agents', { title: 'Writer', prompt: 'Write it' })
    ).json() as Agent;
    await alice.request('POST', '/api/ai-agents', { title: 'Unused', prompt: 'Nothing' });
    const first = (
      await alice.request('POST', '/api/tasks', {
        title: 'First',
        dueDate: '2027-02-03',
        contextId: agent.id,
      })
    ).json() as Task;
    await alice.request('PATCH', `/api/tasks/${first.id}`, {
      notes: 'Some notes',
      aiDraft: 'A draft',
      aiAssisted: true,
    });
    await alice.request('POST', `/api/tasks/${first.id}/checklist`, { title: 'Step one' });
    const two = (
      await alice.request('POST', `/api/tasks/${first.id}/checklist`, { title: 'Step two' })
    ).json();
    await alice.request('PATCH', `/api/checklist/${two.id}`, { done: true });
    await alice.request('POST', '/api/tasks', { title: 'Second', description: 'Café' });
    const done = (await alice.request('POST', '/api/tasks', { title: 'Done one' })).json() as Task;
    await alice.request('PATCH', `/api/tasks/${done.id}`, { completed: true, archived: true });
    // Bob's own data never shows in Alice's export.
    await bob.request('POST', '/api/tasks', { title: 'Bob secret task' });
    await bob.request('POST', '/api/ai-agents', { title: 'Bob agent', prompt: 'Bob prompt' });

    const exported = await exportJson(alice);
    expect(exported.tasks.map((task) => task.title)).toEqual(['Second', 'First', 'Done one']);
    expect(JSON.stringify(exported)).not.toMatch(/Bob|password|secret-password|user-session/);
    expect(exported.tasks[1]).toMatchObject({
      notes: 'Some notes',
      aiDraft: 'A draft',
      contextId: agent.id,
      checklistItems: [
        { title: 'Step one', done: false },
        { title: 'Step two', done: true },
      ],
    });

    const carol = await t.signUp();
    await carol.request('POST', '/api/tasks', { title: 'Already there' });
    expect(await imported(carol, JSON.stringify(exported), '')).toEqual({
      imported: 3,
      skipped: 0,
      errors: [],
    });
    const after = await exportJson(carol);
    const mine = { ...after, tasks: after.tasks.filter((task) => task.title !== 'Already there') };
    expect(portable(mine)).toEqual(portable(exported));
    // On top of the list, in the file's order; the checklist counts and search come along.
    expect((await active(carol)).map((task) => [task.title, task.checklist])).toEqual([
      ['Second', { done: 0, total: 0 }],
      ['First', { done: 1, total: 2 }],
      ['Already there', { done: 0, total: 0 }],
    ]);
    const [found] = (await carol.request('GET', '/api/tasks?q=cafe')).json() as Task[];
    expect(found?.title).toBe('Second');
    expect((await carol.request('GET', '/api/tasks?q=two')).json()).toHaveLength(1);
    expect((await archived(carol)).map((task) => task.title)).toEqual(['Done one']);
    // Importing the same agents again reuses them.
    await imported(carol, JSON.stringify(exported));
    expect((await carol.request('GET', '/api/ai-agents')).json()).toHaveLength(2);
  });

  it('exports CSV with quotes, commas and newlines, and reads it back with a byte-order mark', async () => {
    const tricky = {
      title: 'Say "hi", then leave',
      description: 'Line one\nLine two, with comma',
      dueDate: '2027-01-02',
    };
    await alice.request('POST', '/api/tasks', tricky);
    const response = await alice.request('GET', '/api/export?format=csv');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="tasklane-.*\.csv"$/);
    expect(response.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(response.body).toContain('title,description,dueDate,completed,archived,notes,createdAt');
    expect(response.body).toContain(
      '"Say ""hi"", then leave","Line one\nLine two, with comma",2027-01-02,false,false,,',
    );

    expect(await imported(bob, response.rawPayload)).toEqual({ imported: 1, skipped: 0, errors: [] });
    expect((await active(bob))[0]).toMatchObject({ ...tricky, completed: false, archived: false });
  });

  it('skips and lists rows with a bad value, and a dry run writes nothing', async () => {
    const csv = [
      'title,dueDate,completed,archived',
      'Good one,2027-01-01,false,false',
      ',2027-01-01,false,false',
      'Bad date,2027-02-30,false,false',
      '"Multi',
      'line",,maybe,false',
      'Done,,true,true',
    ].join('\r\n');
    const preview = await imported(alice, csv, '?dryRun=true');
    const expected = {
      imported: 2,
      skipped: 3,
      errors: [
        { row: 3, message: 'title is required' },
        { row: 4, message: 'dueDate must be a real date written YYYY-MM-DD' },
        { row: 5, message: 'completed must be true or false' },
      ],
    };
    expect(preview).toEqual(expected);
    expect(await active(alice)).toEqual([]);
    expect(await imported(alice, csv)).toEqual(expected);
    expect((await active(alice)).map((task) => task.title)).toEqual(['Good one']);
    expect((await archived(alice)).map((task) => task.title)).toEqual(['Done']);
  });

  it('refuses a file it cannot parse, with its line, and imports nothing', async () => {
    const unclosed = await importFile(alice, 'title,description\nFine,ok\n"Broken,oops\nmore\n');
    expect(unclosed.statusCode).toBe(400);
    expect(unclosed.json()).toMatchObject({
      imported: 0,
      skipped: 0,
      errors: [{ row: 3, message: expect.any(String) }],
    });
    expect(unclosed.json().message).toMatch(/^Line 3: /);

    const ragged = await importFile(alice, 'title,description\nFine,ok\nOne,two,three\n');
    expect(ragged.statusCode).toBe(400);
    expect(ragged.json().errors).toEqual([{ row: 3, message: expect.stringMatching(/number of values/) }]);

    const json = await importFile(alice, '{"tasks": [', '', 'x.json');
    expect(json.statusCode).toBe(400);
    expect(json.json().errors[0].row).toBe(1);
    expect((await importFile(alice, 'name,age\nx,1\n')).statusCode).toBe(400);
    expect((await importFile(alice, '')).statusCode).toBe(400);
    expect(await active(alice)).toEqual([]);

    expect((await alice.request('POST', '/api/import', { file: 'x' })).statusCode).toBe(415);
    expect((await t.app.inject({ method: 'POST', url: '/api/import' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/export' })).statusCode).toBe(401);
    expect((await alice.request('GET', '/api/export?format=xml')).statusCode).toBe(400);
  });

  it('refuses a file over 10 MB with 413', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 10, 'a');
    const response = await importFile(alice, big);
    expect(response.statusCode).toBe(413);
    expect(response.json().message).toMatch(/10 MB/);
  });

  it("reads Todoist's export: sections and notes skipped, indented tasks as checklist items, dates via chrono", async () => {
    const todoist = [
      'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE',
      'section,Home,,,,,,,,',
      'task,Pay rent,Before noon,4,1,Ana (1),,Mar 1 2027,en,Europe/Lisbon',
      'task,Find the bank details,,1,2,Ana (1),,,en,Europe/Lisbon',
      'task,"Transfer, and confirm",,1,2,Ana (1),,,en,Europe/Lisbon',
      'note,Remember the reference,,,,Ana (1),,,,',
      '',
      'task,Water plants,,1,1,Ana (1),,every day,en,Europe/Lisbon',
      'task,Steuer,,1,1,Ana (1),,1. März 2027,de,Europe/Berlin',
      'task,,,1,1,Ana (1),,,en,Europe/Lisbon',
      'task,Orphan step,,1,2,Ana (1),,,en,Europe/Lisbon',
    ].join('\n');
    const result = await imported(alice, `\uFEFF${todoist}`);
    expect(result).toEqual({
      imported: 3,
      skipped: 4,
      errors: [
        { row: 10, message: 'title is required' },
        { row: 11, message: 'Its task (line 10) was skipped' },
      ],
    });
    const tasks = await active(alice);
    expect(tasks.map((task) => [task.title, task.description, task.dueDate])).toEqual([
      ['Pay rent', 'Before noon', '2027-03-01'],
      ['Water plants', null, null],
      ['Steuer', null, '2027-03-01'],
    ]);
    expect(await checklist(alice, tasks[0]!.id)).toEqual([
      ['Find the bank details', false],
      ['Transfer, and confirm', false],
    ]);
    expect(tasks[0]!.checklist).toEqual({ done: 0, total: 2 });
  });

  it('imports 5,000 rows in well under 10 seconds', async () => {
    const rows = Array.from(
      { length: 5000 },
      (_, i) => `Task ${i},"Description, ${i}",2027-01-${String((i % 28) + 1).padStart(2, '0')},false,false`,
    );
    const csv = ['title,description,dueDate,completed,archived', ...rows].join('\n');
    const started = performance.now();
    expect(await imported(alice, csv)).toEqual({ imported: 5000, skipped: 0, errors: [] });
    const ms = performance.now() - started;
    console.info(`import of 5,000 rows on ${dialect}: ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(10_000);
    const tasks = await active(alice);
    expect(tasks).toHaveLength(5000);
    expect(tasks[0]!.title).toBe('Task 0');
    expect(tasks[4999]!.title).toBe('Task 4999');
  }, 60_000);
});
