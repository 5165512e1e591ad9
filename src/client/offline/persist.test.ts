import { describe, expect, it } from 'vitest';
import { OFFLINE_COPY } from '../../common/offline';
import { isStoredKey } from './persist';
import { statusText } from './status';

describe('what is kept for an offline start (issue 31)', () => {
  it('keeps the lists, the tasks opened, labels, filters, projects, members, sections and file counts', () => {
    for (const key of [
      ['/api/tasks'],
      ['/api/tasks', { projectId: '4' }],
      ['/api/tasks', { assignee: 'me' }],
      ['/api/tasks', { projectId: 'all', assignee: 'me_or_unassigned', dueTo: '2026-11-29' }],
      ['/api/tasks', { projectId: 'all', assignee: 'me', dueFrom: '2026-11-29', dueTo: '2026-12-12' }],
      ['/api/tasks/archived'],
      ['/api/tasks/archived', { projectId: '4' }],
      ['/api/tasks/12'],
      ['/api/tasks/-1700000000000001'],
      ['/api/tasks/12/checklist'],
      ['/api/tasks/12/comments'],
      ['/api/labels'],
      ['/api/filters'],
      ['/api/projects'],
      ['/api/projects', 4, 'members'],
      ['/api/projects/4/sections'],
      ['/api/files/counts'],
    ])
      expect(isStoredKey(key), JSON.stringify(key)).toBe(true);
  });

  it('keeps no search or filtered list, nor what only the server can do', () => {
    for (const key of [
      ['/api/tasks', { q: 'milk' }],
      ['/api/tasks', { projectId: '4', priority: 'high' }],
      ['/api/tasks', { projectId: 'all', q: 'milk', view: 'summary' }],
      ['/api/tasks/archived', { label: ['home'] }],
      ['/api/tasks/12/ai-runs'],
      ['/api/tasks/12/activity'],
      ['/api/tasks/12/files'],
      ['/api/admin/users'],
      ['/api/agents'],
      ['/api/auth/me'],
      ['/api/notifications'],
      ['/api/projects', 4, 'invites'],
      [42],
    ])
      expect(isStoredKey(key), JSON.stringify(key)).toBe(false);
  });
});

describe('the header status (issue 31)', () => {
  it('says Offline, with the changes waiting, Syncing…, or nothing', () => {
    expect(statusText(true, { waiting: 0, syncing: false })).toBe('Offline');
    expect(statusText(true, { waiting: 3, syncing: false })).toBe('Offline: 3 changes waiting');
    expect(statusText(true, { waiting: 1, syncing: false })).toBe('Offline: 1 change waiting');
    expect(statusText(false, { waiting: 3, syncing: true })).toBe(OFFLINE_COPY.syncing);
    expect(statusText(false, { waiting: 0, syncing: false })).toBeUndefined();
  });
});
