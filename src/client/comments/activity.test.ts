import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../common/activity';
import { activitySentence, nameList } from './activity';

const entry = (kind: ActivityEntry['kind'], data: Record<string, unknown> = {}): ActivityEntry => ({
  id: 1,
  actorId: 2,
  actorName: 'Ana',
  kind,
  data,
  at: '2026-11-26T10:00:00.000Z',
});

describe('activity sentences', () => {
  it('says each kind in a few words, with the names and values it carries', () => {
    expect(activitySentence(entry('renamed', { from: 'x', to: 'y' }))).toBe(
      'Ana renamed this from "x" to "y"',
    );
    expect(activitySentence(entry('moved', { toProjectName: 'Website' }))).toBe('Ana moved this to Website');
    expect(activitySentence(entry('moved', { toProjectName: 'Website', droppedAssignees: ['Ben'] }))).toBe(
      'Ana moved this to Website; Ben no longer assigned',
    );
    expect(activitySentence(entry('assigned', { userIds: [3], names: ['Ben'] }))).toBe('Ana assigned Ben');
    expect(activitySentence(entry('unassigned', { names: ['Ben', 'Cy'] }))).toBe('Ana unassigned Ben and Cy');
    expect(activitySentence(entry('commented', { commentId: 4 }))).toBe('Ana commented');
    expect(activitySentence(entry('completed'))).toBe('Ana completed this');
    expect(activitySentence(entry('completed', { next: '2026-12-07' }))).toBe(
      'Ana completed (next: Mon 7 Dec)',
    );
    expect(activitySentence(entry('due_changed', { from: null, to: null }))).toBe('Ana removed the due date');
    expect(activitySentence(entry('priority_changed', { from: 4, to: 1 }))).toBe(
      'Ana set the priority to P1',
    );
    expect(activitySentence(entry('priority_changed', { from: 2, to: 4 }))).toBe('Ana removed the priority');
    expect(activitySentence(entry('labels_changed', { added: ['errands', 'home'], removed: ['work'] }))).toBe(
      'Ana added the labels errands and home; removed the label work',
    );
    expect(activitySentence(entry('file_added', { fileName: 'plan.pdf' }))).toBe(
      'Ana added the file "plan.pdf"',
    );
    expect(activitySentence(entry('checklist_changed', { action: 'added', title: 'Call' }))).toBe(
      'Ana added the checklist item "Call"',
    );
    expect(activitySentence({ ...entry('created'), actorName: 'Deleted user' })).toBe(
      'Deleted user created this',
    );
    // Issue 29: sub-tasks.
    expect(activitySentence(entry('subtask_added', { taskId: 5, title: 'Book flights' }))).toBe(
      'Ana added the sub-task "Book flights"',
    );
    expect(activitySentence(entry('moved_under', { parentId: 4, parentTitle: 'Plan trip' }))).toBe(
      'Ana moved under "Plan trip"',
    );
    expect(activitySentence(entry('made_top_level', { fromParentId: 4 }))).toBe('Ana made top-level');
  });

  it('says when a change came over CalDAV (issue 30)', () => {
    expect(activitySentence(entry('description_changed', { via: 'caldav' }))).toBe(
      'Ana changed the description (via CalDAV)',
    );
    expect(activitySentence(entry('due_changed', { from: '2026-12-01', to: null, via: 'caldav' }))).toBe(
      'Ana removed the due date (via CalDAV)',
    );
    expect(activitySentence(entry('completed', { next: '2026-12-07', via: 'caldav' }))).toBe(
      'Ana completed (next: Mon 7 Dec) (via CalDAV)',
    );
    // Only CalDAV is named; any other value is no source the app knows.
    expect(activitySentence(entry('created', { via: 'elsewhere' }))).toBe('Ana created this');
  });

  it('lists names as a sentence does', () => {
    expect(nameList(['Ana'])).toBe('Ana');
    expect(nameList(['Ana', 'Ben', 'Cy'])).toBe('Ana, Ben and Cy');
  });
});
