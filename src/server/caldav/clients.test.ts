import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../common/activity';
import { CALDAV_COLORS, CALDAV_INBOX_NAME, CALDAV_REALM } from '../../common/caldav';
import type { Reminder } from '../../common/notifications';
import type { Task } from '../../common/tasks';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { createTestDatabase, reopenTestDatabase, type TestDatabase, testDialects } from '../testing/database';
import {
  BERLIN_VTIMEZONE,
  components,
  type DavAccount,
  davRequest,
  parseMultistatus,
  removeClientDirs,
  runCaldavPython,
  Todoman,
  todoProp,
  todoText,
  Vdirsyncer,
  vcalendar,
} from './testing/clients';

/**
 * Issue 30's 'Done when': real clients from Debian (vdirsyncer, todoman, python3-caldav) against
 * the running app on a real port, both ways, on both databases. One app per dialect; each test
 * works in a project (or for a person) of its own, so they do not see each other's tasks.
 */
const CLIENT_MS = 90_000;

describe.each(testDialects)('real CalDAV clients on %s', (dialect) => {
  let t: TestApp;
  let origin: string;
  let alice: TestUser;
  let aliceAccount: DavAccount;
  /** Kept for a second instance on the same database (PostgreSQL). */
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    t = await createTestApp(dialect, { database });
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    alice = await t.signUp();
    // Times the app sets are read in Alice's zone; clients see them with its TZID.
    await call(alice, 'PATCH', '/api/auth/me', { timeZone: 'Europe/Berlin' });
    aliceAccount = await account(alice);
  });
  afterAll(async () => {
    await t.close();
    await removeClientDirs();
  });

  async function call<T = unknown>(
    user: TestUser,
    method: string,
    url: string,
    body?: unknown,
    status?: number,
  ) {
    const response = await user.request(method, url, body);
    const expected = status ?? (method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200);
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(expected);
    return (response.body ? response.json() : undefined) as T;
  }
  /** A personal API token of the user's, as an app password: the account a client signs in with. */
  async function account(
    user: TestUser,
    limits: { scopes?: string[]; projectIds?: number[] } = {},
  ): Promise<DavAccount> {
    const { token } = await call<{ token: string }>(user, 'POST', '/api/tokens', {
      name: 'CalDAV app',
      scopes: ['read', 'write'],
      ...limits,
    });
    return { origin, username: user.user.username, token };
  }
  const project = async (user: TestUser, name: string, color?: string) =>
    (await call<{ id: number }>(user, 'POST', '/api/projects', { name, ...(color ? { color } : {}) })).id;
  const createTask = (user: TestUser, body: Record<string, unknown>) =>
    call<Task>(user, 'POST', '/api/tasks', body);
  /** Every task of the project, active and archived (a completed task is archived). */
  const tasksIn = async (user: TestUser, projectId: number): Promise<Task[]> => [
    ...(await call<Task[]>(user, 'GET', `/api/tasks?projectId=${projectId}`)),
    ...(await call<Task[]>(user, 'GET', `/api/tasks/archived?projectId=${projectId}`)),
  ];
  const taskTitled = async (user: TestUser, projectId: number, title: string): Promise<Task> => {
    const tasks = await tasksIn(user, projectId);
    const task = tasks.find((candidate) => candidate.title === title);
    if (!task)
      throw new Error(`no task "${title}" in project ${projectId}: ${tasks.map((x) => x.title).join(', ')}`);
    return task;
  };
  const labelNames = (task: Task) => task.labels.map((label) => label.name).sort();
  const collectionPath = (user: TestUser, projectId: number) =>
    `/dav/calendars/${encodeURIComponent(user.user.username)}/${projectId}/`;
  /** RFC 6578 sync-collection: what changed since `token` ('' for everything). */
  const syncReport = (who: DavAccount, collection: string, token: string) =>
    davRequest(who, 'REPORT', collection, {
      headers: { depth: '1' },
      body: `<?xml version="1.0" encoding="utf-8"?><d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`,
    });

  describe('vdirsyncer', () => {
    it(
      'finds every project from the origin alone (/.well-known/caldav), the Inbox first as Your Tasks, with names and colours',
      async () => {
        const bob = await t.signUp();
        const groceries = await project(bob, 'Groceries', 'green');
        await createTask(bob, { title: 'In the Inbox' });
        await createTask(bob, { title: 'Oat milk', projectId: groceries });
        // No item_types: vdirsyncer lists the items with PROPFIND Depth 1 (getcontenttype must say text/calendar).
        const sync = await Vdirsyncer.create(await account(bob), {
          collections: 'from a',
          url: origin,
          listBy: 'propfind',
        });
        await sync.discover();
        await sync.sync();
        await sync.metasync();

        const folders = [String(bob.inboxId), String(groceries)];
        for (const folder of folders) {
          expect((await sync.files(folder)).size).toBe(1);
        }
        const read = (folder: string, name: string) =>
          fs.readFile(path.join(sync.folder(folder), name), 'utf8');
        expect((await read(String(bob.inboxId), 'displayname')).trim()).toBe(CALDAV_INBOX_NAME);
        expect((await read(String(groceries), 'displayname')).trim()).toBe('Groceries');
        expect((await read(String(groceries), 'color')).trim().toUpperCase()).toBe(CALDAV_COLORS.green);
        const { ics } = await sync.fileWithSummary(groceries, 'Oat milk');
        expect(todoProp(ics, 'STATUS')?.value).toBe('NEEDS-ACTION');
      },
      CLIENT_MS,
    );

    it(
      'brings the tasks made in the app to the folder with their fields',
      async () => {
        const projectId = await project(alice, 'From the app');
        const errands = await call<{ id: number }>(alice, 'POST', '/api/labels', {
          name: 'errands',
          color: 'teal',
        });
        const plain = await createTask(alice, {
          title: 'Water the plants',
          description: 'Twice a week, and the balcony',
          projectId,
        });
        const rent = await createTask(alice, {
          title: 'Pay rent',
          dueDate: '2026-12-01',
          priority: 1,
          labelIds: [errands.id],
          projectId,
        });
        const dentist = await createTask(alice, {
          title: 'Dentist',
          dueDate: '2026-12-03',
          dueTime: '09:30',
          priority: 2,
          projectId,
        });
        await call(alice, 'POST', `/api/tasks/${dentist.id}/reminders`, { relativeMinutes: 30 });
        const standUp = await createTask(alice, {
          title: 'Stand-up',
          dueDate: '2026-12-07',
          recurrence: 'FREQ=WEEKLY;BYDAY=MO',
          priority: 3,
          projectId,
        });
        const pots = await createTask(alice, { title: 'Buy pots', parentId: plain.id, projectId });
        const longTitle = `Übergabe der Schlüssel 🔑 an Zoë, Ørjan und 李小龙 — ${'éèà'.repeat(12)} 🎉`;
        const unicode = await createTask(alice, {
          title: longTitle,
          description: 'Zeile eins\nZeile zwei; mit Komma, und 😀',
          projectId,
        });
        const chore = await createTask(alice, { title: 'Old chore', projectId });
        await call(alice, 'PATCH', `/api/tasks/${chore.id}`, { completed: true });

        const sync = await Vdirsyncer.create(aliceAccount, { collections: [String(projectId)] });
        await sync.discover();
        await sync.sync();
        const files = await sync.files(projectId);
        const file = (task: Task) => {
          const ics = files.get(`tasklane-${task.id}.ics`);
          if (!ics) throw new Error(`tasklane-${task.id}.ics is missing: ${[...files.keys()].join(', ')}`);
          return ics;
        };
        expect(files.size).toBe(7);
        // Folded at 75 octets without cutting a character in two, and read back whole.
        const unicodeIcs = file(unicode);
        // (vdirsyncer's files end their lines with LF alone.)
        for (const line of unicodeIcs.split(/\r?\n/))
          expect(Buffer.byteLength(line), line).toBeLessThanOrEqual(75);
        expect(unicodeIcs).not.toContain('\uFFFD');
        expect(todoText(unicodeIcs, 'SUMMARY')).toBe(longTitle);
        expect(todoText(unicodeIcs, 'DESCRIPTION')).toBe('Zeile eins\nZeile zwei; mit Komma, und 😀');

        const plainIcs = file(plain);
        expect(todoProp(plainIcs, 'UID')?.value).toBe(`tasklane-${plain.id}`);
        expect(todoProp(plainIcs, 'SUMMARY')?.value).toBe('Water the plants');
        expect(todoProp(plainIcs, 'DESCRIPTION')?.value).toBe('Twice a week\\, and the balcony');
        expect(todoProp(plainIcs, 'STATUS')?.value).toBe('NEEDS-ACTION');
        expect(todoProp(plainIcs, 'DUE')).toBeUndefined();
        expect(['0', undefined]).toContain(todoProp(plainIcs, 'PRIORITY')?.value);

        const rentIcs = file(rent);
        expect(todoProp(rentIcs, 'DUE')).toMatchObject({ value: '20261201', params: { VALUE: 'DATE' } });
        expect(todoProp(rentIcs, 'PRIORITY')?.value).toBe('1');
        expect(todoProp(rentIcs, 'CATEGORIES')?.value).toBe('errands');

        const dentistIcs = file(dentist);
        expect(todoProp(dentistIcs, 'DUE')).toMatchObject({
          value: '20261203T093000',
          params: { TZID: 'Europe/Berlin' },
        });
        expect(components(dentistIcs, 'VTIMEZONE').join('\n')).toContain('TZID:Europe/Berlin');
        expect(todoProp(dentistIcs, 'PRIORITY')?.value).toBe('5');
        expect(components(dentistIcs, 'VALARM').join('\n')).toMatch(/TRIGGER;RELATED=END:-PT30M/);

        const standUpIcs = file(standUp);
        expect(todoProp(standUpIcs, 'RRULE')?.value).toBe('FREQ=WEEKLY;BYDAY=MO');
        expect(todoProp(standUpIcs, 'PRIORITY')?.value).toBe('9');

        const potsIcs = file(pots);
        expect(todoProp(potsIcs, 'RELATED-TO')?.value).toBe(`tasklane-${plain.id}`);
        expect(['PARENT', undefined]).toContain(todoProp(potsIcs, 'RELATED-TO')?.params.RELTYPE);

        // Completed (and so archived) a moment ago: still a resource, so the client sees it done.
        const choreIcs = file(chore);
        expect(todoProp(choreIcs, 'STATUS')?.value).toBe('COMPLETED');
        expect(todoProp(choreIcs, 'COMPLETED')?.value).toMatch(/^\d{8}T\d{6}Z$/);

        // A change in the app reaches the folder on the next sync, and so does a deletion.
        await call(alice, 'PATCH', `/api/tasks/${rent.id}`, { title: 'Pay the rent', dueDate: '2026-12-02' });
        await call(alice, 'DELETE', `/api/tasks/${standUp.id}`);
        await sync.sync();
        const after = await sync.files(projectId);
        const renamed = after.get(`tasklane-${rent.id}.ics`) ?? '';
        expect(todoProp(renamed, 'SUMMARY')?.value).toBe('Pay the rent');
        expect(todoProp(renamed, 'DUE')?.value).toBe('20261202');
        expect(after.has(`tasklane-${standUp.id}.ics`)).toBe(false);
        expect(after.size).toBe(6);
      },
      CLIENT_MS,
    );

    it(
      "takes the folder's new, edited and deleted items to the app",
      async () => {
        const projectId = await project(alice, 'From the folder');
        const existing = await createTask(alice, { title: 'Existing', projectId });
        const doomed = await createTask(alice, { title: 'Delete me', projectId });
        await createTask(alice, { title: 'Keep me', projectId });
        const sync = await Vdirsyncer.create(aliceAccount, { collections: [String(projectId)] });
        await sync.discover();
        await sync.sync();

        await sync.write(
          projectId,
          'call-the-bank.ics',
          vcalendar(
            [
              'UID:client-bank-1',
              'SUMMARY:Call the bank',
              'DUE;TZID=Europe/Berlin:20261210T143000',
              'PRIORITY:2',
              'CATEGORIES:finance,Paperwork',
              'BEGIN:VALARM',
              'ACTION:DISPLAY',
              'DESCRIPTION:Call the bank',
              'TRIGGER;RELATED=END:-PT30M',
              'END:VALARM',
              'BEGIN:VALARM',
              'ACTION:DISPLAY',
              'DESCRIPTION:Call the bank',
              'TRIGGER;VALUE=DATE-TIME:20261209T170000Z',
              'END:VALARM',
            ],
            BERLIN_VTIMEZONE,
          ),
        );
        await sync.write(
          projectId,
          'passport.ics',
          vcalendar([
            'UID:client-passport-1',
            'SUMMARY:Renew passport',
            'DESCRIPTION:Photos first',
            'DUE;VALUE=DATE:20261220',
            'PRIORITY:7',
          ]),
        );
        await sync.write(
          projectId,
          'form.ics',
          vcalendar([
            'UID:client-form-1',
            'SUMMARY:Find the form',
            'RELATED-TO;RELTYPE=PARENT:client-passport-1',
          ]),
        );
        await sync.write(
          projectId,
          'done.ics',
          vcalendar([
            'UID:client-done-1',
            'SUMMARY:Already done',
            'STATUS:COMPLETED',
            'COMPLETED:20261101T100000Z',
          ]),
        );
        const local = await sync.fileWithSummary(projectId, 'Existing');
        const edited = local.ics
          .replace(/\r?\nPRIORITY:[^\r\n]*/g, '')
          .replace('SUMMARY:Existing', 'SUMMARY:Existing\\, renamed')
          .replace('END:VTODO', 'PRIORITY:5\r\nEND:VTODO');
        await sync.write(projectId, local.name, edited);
        await sync.remove(projectId, (await sync.fileWithSummary(projectId, 'Delete me')).name);
        await sync.sync();

        const bank = await taskTitled(alice, projectId, 'Call the bank');
        expect(bank).toMatchObject({
          dueDate: '2026-12-10',
          dueTime: '14:30',
          dueTimeZone: 'Europe/Berlin',
          priority: 1,
          completed: false,
        });
        expect(labelNames(bank)).toEqual(['finance', 'Paperwork'].sort());
        const reminders = await call<Reminder[]>(alice, 'GET', `/api/tasks/${bank.id}/reminders`);
        expect(reminders.map((r) => r.relativeMinutes ?? r.at).sort()).toEqual(
          [30, '2026-12-09T17:00:00.000Z'].sort(),
        );

        const passport = await taskTitled(alice, projectId, 'Renew passport');
        expect(passport).toMatchObject({
          dueDate: '2026-12-20',
          dueTime: null,
          priority: 3,
          description: 'Photos first',
        });
        expect((await taskTitled(alice, projectId, 'Find the form')).parentId).toBe(passport.id);
        expect((await taskTitled(alice, projectId, 'Already done')).completed).toBe(true);

        const renamed = await call<Task>(alice, 'GET', `/api/tasks/${existing.id}`);
        expect(renamed).toMatchObject({ title: 'Existing, renamed', priority: 2 });
        const activity = await call<ActivityEntry[]>(alice, 'GET', `/api/tasks/${existing.id}/activity`);
        expect(activity.find((entry) => entry.kind === 'renamed')?.data).toMatchObject({ via: 'caldav' });
        await call(alice, 'GET', `/api/tasks/${doomed.id}`, undefined, 404);
        expect((await tasksIn(alice, projectId)).map((task) => task.title).sort()).toEqual(
          [
            'Already done',
            'Call the bank',
            'Existing, renamed',
            'Find the form',
            'Keep me',
            'Renew passport',
          ].sort(),
        );

        // The client's UID stays, under the name vdirsyncer PUT it to (its UID's, whatever the local
        // file is called).
        const served = await davRequest(
          aliceAccount,
          'GET',
          `${collectionPath(alice, projectId)}client-bank-1.ics`,
        );
        expect(served.status).toBe(200);
        expect(todoProp(served.text, 'UID')?.value).toBe('client-bank-1');
        // vdirsyncer uploads at once, so the sub-task may have come before its parent and been attached
        // after: a change of its resource the next sync brings back (the same relation). Then nothing.
        await sync.sync();
        const settled = await sync.files(projectId);
        expect(todoProp(settled.get('form.ics') ?? '', 'RELATED-TO')?.value).toBe('client-passport-1');
        await sync.sync();
        expect(await sync.files(projectId)).toEqual(settled);
      },
      CLIENT_MS,
    );

    it(
      'attaches a sub-task that arrives before its parent to it once it comes, never to a made-up one',
      async () => {
        const projectId = await project(alice, 'Orphans');
        await createTask(alice, { title: 'Already here', projectId });
        const sync = await Vdirsyncer.create(aliceAccount, { collections: [String(projectId)] });
        await sync.discover();
        await sync.sync();

        await sync.write(
          projectId,
          'child.ics',
          vcalendar([
            'UID:client-child-9',
            'SUMMARY:Pack the tent',
            'RELATED-TO;RELTYPE=PARENT:client-parent-9',
          ]),
        );
        await sync.sync();
        const early = await taskTitled(alice, projectId, 'Pack the tent');
        expect(early.parentId).toBeNull();
        expect(await tasksIn(alice, projectId)).toHaveLength(2);
        // The relation is kept as sent meanwhile: the client reads back what it wrote.
        const held = await davRequest(
          aliceAccount,
          'GET',
          `${collectionPath(alice, projectId)}client-child-9.ics`,
        );
        expect(todoProp(held.text, 'RELATED-TO')?.value).toBe('client-parent-9');

        await sync.write(projectId, 'parent.ics', vcalendar(['UID:client-parent-9', 'SUMMARY:Go camping']));
        await sync.sync();
        const parent = await taskTitled(alice, projectId, 'Go camping');
        expect((await call<Task>(alice, 'GET', `/api/tasks/${early.id}`)).parentId).toBe(parent.id);
        expect((await tasksIn(alice, projectId)).map((task) => task.title).sort()).toEqual(
          ['Already here', 'Go camping', 'Pack the tent'].sort(),
        );
      },
      CLIENT_MS,
    );
  });

  describe('todoman', () => {
    it(
      'creates, edits, completes and deletes tasks in the synced folder',
      async () => {
        const projectId = await project(alice, 'Terminal');
        const fromApp = await createTask(alice, { title: 'From the app', projectId });
        const list = String(projectId);
        const sync = await Vdirsyncer.create(aliceAccount, { collections: [list] });
        await sync.discover();
        await sync.sync();
        const todo = await new Todoman(sync).init();
        expect((await todo.list()).map((task) => [task.summary, task.list])).toEqual([
          ['From the app', list],
        ]);

        await todo.run('new', '-l', list, 'Buy milk', '--due', '2026-12-01 09:30', '--priority', 'high');
        await todo.run(
          'edit',
          await todo.idOf('From the app'),
          '--priority',
          'medium',
          '--due',
          '2026-12-05',
        );
        await sync.sync();
        expect(await taskTitled(alice, projectId, 'Buy milk')).toMatchObject({
          dueDate: '2026-12-01',
          dueTime: '09:30',
          dueTimeZone: 'UTC',
          priority: 1,
          completed: false,
        });
        expect(await call<Task>(alice, 'GET', `/api/tasks/${fromApp.id}`)).toMatchObject({
          priority: 2,
          dueDate: '2026-12-05',
          dueTime: null,
        });

        const milk = await todo.idOf('Buy milk');
        await todo.run('edit', milk, '--due', '2026-12-02', '--priority', 'low');
        await sync.sync();
        expect(await taskTitled(alice, projectId, 'Buy milk')).toMatchObject({
          dueDate: '2026-12-02',
          dueTime: null,
          priority: 3,
        });
        await todo.run('done', milk);
        await todo.run('delete', '--yes', await todo.idOf('From the app'));
        await sync.sync();
        expect((await taskTitled(alice, projectId, 'Buy milk')).completed).toBe(true);
        await call(alice, 'GET', `/api/tasks/${fromApp.id}`, undefined, 404);

        // And back: a change in the app shows in todoman after the next sync.
        const milkTask = await taskTitled(alice, projectId, 'Buy milk');
        await call(alice, 'PATCH', `/api/tasks/${milkTask.id}`, { title: 'Buy oat milk' });
        await sync.sync();
        expect((await todo.list()).map((task) => [task.summary, task.completed])).toEqual([
          ['Buy oat milk', true],
        ]);
      },
      CLIENT_MS,
    );
    it(
      "keeps a sub-task's parent and a due time's moment across todoman's edits; a parent done completes its sub-tasks",
      async () => {
        const projectId = await project(alice, 'Terminal, nested');
        const trip = await createTask(alice, { title: 'Trip', projectId });
        const pack = await createTask(alice, { title: 'Pack', parentId: trip.id, projectId });
        const dentist = await createTask(alice, {
          title: 'Dentist',
          dueDate: '2026-12-03',
          dueTime: '09:30',
          projectId,
        });
        const sync = await Vdirsyncer.create(aliceAccount, { collections: [String(projectId)] });
        await sync.discover();
        await sync.sync();
        const todo = await new Todoman(sync).init();

        await todo.run('edit', await todo.idOf('Pack'), '--priority', 'high');
        await todo.run('edit', await todo.idOf('Dentist'), '--priority', 'low');
        await sync.sync();
        expect(await call<Task>(alice, 'GET', `/api/tasks/${pack.id}`)).toMatchObject({
          parentId: trip.id,
          priority: 1,
        });
        // todoman writes every time it saves in UTC (its normalize_datetime): the same moment, 09:30 in Berlin.
        expect(await call<Task>(alice, 'GET', `/api/tasks/${dentist.id}`)).toMatchObject({
          dueDate: '2026-12-03',
          dueTime: '08:30',
          dueTimeZone: 'UTC',
          priority: 3,
        });

        await todo.run('done', await todo.idOf('Trip'));
        await sync.sync();
        expect(await call<Task>(alice, 'GET', `/api/tasks/${pack.id}`)).toMatchObject({ completed: true });
        await sync.sync();
        const done = Object.fromEntries((await todo.list()).map((task) => [task.summary, task.completed]));
        expect(done).toEqual({ Trip: true, Pack: true, Dentist: false });
      },
      CLIENT_MS,
    );
  });

  describe('python3-caldav', () => {
    it(
      'discovers the collections from the server address /dav/, Your Tasks first, and reads and writes tasks',
      async () => {
        const carol = await t.signUp();
        const garden = await project(carol, 'Garden');
        await createTask(carol, { title: 'Rake leaves', projectId: garden });
        const weekly = await createTask(carol, {
          title: 'Water weekly',
          dueDate: '2026-12-07',
          recurrence: 'FREQ=WEEKLY;BYDAY=MO',
          projectId: garden,
        });
        const carolAccount = await account(carol);

        const found = await runCaldavPython<{ name: string; url: string; components: string[] }[]>(
          carolAccount,
          [
            'cals = client.principal().calendars()',
            "out([{'name': c.get_display_name(), 'url': str(c.url), 'components': c.get_supported_components()} for c in cals])",
          ].join('\n'),
        );
        expect(found.map((c) => c.name)).toEqual([CALDAV_INBOX_NAME, 'Garden']);
        expect(found.map((c) => new URL(c.url).pathname)).toEqual([
          collectionPath(carol, carol.inboxId),
          collectionPath(carol, garden),
        ]);
        for (const calendar of found) expect(calendar.components).toEqual(['VTODO']);

        const written = await runCaldavPython<{ before: string[]; after: string[]; weekly: string }>(
          carolAccount,
          [
            "cal = client.calendar(url=ARGS['collection'])",
            'todos = cal.todos()',
            'before = sorted(str(t.vobject_instance.vtodo.summary.value) for t in todos)',
            "todo = cal.save_todo(ARGS['ics'])",
            'todo.complete()',
            "plant = cal.save_todo(ARGS['plant'])",
            // Completing one occurrence of a repeating task: the server moves it to its next date.
            "weekly = next(t for t in todos if str(t.vobject_instance.vtodo.summary.value) == 'Water weekly')",
            'weekly.complete()',
            'weekly.load()',
            'after = sorted(str(t.vobject_instance.vtodo.summary.value) for t in cal.todos())',
            "out({'before': before, 'after': after, 'weekly': weekly.data})",
          ].join('\n'),
          {
            collection: `${origin}${collectionPath(carol, garden)}`,
            ics: vcalendar(['UID:py-mow-1', 'SUMMARY:Mow the lawn', 'DUE;VALUE=DATE:20261224', 'PRIORITY:1']),
            plant: vcalendar(['UID:py-plant-1', 'SUMMARY:Plant bulbs', 'DUE:20261224T080000Z']),
          },
        );
        expect(written.before).toEqual(['Rake leaves', 'Water weekly']);
        // todos() lists open tasks only: the completed one is not among them, the repeating one is.
        expect(written.after).toEqual(['Plant bulbs', 'Rake leaves', 'Water weekly']);
        expect(await call<Task>(carol, 'GET', `/api/tasks/${weekly.id}`)).toMatchObject({
          dueDate: '2026-12-14',
          completed: false,
          recurrence: 'FREQ=WEEKLY;BYDAY=MO',
        });
        expect(todoProp(written.weekly, 'DUE')?.value).toBe('20261214');
        expect(todoProp(written.weekly, 'STATUS')?.value).toBe('NEEDS-ACTION');
        expect(await taskTitled(carol, garden, 'Mow the lawn')).toMatchObject({
          dueDate: '2026-12-24',
          priority: 1,
          completed: true,
        });
        expect(await taskTitled(carol, garden, 'Plant bulbs')).toMatchObject({
          dueDate: '2026-12-24',
          dueTime: '08:00',
          dueTimeZone: 'UTC',
          completed: false,
        });
      },
      CLIENT_MS,
    );

    it(
      'searches by a time range (calendar-query with a time-range on VTODO)',
      async () => {
        const projectId = await project(alice, 'Ranges');
        await createTask(alice, { title: 'December', dueDate: '2026-12-03', projectId });
        await createTask(alice, { title: 'Much later', dueDate: '2031-05-01', projectId });
        const found = await runCaldavPython<string[]>(
          aliceAccount,
          [
            'from datetime import datetime',
            "cal = client.calendar(url=ARGS['collection'])",
            'found = cal.search(todo=True, include_completed=True, start=datetime(2026, 12, 1), end=datetime(2027, 1, 1))',
            'out(sorted(str(t.vobject_instance.vtodo.summary.value) for t in found))',
          ].join('\n'),
          { collection: `${origin}${collectionPath(alice, projectId)}` },
        );
        expect(found).toEqual(['December']);
      },
      CLIENT_MS,
    );

    it('answers discovery and refuses an account password as the issue says', async () => {
      const wellKnown = await davRequest(aliceAccount, 'PROPFIND', '/.well-known/caldav', {
        headers: { depth: '0' },
      });
      expect(wellKnown.status).toBe(301);
      expect(new URL(wellKnown.headers.get('location') ?? '', origin).pathname).toBe('/dav/');
      const refused = await davRequest(aliceAccount, 'PROPFIND', '/dav/', {
        headers: { depth: '0' },
        password: alice.password,
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(`Basic realm="${CALDAV_REALM}"`);
    });

    it(
      'answers 412 to a write with a stale ETag and changes nothing',
      async () => {
        const projectId = await project(alice, 'Conflicts');
        const href = `${collectionPath(alice, projectId)}race-1.ics`;
        const body = (summary: string) => vcalendar(['UID:race-1', `SUMMARY:${summary}`]);
        const created = await davRequest(aliceAccount, 'PUT', href, {
          body: body('First'),
          headers: { 'if-none-match': '*' },
        });
        expect(created.status).toBe(201);
        const again = await davRequest(aliceAccount, 'PUT', href, {
          body: body('Again'),
          headers: { 'if-none-match': '*' },
        });
        expect(again.status).toBe(412);
        const first = await davRequest(aliceAccount, 'GET', href);
        const etag1 = first.headers.get('etag') ?? '';
        expect(etag1).toMatch(/^"[^"]+"$/);
        if (created.headers.get('etag')) expect(created.headers.get('etag')).toBe(etag1);

        // Two clients read etag1; the first writes, the second's write with etag1 is refused.
        const updated = await davRequest(aliceAccount, 'PUT', href, {
          body: body('Second'),
          headers: { 'if-match': etag1 },
        });
        expect([200, 204]).toContain(updated.status);
        const etag2 = (await davRequest(aliceAccount, 'GET', href)).headers.get('etag') ?? '';
        expect(etag2).not.toBe(etag1);
        const stale = await davRequest(aliceAccount, 'PUT', href, {
          body: body('Stale'),
          headers: { 'if-match': etag1 },
        });
        expect(stale.status).toBe(412);
        const task = await taskTitled(alice, projectId, 'Second');

        // An edit in the app changes the ETag too: a client still holding etag2 is refused.
        await call(alice, 'PATCH', `/api/tasks/${task.id}`, { title: 'Edited in the app' });
        const etag3 = (await davRequest(aliceAccount, 'GET', href)).headers.get('etag') ?? '';
        expect(etag3).not.toBe(etag2);
        const pythonStatus = await runCaldavPython<number>(
          aliceAccount,
          [
            "r = client.put(ARGS['url2'], ARGS['ics'], {'Content-Type': 'text/calendar; charset=utf-8', 'If-Match': ARGS['etag']})",
            'out(r.status)',
          ].join('\n'),
          { url2: `${origin}${href}`, ics: body('From Python'), etag: etag2 },
        );
        expect(pythonStatus).toBe(412);
        const deleteStale = await davRequest(aliceAccount, 'DELETE', href, {
          headers: { 'if-match': etag2 },
        });
        expect(deleteStale.status).toBe(412);
        expect((await call<Task>(alice, 'GET', `/api/tasks/${task.id}`)).title).toBe('Edited in the app');

        const deleted = await davRequest(aliceAccount, 'DELETE', href, { headers: { 'if-match': etag3 } });
        expect([200, 204]).toContain(deleted.status);
        await call(alice, 'GET', `/api/tasks/${task.id}`, undefined, 404);
      },
      CLIENT_MS,
    );

    it(
      'syncs by token: only what changed since, deletions as 404, an unknown token refused',
      async () => {
        const projectId = await project(alice, 'Tokens');
        const a = await createTask(alice, { title: 'A', projectId });
        const b = await createTask(alice, { title: 'B', projectId });
        const c = await createTask(alice, { title: 'C', projectId });
        const collection = `${origin}${collectionPath(alice, projectId)}`;
        const first = await runCaldavPython<{ token: string; urls: string[] }>(
          aliceAccount,
          [
            "cal = client.calendar(url=ARGS['collection'])",
            'objs = cal.objects_by_sync_token(load_objects=True)',
            "out({'token': objs.sync_token, 'urls': sorted(str(o.url) for o in objs)})",
          ].join('\n'),
          { collection },
        );
        expect(first.urls.map((url) => new URL(url).pathname.split('/').pop())).toEqual(
          [a, b, c].map((task) => `tasklane-${task.id}.ics`).sort(),
        );

        await call(alice, 'PATCH', `/api/tasks/${a.id}`, { title: 'A, changed' });
        await call(alice, 'DELETE', `/api/tasks/${c.id}`);
        const d = await createTask(alice, { title: 'D', projectId });

        const since = await runCaldavPython<{ token: string; changed: string[]; deleted: string[] }>(
          aliceAccount,
          [
            "cal = client.calendar(url=ARGS['collection'])",
            "objs = cal.objects_by_sync_token(sync_token=ARGS['token'], load_objects=True)",
            'changed, deleted = [], []',
            'for o in objs:',
            '    name = str(o.url).rstrip("/").split("/")[-1]',
            '    (changed if o.data else deleted).append(name)',
            "out({'token': objs.sync_token, 'changed': sorted(changed), 'deleted': deleted})",
          ].join('\n'),
          { collection, token: first.token },
        );
        expect(since.token).not.toBe(first.token);
        expect(since.changed).toEqual([`tasklane-${a.id}.ics`, `tasklane-${d.id}.ics`].sort());
        expect(since.deleted).toEqual([`tasklane-${c.id}.ics`]);

        const report = (token: string) => syncReport(aliceAccount, collectionPath(alice, projectId), token);
        const raw = await report(first.token);
        expect(raw.status).toBe(207);
        const parsed = parseMultistatus(raw.text);
        const byName = Object.fromEntries(parsed.responses.map((r) => [r.href.split('/').pop(), r.status]));
        expect(byName).toEqual({
          [`tasklane-${a.id}.ics`]: 200,
          [`tasklane-${d.id}.ics`]: 200,
          [`tasklane-${c.id}.ics`]: 404,
        });
        expect(parsed.syncToken).toBe(since.token);

        // Nothing changed since: an empty answer with the same token.
        const quiet = parseMultistatus((await report(since.token)).text);
        expect(quiet.responses).toEqual([]);
        expect(quiet.syncToken).toBe(since.token);

        // A token the server never gave (one from the future, another collection's, or no token at all).
        const otherProject = await project(alice, 'Other tokens');
        for (const token of [
          `urn:tasklane:sync:${projectId}:${Number.MAX_SAFE_INTEGER}`,
          `urn:tasklane:sync:${otherProject}:1`,
          'http://example.com/not-a-token',
        ]) {
          const unknown = await report(token);
          expect(unknown.status, token).toBe(403);
          expect(unknown.text).toContain('valid-sync-token');
        }
      },
      CLIENT_MS,
    );

    it(
      'lets a viewer and a read-only token read but not write, and a project-limited token see only its projects',
      async () => {
        const projectId = await project(alice, 'Shared');
        const task = await createTask(alice, { title: 'Read me', projectId });
        const viewer = await t.signUp();
        await call(alice, 'POST', `/api/projects/${projectId}/members`, {
          user: viewer.user.username,
          role: 'viewer',
        });
        const viewerPath = collectionPath(alice, projectId).replace(
          encodeURIComponent(alice.user.username),
          encodeURIComponent(viewer.user.username),
        );
        const href = `${viewerPath}tasklane-${task.id}.ics`;
        const viewerAccount = await account(viewer);
        const readOnly = await account(alice, { scopes: ['read'] });
        const aliceReadOnlyHref = `${collectionPath(alice, projectId)}tasklane-${task.id}.ics`;

        for (const [who, target] of [
          [viewerAccount, href],
          [readOnly, aliceReadOnlyHref],
        ] as const) {
          const read = await davRequest(who, 'GET', target);
          expect(read.status, who.username).toBe(200);
          const put = await davRequest(who, 'PUT', target, {
            body: read.text.replace('SUMMARY:Read me', 'SUMMARY:Written'),
            headers: { 'if-match': read.headers.get('etag') ?? '*' },
          });
          expect(put.status).toBe(403);
          const created = await davRequest(who, 'PUT', target.replace(/[^/]+\.ics$/, 'new-1.ics'), {
            body: vcalendar(['UID:new-1', 'SUMMARY:Sneaked in']),
          });
          expect(created.status).toBe(403);
          expect((await davRequest(who, 'DELETE', target)).status).toBe(403);
        }
        // The viewer's privileges say so too: read, no write.
        const privileges = await davRequest(viewerAccount, 'PROPFIND', viewerPath, {
          headers: { depth: '0' },
          body: '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:current-user-privilege-set/></d:prop></d:propfind>',
        });
        expect(privileges.status).toBe(207);
        expect(privileges.text).toMatch(/<([\w-]+:)?read\s*\/>/);
        expect(privileges.text).not.toMatch(/<([\w-]+:)?(write|write-content|bind|all)\s*\/>/);
        const refused = await runCaldavPython<string>(
          viewerAccount,
          [
            "cal = client.calendar(url=ARGS['collection'])",
            'try:',
            "    cal.save_todo(ARGS['ics'])",
            "    out('saved')",
            'except error.DAVError as e:',
            "    out('refused')",
          ].join('\n'),
          {
            collection: `${origin}${viewerPath}`,
            ics: vcalendar(['UID:py-viewer-1', 'SUMMARY:From a viewer']),
          },
        );
        expect(refused).toBe('refused');
        expect((await tasksIn(alice, projectId)).map((x) => x.title)).toEqual(['Read me']);

        const limited = await account(alice, { projectIds: [projectId] });
        const names = await runCaldavPython<string[]>(
          limited,
          'out([c.get_display_name() for c in client.principal().calendars()])',
        );
        expect(names).toEqual(['Shared']);
        const inbox = await davRequest(limited, 'PROPFIND', collectionPath(alice, alice.inboxId), {
          headers: { depth: '0' },
        });
        expect(inbox.status).toBe(404);
      },
      CLIENT_MS,
    );

    it(
      'keeps what it cannot show (an X-property with parameters, an alarm relative to DTSTART) across an edit in the app',
      async () => {
        const projectId = await project(alice, 'Round trip');
        const href = `${collectionPath(alice, projectId)}keep-1.ics`;
        const ics = vcalendar([
          'UID:keep-1',
          'SUMMARY:Keep my extras',
          'LOCATION;LANGUAGE=en:Office',
          'X-EXAMPLE-FIELD;X-PARAM=one;X-OTHER="two, three":some value',
          'DTSTART;VALUE=DATE:20261201',
          'DUE;VALUE=DATE:20261205',
          'BEGIN:VALARM',
          'ACTION:DISPLAY',
          'DESCRIPTION:Starting soon',
          'TRIGGER;RELATED=START:-PT15M',
          'END:VALARM',
        ]);
        const saved = await runCaldavPython<string>(
          aliceAccount,
          ["cal = client.calendar(url=ARGS['collection'])", "cal.save_todo(ARGS['ics'])", "out('ok')"].join(
            '\n',
          ),
          { collection: `${origin}${collectionPath(alice, projectId)}`, ics },
        );
        expect(saved).toBe('ok');
        const task = await taskTitled(alice, projectId, 'Keep my extras');
        const before = await davRequest(aliceAccount, 'GET', href);
        expect(before.status).toBe(200);

        await call(alice, 'PATCH', `/api/tasks/${task.id}`, { title: 'Keep my extras, edited', priority: 2 });
        const after = await davRequest(aliceAccount, 'GET', href);
        expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
        expect(todoText(after.text, 'SUMMARY')).toBe('Keep my extras, edited');
        expect(todoProp(after.text, 'PRIORITY')?.value).toBe('5');
        expect(todoProp(after.text, 'LOCATION')).toMatchObject({
          value: 'Office',
          params: { LANGUAGE: 'en' },
        });
        expect(todoProp(after.text, 'X-EXAMPLE-FIELD')).toMatchObject({
          value: 'some value',
          params: { 'X-PARAM': 'one', 'X-OTHER': 'two, three' },
        });
        expect(todoProp(after.text, 'DTSTART')).toMatchObject({
          value: '20261201',
          params: { VALUE: 'DATE' },
        });
        expect(todoProp(after.text, 'DUE')).toMatchObject({ value: '20261205', params: { VALUE: 'DATE' } });
        const alarms = components(after.text, 'VALARM');
        expect(alarms).toHaveLength(1);
        expect(alarms[0]).toMatch(/TRIGGER;RELATED=START:-PT15M/);
        expect(alarms[0]).toContain('DESCRIPTION:Starting soon');
        // The app shows no reminder for it: it is kept as content, not made into one.
        expect(await call<Reminder[]>(alice, 'GET', `/api/tasks/${task.id}/reminders`)).toEqual([]);
      },
      CLIENT_MS,
    );
  });

  // SQLite has one process on its file; several instances share a PostgreSQL database.
  it.runIf(dialect === 'postgres')(
    'on two instances of one database, a change through one is in the next sync-collection on the other',
    async () => {
      const second = await createTestApp(dialect, { database: await reopenTestDatabase(database) });
      try {
        const secondOrigin = await second.app.listen({ port: 0, host: '127.0.0.1' });
        const projectId = await project(alice, 'Two instances');
        const task = await createTask(alice, { title: 'Before', projectId });
        const collection = collectionPath(alice, projectId);
        const listed = parseMultistatus((await syncReport(aliceAccount, collection, '')).text);
        expect(listed.responses.map((r) => r.href.split('/').pop())).toEqual([`tasklane-${task.id}.ics`]);

        const onSecond = { ...aliceAccount, origin: secondOrigin };
        const put = await davRequest(onSecond, 'PUT', `${collection}made-on-b.ics`, {
          body: vcalendar(['UID:made-on-b', 'SUMMARY:Made on the other instance']),
        });
        expect(put.status).toBe(201);
        const patched = await second.app.inject({
          method: 'PATCH',
          url: `/api/tasks/${task.id}`,
          headers: alice.headers,
          payload: { title: 'After' },
        });
        expect(patched.statusCode, patched.body).toBe(200);

        const since = parseMultistatus(
          (await syncReport(aliceAccount, collection, listed.syncToken ?? '')).text,
        );
        expect(Object.fromEntries(since.responses.map((r) => [r.href.split('/').pop(), r.status]))).toEqual({
          [`tasklane-${task.id}.ics`]: 200,
          'made-on-b.ics': 200,
        });
        expect(since.syncToken).not.toBe(listed.syncToken);
      } finally {
        await second.close();
      }
    },
    CLIENT_MS,
  );
});
