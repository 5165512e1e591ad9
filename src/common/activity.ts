import { z } from 'zod';
import { TASKS_PATH } from './tasks';

/** A task's activity (issue 21): what happened to it, newest first. Written with the change itself. */

export const ACTIVITY_KINDS = [
  'created',
  'renamed',
  'description_changed',
  'due_changed',
  'completed',
  'restored',
  'moved',
  'assigned',
  'unassigned',
  'commented',
  'file_added',
  'file_removed',
  'checklist_changed',
  'proposal_applied',
  // Issue 23.
  'priority_changed',
  'labels_changed',
  // Issue 29: sub-tasks.
  'subtask_added',
  'moved_under',
  'made_top_level',
  // Issue 29: a dependency added or removed (nothing of the other task, which not everyone may see).
  'relation_added',
  'relation_removed',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export const taskActivityPath = (taskId: number) => `${TASKS_PATH}/${taskId}/activity`;

/** Shown for an actor (or author) whose account was deleted. */
export const DELETED_USER_NAME = 'Deleted user';

export const activityEntrySchema = z.object({
  id: z.number(),
  actorId: z.number().nullable(),
  /** The actor's first name, or 'Deleted user'. */
  actorName: z.string(),
  kind: z.enum(ACTIVITY_KINDS),
  /**
   * What changed, by kind: renamed {from, to}; due_changed {from, to}; moved {fromProjectId,
   * toProjectId, toProjectName, droppedAssignees?: string[]}; assigned / unassigned {userIds,
   * names}; commented {commentId}; file_added / file_removed {fileName}; checklist_changed
   * {action, title}; proposal_applied {runId}; priority_changed {from, to} (1-4);
   * labels_changed {added, removed} (label names); completed {} or, for an occurrence of a recurring
   * task (issue 22), {next: 'YYYY-MM-DD', text: 'completed (next: Mon 7 Dec)'}; subtask_added
   * {taskId, title} (on the parent, issue 29); moved_under {parentId, parentTitle}; made_top_level
   * {fromParentId?, fromParentTitle?}; the others {}. Any kind may add `via: 'caldav'`: the change
   * came from a CalDAV app (issue 30), which the sentence says: CALDAV_VIA_TEXT.
   */
  data: z.record(z.string(), z.unknown()),
  at: z.string(),
});
export type ActivityEntry = z.infer<typeof activityEntrySchema>;

/**
 * Issue 29: the sub-task entries' sentences after the actor's name, shared by the server (webhooks,
 * MCP) and the browser's Activity: 'added the sub-task "Book flights"', 'moved under "Plan trip"',
 * 'made top-level'.
 */
export const SUBTASK_ACTIVITY_TEXT = {
  subtaskAdded: (title: string) => `added the sub-task "${title}"`,
  movedUnder: (parentTitle: string) => `moved under "${parentTitle}"`,
  madeTopLevel: 'made top-level',
} as const;
