/**
 * What a push notification carries and offers (issue 22, decision 036), without Zod: the service
 * worker imports this, and stays small.
 */

export const PUSH_PATHS = {
  publicKey: '/api/push/public-key',
  subscriptions: '/api/push/subscriptions',
} as const;

/** A push message's payload (src/common/push.ts validates it on the server). */
export interface PushPayload {
  title: string;
  body: string;
  /** The task it is about; null for a notification about no one task. */
  taskId: number | null;
  notificationId: number | null;
  /** Where a click on the notification opens the app (same origin, path and query). */
  url: string;
}

/** The notification's two actions (the worker's `event.action`) and their labels. */
export const PUSH_ACTIONS = {
  complete: { action: 'complete', title: 'Complete' },
  snooze: { action: 'snooze', title: 'Snooze 1 hour' },
} as const;

/** 'Snooze 1 hour': a new reminder this many minutes from now. */
export const SNOOZE_MINUTES = 60;

/** Where a notification opens a task: its project's page with the card expanded (`?task=`). */
export const TASK_QUERY_PARAM = 'task';
export const taskUrl = (projectId: number, taskId: number) =>
  `/projects/${projectId}?${TASK_QUERY_PARAM}=${taskId}`;

/** The message the worker posts to an open tab to show a task there (no reload). */
export const OPEN_TASK_MESSAGE = 'tasklane:open';
