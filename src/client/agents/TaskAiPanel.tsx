import type { Task } from '../../common/tasks';

/**
 * Seam: the AI part of a task card's expanded panel, above the notes box:
 * 'AI Draft' button, agent picker, draft box, busy indicator (spec §2). AI issue fills it.
 */
export function TaskAiPanel(_props: { task: Task }) {
  return null;
}
