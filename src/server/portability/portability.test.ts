import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../common/agents';
import type { ChecklistItem } from '../../common/checklist';
import type { ExportDocument, ImportResult } from '../../common/data';
import { dateInZone } from '../../common/due';
import { PROJECT_MESSAGES } from '../../common/projects';
import type { Section } from '../../common/sections';
import type { Task } from '../../common/tasks';
import { ACCESS_MESSAGES } from '../access';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { CALLERS, expectedAnswers, listenToTeam, shareProject, signUpTeam } from '../testing/team';
import { parseImportFile } from './parse';

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
    const title = new Map(document.tasks.map((task) => [task.id, task.title]));
    return {
      tasks: document.tasks.map(({ id: _id, position: _p, updatedAt: _u, contextId, parentId, ...task }) => ({
        ...task,
        agent: contextId === null ? null : agentTitle.get(contextId),
        parent: parentId === null ? null : title.get(parentId),
      })),
      agents: document.agents.map(({ title, prompt }) => ({ title, prompt })),
      relations: document.relations.map(({ taskId, otherTaskId, kind }) => [
        title.get(taskId),
        kind,
        title.get(otherTaskId),
      ]),
    };
  };
  const create = async (user: TestUser, body: Record<string, unknown>) => {
    const response = await user.request('POST', '/api/tasks', body);
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as Task;
  };
  /** A relation as the relations feature stores it: one record. */
  const relate = (taskId: number, kind: 'blocks' | 'relates_to' | 'duplicate_of', otherTaskId: number) =>
    t.ctx.db.kysely
      .insertInto('task_relations')
      .values({
        task_id: taskId,
        other_task_id: otherTaskId,
        kind,
        created_by: null,
        created_at: new Date().toISOString(),
      })
      .execute();
  /** Alice's nested tasks: a parent with two sub-tasks, one of them with its own, and two relations. */
  const nestedTasks = async (user: TestUser) => {
    const trip = await create(user, { title: 'Plan trip' });
    const flights = await create(user, { title: 'Book flights', parentId: trip.id });
    const seats = await create(user, { title: 'Pick seats', parentId: flights.id });
    const hotel = await create(user, { title: 'Book hotel', parentId: trip.id });
    const visa = await create(user, { title: 'Get a visa' });
    // The sub-task moved under its parent after it: a child older than its parent.
    const older = await create(user, { title: 'Renew passport' });
    const moved = await user.request('PATCH', `/api/tasks/${older.id}`, { parentId: visa.id });
    expect(moved.statusCode, moved.body).toBe(200);
    await relate(visa.id, 'blocks', flights.id);
    await relate(hotel.id, 'relates_to', seats.id);
    return { trip, flights, seats, hotel, visa, older };
  };

  it('leaves the list it changed read and cached: the first GET after an import is the cache’s (issue 28)', async () => {
    const tasks = Array.from({ length: 3000 }, (_, i) => ({ title: `Imported ${i + 1}`, completed: false }));
    const file = JSON.stringify({ format: 'tasklane', version: 1, tasks, agents: [] });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/import',
      headers: {
        ...alice.headers,
        'accept-encoding': 'gzip, deflate, br',
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      },
      payload: multipart(file, 'tasks.json'),
    });
    expect(response.statusCode, response.body).toBe(200);
    const list = () =>
      t.app.inject({
        method: 'GET',
        url: '/api/tasks?view=summary',
        headers: { ...alice.headers, 'accept-encoding': 'gzip, deflate, br' },
      });
    const first = await list();
    expect(first.headers['content-encoding']).toBe('br');
    expect(first.headers['server-timing']).toMatch(/^list;dur=[\d.]+;desc="cached"$/);
    const [top] = (await alice.request('GET', '/api/tasks?view=summary')).json() as Task[];
    await alice.request('PATCH', `/api/tasks/${top!.id}`, { title: 'Renamed' });
    // Any other change leaves the list to its next reader, as before.
    expect((await list()).headers['server-timing']).toMatch(/^list;dur=[\d.]+;desc="read"$/);
  });

  it('round-trips JSON into another account: tasks, checklist items, agents and their links', async () => {
    const agent = (
      await alice.request('POST', '/api/ai-agents', { title: 'Writer', prompt: 'Write it' })
    ).json() as Agent;
    await alice.request('POST', '/api/ai-agents', { title: 'Unused', prompt: 'Nothing' });
    await alice.request('PATCH', '/api/auth/me', { timeZone: 'Europe/Berlin' });
    const first = (
      await alice.request('POST', '/api/tasks', {
        title: 'First',
        dueDate: '2027-02-03',
        contextId: agent.id,
        dueTime: '07:45',
        recurrence: 'FREQ=WEEKLY;BYDAY=WE',
        recurrenceFrom: 'completion',
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
      dueTime: '07:45',
      dueTimeZone: 'Europe/Berlin',
      recurrence: 'FREQ=WEEKLY;BYDAY=WE',
      recurrenceFrom: 'completion',
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
      notices: [],
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

  it('keeps sub-tasks and relations through JSON, with the ids of the account it goes to (issue 29)', async () => {
    const { trip, flights, seats, hotel, visa, older } = await nestedTasks(alice);
    // A completed parent goes to the archive with its subtree: the export lists the archive newest first.
    const done = await alice.request('PATCH', `/api/tasks/${visa.id}`, { completed: true });
    expect(done.statusCode, done.body).toBe(200);
    const exported = await exportJson(alice);
    const byTitle = Object.fromEntries(exported.tasks.map((task) => [task.title, task]));
    expect(byTitle['Book flights']).toMatchObject({ id: flights.id, parentId: trip.id });
    expect(byTitle['Pick seats']).toMatchObject({ parentId: flights.id });
    expect(byTitle['Renew passport']).toMatchObject({ id: older.id, parentId: visa.id });
    expect(byTitle['Plan trip']).not.toHaveProperty('subtasks');
    expect(exported.relations).toEqual([
      { taskId: visa.id, otherTaskId: flights.id, kind: 'blocks' },
      { taskId: hotel.id, otherTaskId: seats.id, kind: 'relates_to' },
    ]);

    const carol = await t.signUp();
    await create(carol, { title: 'Already there' });
    expect(await imported(carol, JSON.stringify(exported))).toEqual({
      imported: 6,
      skipped: 0,
      errors: [],
      notices: [],
    });
    const after = await exportJson(carol);
    const mine = { ...after, tasks: after.tasks.filter((task) => task.title !== 'Already there') };
    expect(portable(mine)).toEqual(portable(exported));
    expect(mine.tasks.every((task) => !exported.tasks.some((old) => old.id === task.id))).toBe(true);
    const list = await active(carol);
    const imported_ = (title: string) => list.find((task) => task.title === title)!;
    const inArchive = await archived(carol);
    const visaThere = inArchive.find((task) => task.title === 'Get a visa')!;
    expect(inArchive.find((task) => task.title === 'Renew passport')).toMatchObject({
      parentId: visaThere.id,
      completed: true,
    });
    expect(imported_('Plan trip').subtasks).toEqual({ done: 0, total: 2 });
    // Its blocker, Get a visa, is done: the relation came along (portable), no open blocker.
    expect(imported_('Book flights').blockedBy).toBe(0);
    // Sub-tasks in their order under their parent.
    const children = (
      await carol.request('GET', `/api/tasks?parentId=${imported_('Plan trip').id}`)
    ).json() as Task[];
    expect(children.map((task) => task.title)).toEqual(['Book flights', 'Book hotel']);
  });

  it("reads a hand-made JSON's nesting and relations: a parent not in the file, a loop, too deep, a blocked loop", async () => {
    const tasks = [
      { id: 1, title: 'One', parentId: null },
      { id: 2, title: 'Two', parentId: 1 },
      { id: 3, title: 'Three', parentId: 2 },
      { id: 4, title: 'Four', parentId: 3 },
      { id: 5, title: 'Five', parentId: 4 },
      { id: 6, title: 'Six', parentId: 5 },
      { id: 7, title: 'Lost', parentId: 99 },
      { id: 8, title: 'Loop A', parentId: 9 },
      { id: 9, title: 'Loop B', parentId: 8 },
    ];
    const relations = [
      { taskId: 1, otherTaskId: 7, kind: 'blocks' },
      { taskId: 1, otherTaskId: 7, kind: 'blocks' },
      { taskId: 1, otherTaskId: 7, kind: 'blocked_by' },
      { taskId: 2, otherTaskId: 42, kind: 'relates_to' },
      { taskId: 8, otherTaskId: 9, kind: 'duplicated_by' },
    ];
    const result = await imported(alice, JSON.stringify({ tasks, relations }));
    expect(result).toEqual({
      imported: 9,
      skipped: 0,
      errors: [],
      notices: [
        { row: 6, message: 'task 6: more than 4 levels of sub-tasks: imported under "Four"' },
        { row: 7, message: 'task 7: parentId names no task of the file: imported as a top-level task' },
        { row: 9, message: 'task 9: parentId would make a loop: imported as a top-level task' },
        { row: 3, message: 'relation 3 not imported: "Lost" would be in a loop of blocked tasks' },
        { row: 4, message: 'relation 4 not imported: its tasks are not both in the file' },
      ],
    });
    const list = await active(alice);
    const parentOf = Object.fromEntries(
      list.map((task) => [task.title, list.find((other) => other.id === task.parentId)?.title ?? null]),
    );
    expect(parentOf).toMatchObject({
      Five: 'Four',
      Six: 'Four',
      Lost: null,
      'Loop A': 'Loop B',
      'Loop B': null,
    });
    const id = (title: string) => list.find((task) => task.title === title)!.id;
    const stored = await t.ctx.db.kysely
      .selectFrom('task_relations')
      .select(['task_id', 'other_task_id', 'kind'])
      .orderBy('id')
      .execute();
    expect(stored).toEqual([
      { task_id: id('One'), other_task_id: id('Lost'), kind: 'blocks' },
      { task_id: id('Loop B'), other_task_id: id('Loop A'), kind: 'duplicate_of' },
    ]);
  });

  it("writes the parent's title path in CSV and reads the nesting back (issue 29)", async () => {
    await nestedTasks(alice);
    const response = await alice.request('GET', '/api/export?format=csv');
    const lines = response.body.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]).toMatch(/,priority,parent$/);
    const parentCell = (title: string) =>
      lines
        .find((line) => line.startsWith(`${title},`))!
        .split(',')
        .at(-1);
    expect(parentCell('Plan trip')).toBe('');
    expect(parentCell('Book flights')).toBe('Plan trip');
    expect(parentCell('Pick seats')).toBe('Plan trip > Book flights');
    expect(parentCell('Renew passport')).toBe('Get a visa');

    const carol = await t.signUp();
    expect(await imported(carol, response.body)).toMatchObject({ imported: 6, skipped: 0, notices: [] });
    const shape = (list: Task[]) =>
      list
        .map((task) => [task.title, list.find((other) => other.id === task.parentId)?.title ?? null])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(shape(await active(carol))).toEqual(shape(await active(alice)));
    // A parent not in the file: top-level, with a notice.
    const orphan = ['title,parent', 'Alone,Nowhere > Else'].join('\n');
    expect(await imported(carol, orphan)).toMatchObject({
      imported: 1,
      notices: [
        { row: 2, message: 'line 2: parent names no task of the file: imported as a top-level task' },
      ],
    });
  });

  it('carries due time, its zone and recurrence through CSV', async () => {
    await alice.request('PATCH', '/api/auth/me', { timeZone: 'America/New_York' });
    await alice.request('POST', '/api/tasks', {
      title: 'Stand-up',
      dueDate: '2027-01-04',
      dueTime: '09:00',
      recurrence: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
    });
    const csv = (await alice.request('GET', '/api/export?format=csv')).body;
    expect(csv).toContain('dueTime,dueTimeZone,recurrence,recurrenceFrom');
    expect(csv).toContain('09:00,America/New_York,"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",due');
    expect(await imported(bob, csv)).toMatchObject({ imported: 1, errors: [] });
    expect((await active(bob))[0]).toMatchObject({
      dueDate: '2027-01-04',
      dueTime: '09:00',
      dueTimeZone: 'America/New_York',
      recurrence: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
      recurrenceFrom: 'due',
    });
    // A bad rule or a time without a date is a row error naming the field.
    const bad = ['title,dueDate,dueTime,recurrence', 'A,,09:00,', 'B,2027-01-01,,FREQ=SOMETIMES'].join('\n');
    expect((await imported(bob, bad)).errors).toEqual([
      { row: 2, message: 'dueTime needs a dueDate' },
      { row: 3, message: 'recurrence must be an RRULE such as FREQ=WEEKLY;BYDAY=MO' },
    ]);
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

    expect(await imported(bob, response.rawPayload)).toEqual({
      imported: 1,
      skipped: 0,
      errors: [],
      notices: [],
    });
    expect((await active(bob))[0]).toMatchObject({ ...tricky, completed: false, archived: false });
  });

  it('escapes cells a spreadsheet would run as formulas, ends lines with CRLF, and reads its own escapes back', async () => {
    const risky = [
      { title: '=HYPERLINK("https://example.com","Click me")', notes: '+SUM(1,2)' },
      { title: '+SUM(1,2)', description: '-2+3' },
      { title: '@errands', notes: '\tindented' },
      { title: "'=already quoted once", description: "'tis the season" },
      { title: 'Plain', description: 'Line one\nLine two' },
    ];
    for (const task of [...risky].reverse()) {
      const { notes, ...fields } = task;
      const created = (await alice.request('POST', '/api/tasks', fields)).json() as Task;
      if (notes) await alice.request('PATCH', `/api/tasks/${created.id}`, { notes });
    }
    const response = await alice.request('GET', '/api/export?format=csv');
    expect(response.statusCode).toBe(200);
    const body = response.body;
    expect(body).toContain(`"'=HYPERLINK(""https://example.com"",""Click me"")",,,false,false,"'+SUM(1,2)",`);
    expect(body).toContain(`"'+SUM(1,2)",'-2+3,,false,false,,`);
    expect(body).toContain(`'@errands,,,false,false,'\tindented,`);
    // A leading quote the user typed is doubled only where it would otherwise be taken for an escape.
    expect(body).toContain(`''=already quoted once,'tis the season,,`);
    // RFC 4180: every record ends with CRLF, the last one too; a line break inside a value is quoted.
    expect(body).toContain('Plain,"Line one\nLine two",');
    expect(body.endsWith('\r\n')).toBe(true);
    const records = body.replace('"Line one\nLine two"', '').split('\r\n');
    expect(records).toHaveLength(risky.length + 2);
    expect(records.join('')).not.toMatch(/[\r\n]/);

    expect(await imported(bob, response.rawPayload)).toEqual({
      imported: 5,
      skipped: 0,
      errors: [],
      notices: [],
    });
    expect(
      (await active(bob)).map(({ title, description, notes }) => ({
        title,
        ...(description === null ? {} : { description }),
        ...(notes === null ? {} : { notes }),
      })),
    ).toEqual(risky);
  });

  it('keeps a leading quote in a hand-written Tasklane CSV unless it escapes a formula character', async () => {
    const csv = ['title,description', "'quoted title,'=1+1", "'@desk,'-"].join('\r\n');
    expect(await imported(alice, csv)).toEqual({ imported: 2, skipped: 0, errors: [], notices: [] });
    expect((await active(alice)).map((task) => [task.title, task.description])).toEqual([
      ["'quoted title", '=1+1'],
      ['@desk', '-'],
    ]);
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
      notices: [],
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

  it("reads Todoist's export: sections as sections, notes kept, indented tasks as sub-tasks, dates via chrono", async () => {
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
      'note,Lost with its task,,,,Ana (1),,,,',
    ].join('\n');
    const expected = {
      imported: 5,
      skipped: 3,
      errors: [
        { row: 10, message: 'title is required' },
        { row: 11, message: 'Its task (line 10) was skipped' },
        // The note's task row is the skipped subtask.
        { row: 12, message: 'Its task (line 11) was skipped' },
      ],
      notices: [],
    };
    expect(await imported(alice, `\uFEFF${todoist}`, '?dryRun=true')).toEqual(expected);
    expect(await imported(alice, `\uFEFF${todoist}`)).toEqual(expected);
    const tasks = await active(alice);
    expect(tasks.map((task) => [task.title, task.description, task.dueDate, task.notes])).toEqual([
      ['Pay rent', 'Before noon', '2027-03-01', null],
      // Issue 29: an indented row is a sub-task of the task above, and a note below it is its own.
      ['Find the bank details', null, null, null],
      ['Transfer, and confirm', null, null, 'Ana: Remember the reference'],
      // A repeating date is a rule, with its next date (today where the task is) as the due date.
      ['Water plants', null, dateInZone(new Date(), 'Europe/Lisbon'), null],
      ['Steuer', null, '2027-03-01', null],
    ]);
    expect(tasks[3]).toMatchObject({ recurrence: 'FREQ=DAILY', recurrenceFrom: 'due', dueTime: null });
    expect(tasks.map((task) => task.parentId)).toEqual([null, tasks[0]!.id, tasks[0]!.id, null, null]);
    expect(await checklist(alice, tasks[0]!.id)).toEqual([]);
    // Issue 23: the section row is a section of the Inbox, with every task below it.
    const inbox = (
      (await alice.request('GET', '/api/projects')).json() as Array<{ id: number; inbox: boolean }>
    ).find((project) => project.inbox)!;
    const sections = (await alice.request('GET', `/api/projects/${inbox.id}/sections`)).json() as Section[];
    expect(sections.map((section) => section.name)).toEqual(['Home']);
    expect(new Set(tasks.map((task) => task.sectionId))).toEqual(new Set([sections[0]!.id]));
  });

  it("nests Todoist's indented rows as sub-tasks 4 levels deep, in the file's order; a deeper row goes under the deepest allowed", async () => {
    const todoist = [
      'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE',
      'task,Plan trip,,1,1,,,,en,',
      'task,Book flights,,1,2,,,,en,',
      'task,Compare fares,,1,3,,,,en,',
      'task,Check the airline,,1,4,,,,en,',
      'task,Read reviews,,1,5,,,,en,',
      'task,Ask a friend,,1,6,,,,en,',
      'task,Pick seats,,1,3,,,,en,',
      'task,Book hotel,,1,2,,,,en,',
      'task,Pack,,1,2,,,,en,',
      'task,Call mum,,1,1,,,,en,',
      'task,Orphan,,1,2,,,,en,',
    ].join('\n');
    const expected = {
      imported: 11,
      skipped: 0,
      errors: [],
      notices: [
        {
          row: 7,
          message: 'INDENT 6 is more than 4 levels of sub-tasks: imported under "Check the airline"',
        },
      ],
    };
    expect(await imported(alice, todoist, '?dryRun=true')).toEqual(expected);
    expect(await active(alice)).toEqual([]);
    expect(await imported(alice, todoist)).toEqual(expected);
    const tasks = await active(alice);
    const id = (title: string) => tasks.find((task) => task.title === title)!.id;
    // Every task in the file's order; a parent before its sub-tasks.
    expect(tasks.map((task) => task.title)).toEqual([
      'Plan trip',
      'Book flights',
      'Compare fares',
      'Check the airline',
      'Read reviews',
      'Ask a friend',
      'Pick seats',
      'Book hotel',
      'Pack',
      'Call mum',
      'Orphan',
    ]);
    const parentOf = Object.fromEntries(
      tasks.map((task) => [task.title, tasks.find((other) => other.id === task.parentId)?.title ?? null]),
    );
    expect(parentOf).toEqual({
      'Plan trip': null,
      'Book flights': 'Plan trip',
      'Compare fares': 'Book flights',
      'Check the airline': 'Compare fares',
      'Read reviews': 'Check the airline',
      // INDENT 6 is 5 levels below Plan trip: one too many, so beside Read reviews.
      'Ask a friend': 'Check the airline',
      'Pick seats': 'Book flights',
      'Book hotel': 'Plan trip',
      Pack: 'Plan trip',
      'Call mum': null,
      // Under the nearest task above with INDENT 1.
      Orphan: 'Call mum',
    });
    // The sub-tasks of a parent, in the file's order.
    const children = async (parent: string) =>
      tasks.filter((task) => task.parentId === id(parent)).map((task) => task.title);
    expect(await children('Plan trip')).toEqual(['Book flights', 'Book hotel', 'Pack']);
    expect(await children('Check the airline')).toEqual(['Read reviews', 'Ask a friend']);
    expect(await children('Book flights')).toEqual(['Compare fares', 'Pick seats']);
  });

  it("keeps Todoist's priorities, the other way round (its 4 is P1), and its @labels as the importer's labels", async () => {
    const existing = await alice.request('POST', '/api/labels', { name: 'Work', color: 'blue' });
    expect(existing.statusCode).toBe(201);
    const todoist = [
      'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE',
      'task,Urgent @work @errands,,4,1,,,,en,',
      'task,High,,3,1,,,,en,',
      'task,Medium @Errands,,2,1,,,,en,',
      'task,None write to ana@example.com,,1,1,,,,en,',
      'task,Odd priority,,9,1,,,,en,',
    ].join('\n');
    expect(await imported(alice, todoist)).toMatchObject({ imported: 5, skipped: 0 });
    const tasks = await active(alice);
    expect(tasks.map((task) => [task.title, task.priority, task.labels.map((label) => label.name)])).toEqual([
      ['Urgent', 1, ['errands', 'Work']],
      ['High', 2, []],
      ['Medium', 3, ['errands']],
      ['None write to ana@example.com', 4, []],
      ['Odd priority', 4, []],
    ]);
    // Her existing label was reused (case aside); the new one is hers, in grey.
    const labels = (await alice.request('GET', '/api/labels')).json() as Array<{
      name: string;
      color: string;
    }>;
    expect(labels.map((label) => [label.name, label.color])).toEqual([
      ['errands', 'grey'],
      ['Work', 'blue'],
    ]);
    expect((await bob.request('GET', '/api/labels')).json()).toEqual([]);
  });

  it("carries priority in Tasklane's own CSV and JSON", async () => {
    await alice.request('POST', '/api/tasks', { title: 'Urgent', priority: 1 });
    await alice.request('POST', '/api/tasks', { title: 'Plain' });
    const csv = await alice.request('GET', '/api/export?format=csv');
    expect(csv.body.split('\r\n')[0]).toMatch(/,priority,parent$/);
    const json = await exportJson(alice);
    expect(json.tasks.map((task) => [task.title, task.priority])).toEqual([
      ['Plain', 4],
      ['Urgent', 1],
    ]);
    await imported(bob, csv.body);
    await imported(bob, JSON.stringify(json));
    expect((await active(bob)).map((task) => [task.title, task.priority])).toEqual([
      ['Plain', 4],
      ['Urgent', 1],
      ['Plain', 4],
      ['Urgent', 1],
    ]);
    expect(await imported(bob, 'title,priority\nBad,7\n')).toMatchObject({
      imported: 0,
      errors: [{ row: 2, message: 'priority must be 1 (urgent), 2, 3 or 4 (none)' }],
    });
  });

  it("imports a current Todoist export: no error for its meta row, notes in the task's notes", async () => {
    const result = await imported(alice, TODOIST_EXPORT);
    expect(result).toMatchObject({ imported: 6, skipped: 1, errors: [] });
    // A sub-task's repeating date is a rule of its own now (issue 29): nothing left out.
    expect(result.notices).toEqual([{ row: 3, message: 'note not imported: no task above it' }]);
    const [rent, bank, transfer, bins, plants, soil] = await active(alice);
    // Above the section row: no section; below it, 'Weekly' (a second import reuses it).
    expect(rent!.sectionId).toBeNull();
    expect(bins!.sectionId).not.toBeNull();
    expect(plants!.sectionId).toBe(bins!.sectionId);
    expect(soil).toMatchObject({
      parentId: plants!.id,
      sectionId: bins!.sectionId,
      recurrenceFrom: 'completion',
    });
    expect(bins).toMatchObject({ recurrence: 'FREQ=WEEKLY;BYDAY=MO', recurrenceFrom: 'due' });
    expect(new Date(`${bins!.dueDate}T12:00:00Z`).getUTCDay()).toBe(1);
    expect(plants).toMatchObject({ recurrence: 'FREQ=MONTHLY;BYMONTHDAY=1' });
    expect(plants!.dueDate).toMatch(/-01$/);
    expect(rent!.notes).toMatch(/^Rui, \d{1,2} \w{3} \d{4}: Ask for a receipt$/);
    expect(transfer!.notes).toMatch(/^Ana, \d{1,2} \w{3} \d{4}: Reference: "FLAT 2B"$/);
    expect(bins!.notes).toBe('Ana, 2 Nov 2026: Recycling goes out on Thursdays,\nglass on Fridays');
    expect([bank, transfer].map((task) => [task!.title, task!.parentId, task!.dueDate?.slice(5)])).toEqual([
      ['Find the bank details', rent!.id, '01-04'],
      ['Transfer and confirm', rent!.id, '02-02'],
    ]);
    expect(await checklist(alice, rent!.id)).toEqual([]);
  });

  it('imports 5,000 rows in well under 10 seconds', async () => {
    const rows = Array.from(
      { length: 5000 },
      (_, i) => `Task ${i},"Description, ${i}",2027-01-${String((i % 28) + 1).padStart(2, '0')},false,false`,
    );
    const csv = ['title,description,dueDate,completed,archived', ...rows].join('\n');
    const started = performance.now();
    expect(await imported(alice, csv)).toEqual({ imported: 5000, skipped: 0, errors: [], notices: [] });
    const ms = performance.now() - started;
    console.info(`import of 5,000 rows on ${dialect}: ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(10_000);
    const tasks = await active(alice);
    expect(tasks).toHaveLength(5000);
    expect(tasks[0]!.title).toBe('Task 0');
    expect(tasks[4999]!.title).toBe('Task 4999');
  }, 60_000);

  describe('with projects', () => {
    const createProject = async (user: TestUser, name: string): Promise<number> => {
      const response = await user.request('POST', '/api/projects', { name });
      expect(response.statusCode, response.body).toBe(201);
      return response.json().id;
    };
    const addTask = async (user: TestUser, body: Record<string, unknown>): Promise<Task> => {
      const response = await user.request('POST', '/api/tasks', body);
      expect(response.statusCode, response.body).toBe(201);
      return response.json();
    };

    it('exports the Inbox and the projects the caller owns, not a project they are only a member of', async () => {
      const mine = await createProject(alice, 'Mine');
      const owned = await addTask(alice, { title: 'In my project', projectId: mine });
      await alice.request('POST', `/api/tasks/${owned.id}/checklist`, { title: 'Step in my project' });
      await addTask(alice, { title: 'In my Inbox' });
      const bobs = await createProject(bob, 'Bob’s');
      await bob.request('POST', `/api/projects/${bobs}/members`, {
        user: alice.user.username,
        role: 'editor',
      });
      const shared = await addTask(alice, { title: 'In Bob’s project', projectId: bobs });
      await alice.request('POST', `/api/tasks/${shared.id}/checklist`, { title: 'Step in Bob’s' });

      const document = await exportJson(alice);
      expect(
        document.tasks.map((task) => [task.title, task.checklistItems.map((item) => item.title)]),
      ).toEqual([
        ['In my Inbox', []],
        ['In my project', ['Step in my project']],
      ]);
      const csv = (await alice.request('GET', '/api/export?format=csv')).body;
      expect(csv).toContain('In my project');
      expect(csv).not.toContain('Bob’s');
      // Bob, the owner, exports it; alice's task in it goes with his project.
      expect((await exportJson(bob)).tasks.map((task) => task.title)).toEqual(['In Bob’s project']);
    });

    it('imports into a project where the caller is editor or more: 404 for a non-member, 403 below editor, 409 archived', async () => {
      const team = await signUpTeam(t);
      const projectId = await shareProject(team);
      const csv = 'title\nImported';
      const got: Record<string, number> = {};
      for (const caller of CALLERS) {
        const response = await importFile(team[caller], csv, `?projectId=${projectId}`);
        got[caller] = response.statusCode;
        if (response.statusCode === 404) expect(response.json()).toEqual({ message: 'Project not found' });
        if (response.statusCode === 403) expect(response.json()).toEqual({ message: ACCESS_MESSAGES.editor });
      }
      expect(got).toEqual(expectedAnswers('editor', 200));
      // A dry run is refused alike, and nothing reached anyone's Inbox.
      expect((await importFile(team.viewer, csv, `?projectId=${projectId}&dryRun=true`)).statusCode).toBe(
        403,
      );
      const tasks = (await team.viewer.request('GET', `/api/tasks?projectId=${projectId}`)).json() as Task[];
      expect(tasks.map((task) => [task.title, task.projectId])).toEqual(
        ['owner', 'admin', 'editor'].map(() => ['Imported', projectId]),
      );
      for (const caller of CALLERS) expect(await active(team[caller])).toEqual([]);
      const activity = (await team.viewer.request('GET', `/api/tasks/${tasks[0]!.id}/activity`)).json();
      expect(activity).toEqual([expect.objectContaining({ kind: 'created', actorId: expect.any(Number) })]);

      expect(
        (await team.owner.request('PATCH', `/api/projects/${projectId}`, { archived: true })).statusCode,
      ).toBe(200);
      const archivedImport = await importFile(team.editor, csv, `?projectId=${projectId}`);
      expect([archivedImport.statusCode, archivedImport.json()]).toEqual([
        409,
        { message: PROJECT_MESSAGES.archived },
      ]);

      const bad = await importFile(team.editor, csv, '?projectId=abc');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toContain('projectId');
    });

    it("tells the project's members, not others, and defaults to the Inbox", async () => {
      const team = await signUpTeam(t);
      const projectId = await shareProject(team);
      const { heard, stop } = await listenToTeam(t, team);
      try {
        expect((await importFile(team.editor, 'title\nShared', `?projectId=${projectId}`)).statusCode).toBe(
          200,
        );
        await expect
          .poll(() => CALLERS.filter((caller) => heard[caller].includes('/api/tasks')))
          .toEqual(CALLERS.filter((caller) => caller !== 'non-member'));
      } finally {
        stop();
      }
      await imported(team.viewer, 'title\nMine');
      expect((await active(team.viewer)).map((task) => [task.title, task.projectId])).toEqual([
        ['Mine', team.viewer.inboxId],
      ]);
    });
  });
});

/** A Todoist project exported today (TYPE … DURATION_UNIT), as Todoist writes it: meta row, blank rows, sections, notes. */
const TODOIST_EXPORT = [
  'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,DURATION,DURATION_UNIT',
  'meta,view_style=list,,,,,,,,,,',
  'note,Project kick-off notes,,,,Ana (12345678),,2026-12-01T10:00:00.000000Z,,,,',
  ',,,,,,,,,,,',
  'task,Pay rent,Before noon,4,1,Ana (12345678),,Jan 5 2027,en,Europe/Berlin,,',
  'note,Ask for a receipt,,,,Rui (87654321),,2026-12-31T23:30:00.000000Z,,,,',
  'task,Find the bank details,,1,2,Ana (12345678),,Jan 4,en,Europe/Berlin,,',
  'task,Transfer and confirm,,1,2,Ana (12345678),,Feb 2 2028,en,Europe/Berlin,,',
  'note,"Reference: ""FLAT 2B""",,,,Ana (12345678),,2027-01-03T09:15:00.000000Z,,,,',
  ',,,,,,,,,,,',
  'section,Weekly,,,,,,,,,,',
  'task,Take the bins out,,2,1,Ana (12345678),,every monday,en,Europe/Lisbon,15,minute',
  'note,"Recycling goes out on Thursdays,\nglass on Fridays",,,,Ana (12345678),,2026-11-02T18:00:00.000000Z,,,,',
  'task,Water plants,,1,1,Ana (12345678),,every 1st,en,Europe/Lisbon,,',
  'task,Check the soil,,1,2,,,every! 3 days,en,,,',
].join('\r\n');

describe("Todoist's export read as Todoist writes it", () => {
  const today = new Date(2027, 0, 1, 12);

  it('keeps notes with author and date, sub-tasks with their own dates, notes and recurrences', async () => {
    const parsed = await parseImportFile(Buffer.from(`\uFEFF${TODOIST_EXPORT}`), today);
    expect(parsed.format).toBe('todoist-csv');
    // The meta row is no error; the note above every task is the row left out.
    expect(parsed.errors).toEqual([]);
    expect(parsed.skipped).toBe(1);
    // A sub-task lives in its parent's section.
    expect(parsed.tasks.map((task) => task.section)).toEqual([
      undefined,
      undefined,
      undefined,
      'Weekly',
      'Weekly',
      'Weekly',
    ]);
    expect(parsed.notices).toEqual([{ row: 3, message: 'note not imported: no task above it' }]);
    expect(
      parsed.tasks.map(({ title, dueDate, notes, checklistItems, parentIndex }) => ({
        title,
        dueDate,
        notes,
        checklist: checklistItems.map((item) => item.title),
        parentIndex: parentIndex ?? null,
      })),
    ).toEqual([
      {
        title: 'Pay rent',
        dueDate: '2027-01-05',
        // The note's day where the task's time zone is: 23:30 UTC is already 1 January in Berlin.
        notes: 'Rui, 1 Jan 2027: Ask for a receipt',
        checklist: [],
        parentIndex: null,
      },
      // Issue 29: indented rows are sub-tasks, with their own dates and notes.
      { title: 'Find the bank details', dueDate: '2027-01-04', notes: null, checklist: [], parentIndex: 0 },
      {
        title: 'Transfer and confirm',
        dueDate: '2028-02-02',
        notes: 'Ana, 3 Jan 2027: Reference: "FLAT 2B"',
        checklist: [],
        parentIndex: 0,
      },
      {
        title: 'Take the bins out',
        dueDate: '2027-01-04',
        notes: 'Ana, 2 Nov 2026: Recycling goes out on Thursdays,\nglass on Fridays',
        checklist: [],
        parentIndex: null,
      },
      // Line 15 (the note above spans two lines): 'every 1st' is the 1st of each month.
      { title: 'Water plants', dueDate: '2027-01-01', notes: null, checklist: [], parentIndex: null },
      // A sub-task repeats on its own: 'every!' counts from completion.
      { title: 'Check the soil', dueDate: '2027-01-01', notes: null, checklist: [], parentIndex: 4 },
    ]);
    expect(parsed.tasks[3]).toMatchObject({
      recurrence: 'FREQ=WEEKLY;BYDAY=MO',
      recurrenceFrom: 'due',
      dueTime: null,
    });
    expect(parsed.tasks[4]).toMatchObject({ recurrence: 'FREQ=MONTHLY;BYMONTHDAY=1' });
    expect(parsed.tasks[5]).toMatchObject({ recurrence: 'FREQ=DAILY;INTERVAL=3' });
  });

  it("starts a repeating date with a time at its next occurrence still to come in the row's zone", async () => {
    const csv = [
      'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE',
      'task,Stand-up,,1,1,,,every weekday at 9am,en,America/New_York',
      'task,Evening walk,,1,1,,,every day at 9pm,en,America/New_York',
      'task,Water plants,,1,1,,,every day,en,America/New_York',
    ].join('\n');
    // Thursday 26 November 2026, 20:25 in New York (already Friday in UTC).
    const evening = new Date('2026-11-27T01:25:00Z');
    const parsed = await parseImportFile(Buffer.from(csv), evening, 'Asia/Tokyo');
    expect(parsed.tasks.map(({ title, dueDate, dueTime }) => ({ title, dueDate, dueTime }))).toEqual([
      // Today's 09:00 has passed: Friday's, not an overdue task on arrival.
      { title: 'Stand-up', dueDate: '2026-11-27', dueTime: '09:00' },
      { title: 'Evening walk', dueDate: '2026-11-26', dueTime: '21:00' },
      // No time: due all of today.
      { title: 'Water plants', dueDate: '2026-11-26', dueTime: null },
    ]);
  });

  it('reads repeating dates as rules with their next date and time, and names one it cannot read', async () => {
    const csv = [
      'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE',
      'task,Stand-up,,1,1,,,every weekday at 9am,en,America/New_York',
      'task,Stretch,,1,1,,,every! 3 days,en,',
      'task,Book club,,1,1,,,every 3rd tuesday of the month,en,Europe/Berlin',
      'task,Birthday,,1,1,,,every year on 3 March,en,Europe/Berlin',
    ].join('\n');
    const parsed = await parseImportFile(Buffer.from(csv), today, 'Asia/Tokyo');
    expect(
      parsed.tasks.map(({ title, dueDate, dueTime, dueTimeZone, recurrence, recurrenceFrom }) => ({
        title,
        dueDate,
        dueTime,
        dueTimeZone,
        recurrence,
        recurrenceFrom,
      })),
    ).toEqual([
      {
        title: 'Stand-up',
        dueDate: '2027-01-01',
        dueTime: '09:00',
        dueTimeZone: 'America/New_York',
        recurrence: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
        recurrenceFrom: 'due',
      },
      // No TIMEZONE on the row: today is read in the importer's zone.
      {
        title: 'Stretch',
        dueDate: '2027-01-01',
        dueTime: null,
        dueTimeZone: null,
        recurrence: 'FREQ=DAILY;INTERVAL=3',
        recurrenceFrom: 'completion',
      },
      {
        title: 'Book club',
        // Not read as a rule: chrono's one date, and a notice.
        dueDate: '2027-01-05',
        dueTime: undefined,
        dueTimeZone: undefined,
        recurrence: undefined,
        recurrenceFrom: undefined,
      },
      {
        title: 'Birthday',
        dueDate: '2027-03-03',
        dueTime: null,
        dueTimeZone: null,
        recurrence: 'FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3',
        recurrenceFrom: 'due',
      },
    ]);
    expect(parsed.notices).toEqual([
      { row: 4, message: 'recurrence not imported: every 3rd tuesday of the month (due once, on 5 Jan)' },
    ]);
  });
});
