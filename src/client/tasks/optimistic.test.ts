import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { PROJECTS_PATH } from '../../common/projects';
import { ARCHIVED_TASKS_PATH, TASKS_PATH, type TaskSummary } from '../../common/tasks';
import { isTempTaskId, showNewTask, showRestored, tempTaskId } from './optimistic';

const INBOX = 7;
const task = (id: number, fields: Partial<TaskSummary> = {}) =>
  ({
    id,
    title: `T${id}`,
    projectId: INBOX,
    dueDate: null,
    completed: false,
    archived: false,
    ...fields,
  }) as TaskSummary;
const ids = (client: QueryClient, key: readonly unknown[]) =>
  client.getQueryData<TaskSummary[]>(key)?.map((t) => t.id);

function cache() {
  const client = new QueryClient();
  client.setQueryData(
    [PROJECTS_PATH],
    [
      { id: INBOX, inbox: true },
      { id: 8, inbox: false },
    ],
  );
  client.setQueryData([TASKS_PATH], [task(1)]);
  client.setQueryData([TASKS_PATH, { projectId: '8' }], [task(2, { projectId: 8 })]);
  // Today (overdue and today), Upcoming (a week), a filtered list, the tasks assigned to me.
  client.setQueryData(
    [TASKS_PATH, { projectId: 'all', assignee: 'me_or_unassigned', dueTo: '2026-11-29' }],
    [],
  );
  client.setQueryData(
    [
      TASKS_PATH,
      { projectId: 'all', assignee: 'me_or_unassigned', dueFrom: '2026-11-30', dueTo: '2026-12-06' },
    ],
    [],
  );
  client.setQueryData([TASKS_PATH, { q: 'milk' }], []);
  client.setQueryData([TASKS_PATH, { assignee: 'me' }], []);
  return client;
}

describe('the optimistic task writes (issue 31)', () => {
  it('makes negative ids, each new', () => {
    const made = Array.from({ length: 50 }, tempTaskId);
    expect(new Set(made).size).toBe(50);
    expect(made.every(isTempTaskId)).toBe(true);
  });

  it('shows a new task at the top of its list, and of Today or Upcoming when its date says so', () => {
    const client = cache();
    showNewTask(client, { ...task(-5, { dueDate: '2026-12-01' }), notes: null, aiDraft: null });
    expect(ids(client, [TASKS_PATH])).toEqual([-5, 1]);
    expect(ids(client, [TASKS_PATH, { projectId: '8' }])).toEqual([2]);
    expect(
      ids(client, [
        TASKS_PATH,
        { projectId: 'all', assignee: 'me_or_unassigned', dueFrom: '2026-11-30', dueTo: '2026-12-06' },
      ]),
    ).toEqual([-5]);
    expect(
      ids(client, [TASKS_PATH, { projectId: 'all', assignee: 'me_or_unassigned', dueTo: '2026-11-29' }]),
    ).toEqual([]);
    expect(ids(client, [TASKS_PATH, { q: 'milk' }])).toEqual([]);
    expect(ids(client, [TASKS_PATH, { assignee: 'me' }])).toEqual([]);

    showNewTask(client, { ...task(-6, { projectId: 8 }), notes: null, aiDraft: null });
    expect(ids(client, [TASKS_PATH, { projectId: '8' }])).toEqual([-6, 2]);
    expect(ids(client, [TASKS_PATH])).toEqual([-5, 1]);
  });

  it('takes a restored task out of the archive and back into its list', () => {
    const client = cache();
    const archived = task(3, { completed: true, archived: true, dueDate: '2026-11-20' });
    client.setQueryData([ARCHIVED_TASKS_PATH], [archived]);
    showRestored(client, archived);
    expect(ids(client, [ARCHIVED_TASKS_PATH])).toEqual([]);
    expect(client.getQueryData<TaskSummary[]>([TASKS_PATH])?.[0]).toMatchObject({ id: 3, completed: false });
    // Overdue: on Today.
    expect(
      ids(client, [TASKS_PATH, { projectId: 'all', assignee: 'me_or_unassigned', dueTo: '2026-11-29' }]),
    ).toEqual([3]);
  });
});
