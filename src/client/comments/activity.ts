import { type ActivityEntry, SUBTASK_ACTIVITY_TEXT } from '../../common/activity';
import { CALDAV_VIA_TEXT } from '../../common/caldav';
import { completedNextText } from '../../common/recurrence';
import { PRIORITY_TEXT } from '../labels/copy';
import { formatDueDate } from '../tasks/dates';

/** What `data` holds by kind is documented in src/common/activity.ts; read defensively all the same. */
const text = (data: Record<string, unknown>, key: string): string | undefined => {
  const value = data[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
};
const texts = (data: Record<string, unknown>, key: string): string[] => {
  const value = data[key];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
};

/** When a comment was written or something happened, in the reader's locale. */
export const formatMoment = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** 'Ana', 'Ana and Ben', 'Ana, Ben and Cy'. */
export function nameList(names: string[]): string {
  if (names.length <= 1) return names[0] ?? 'someone';
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

const quoted = (value: string | undefined) => (value === undefined ? '' : ` "${value}"`);

const CHECKLIST_VERBS: Record<string, string> = {
  added: 'added the checklist item',
  removed: 'removed the checklist item',
  deleted: 'removed the checklist item',
  renamed: 'renamed the checklist item',
  ticked: 'ticked',
  done: 'ticked',
  checked: 'ticked',
  unticked: 'unticked',
  undone: 'unticked',
  unchecked: 'unticked',
  reordered: 'reordered the checklist',
};

/**
 * One entry of a task's Activity as a short sentence: 'Ana renamed this from "x" to "y"', and where
 * the change came from when not the app (issue 30): 'Ana changed the due date (via CalDAV)'.
 */
export function activitySentence(entry: ActivityEntry): string {
  const sentence = whatHappened(entry);
  return entry.data.via === 'caldav' ? `${sentence} ${CALDAV_VIA_TEXT}` : sentence;
}

function whatHappened({ actorName: who, kind, data }: ActivityEntry): string {
  switch (kind) {
    case 'created':
      return `${who} created this`;
    case 'renamed':
      return `${who} renamed this from${quoted(text(data, 'from'))} to${quoted(text(data, 'to'))}`;
    case 'description_changed':
      return `${who} changed the description`;
    case 'due_changed': {
      const to = text(data, 'to');
      if (!to) return `${who} removed the due date`;
      return `${who} ${text(data, 'from') ? 'changed the due date to' : 'set the due date to'} ${formatDueDate(to.slice(0, 10))}`;
    }
    case 'completed': {
      // Issue 22: a recurring task's occurrence: 'Ana completed (next: Mon 7 Dec)'.
      const next = text(data, 'next');
      return next ? `${who} ${completedNextText(next.slice(0, 10))}` : `${who} completed this`;
    }
    case 'restored':
      return `${who} restored this`;
    case 'moved': {
      const dropped = texts(data, 'droppedAssignees');
      const moved = `${who} moved this to ${text(data, 'toProjectName') ?? 'another project'}`;
      return dropped.length > 0 ? `${moved}; ${nameList(dropped)} no longer assigned` : moved;
    }
    case 'assigned':
      return `${who} assigned ${nameList(texts(data, 'names'))}`;
    case 'unassigned':
      return `${who} unassigned ${nameList(texts(data, 'names'))}`;
    case 'commented':
      return `${who} commented`;
    case 'file_added':
      return `${who} added the file${quoted(text(data, 'fileName'))}`;
    case 'file_removed':
      return `${who} removed the file${quoted(text(data, 'fileName'))}`;
    case 'checklist_changed': {
      const action = text(data, 'action');
      const verb = (action && CHECKLIST_VERBS[action]) ?? 'changed the checklist item';
      return `${who} ${verb}${verb.endsWith('checklist') ? '' : quoted(text(data, 'title'))}`;
    }
    case 'proposal_applied':
      return `${who} applied an AI proposal`;
    case 'priority_changed': {
      const to = data.to;
      if (to === 4) return `${who} removed the priority`;
      return to === 1 || to === 2 || to === 3
        ? `${who} set the priority to ${PRIORITY_TEXT[to].short}`
        : `${who} changed the priority`;
    }
    case 'labels_changed': {
      const added = texts(data, 'added');
      const removed = texts(data, 'removed');
      const labels = (names: string[]) => `the ${names.length === 1 ? 'label' : 'labels'} ${nameList(names)}`;
      const parts = [
        ...(added.length > 0 ? [`added ${labels(added)}`] : []),
        ...(removed.length > 0 ? [`removed ${labels(removed)}`] : []),
      ];
      return `${who} ${parts.length > 0 ? parts.join('; ') : 'changed the labels'}`;
    }
    case 'subtask_added':
      return `${who} ${SUBTASK_ACTIVITY_TEXT.subtaskAdded(text(data, 'title') ?? '')}`;
    case 'moved_under':
      return `${who} ${SUBTASK_ACTIVITY_TEXT.movedUnder(text(data, 'parentTitle') ?? '')}`;
    case 'made_top_level':
      return `${who} ${SUBTASK_ACTIVITY_TEXT.madeTopLevel}`;
    case 'relation_added':
      return `${who} added a dependency`;
    case 'relation_removed':
      return `${who} removed a dependency`;
  }
}
