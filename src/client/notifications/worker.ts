import {
  OPEN_TASK_MESSAGE,
  PUSH_ACTIONS,
  type PushPayload,
  SNOOZE_MINUTES,
} from '../../common/push-notification';

/**
 * What the service worker does with push (issue 22, decision 036): shows the notification, and runs
 * its actions without opening the app. The worker is signed in through the session cookie the
 * server sets at sign-in (httpOnly, SameSite=Lax): a worker's fetch to its own origin carries it,
 * with an Origin header of that origin, which the server's cross-site check accepts.
 *
 * Only the few worker types used here are declared (the DOM and WebWorker libraries cannot share
 * one TypeScript program).
 */
export interface WorkerNotification {
  data: unknown;
  close(): void;
}
export interface WorkerClient {
  url: string;
  focus(): Promise<unknown>;
  postMessage(message: unknown): void;
}
export interface WorkerScope {
  location: { origin: string };
  registration: {
    showNotification(title: string, options: Record<string, unknown>): Promise<void>;
  };
  clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<WorkerClient[]>;
    openWindow(url: string): Promise<unknown>;
  };
  fetch: typeof fetch;
}

const FALLBACK_TITLE = 'Tasklane';

/**
 * The path, query and fragment of a notification's link (absolute, from APP_URL, or a path): the
 * worker only ever opens its own app, whatever host the link names.
 */
export function localPath(url: string): string {
  try {
    const parsed = new URL(url, 'https://app.invalid');
    if (!/^https?:$/.test(parsed.protocol)) return '/';
    return `${parsed.pathname}${parsed.search}${parsed.hash}`;
  } catch {
    return '/';
  }
}

/** The payload of a push message, or a plain one when it cannot be read (a push must show something). */
export function readPayload(text: string | null | undefined): PushPayload {
  try {
    const value = JSON.parse(text ?? '') as Partial<PushPayload>;
    return {
      title: typeof value.title === 'string' && value.title ? value.title : FALLBACK_TITLE,
      body: typeof value.body === 'string' ? value.body : '',
      taskId: typeof value.taskId === 'number' ? value.taskId : null,
      notificationId: typeof value.notificationId === 'number' ? value.notificationId : null,
      url: typeof value.url === 'string' ? localPath(value.url) : '/',
    };
  } catch {
    return { title: FALLBACK_TITLE, body: text ?? '', taskId: null, notificationId: null, url: '/' };
  }
}

/**
 * The notification for a payload. Its tag is the notification's id, so the same notification sent
 * twice (a retried delivery) replaces itself instead of showing twice.
 */
export function notificationFor(payload: PushPayload): { title: string; options: Record<string, unknown> } {
  return {
    title: payload.title,
    options: {
      body: payload.body,
      icon: '/icons/icon-192.png',
      badge: '/icons/icon-192.png',
      data: payload,
      // One per notification: a retried delivery replaces itself instead of showing twice.
      ...(payload.notificationId !== null ? { tag: `notification-${payload.notificationId}` } : {}),
      actions: payload.taskId !== null ? [PUSH_ACTIONS.complete, PUSH_ACTIONS.snooze] : [],
    },
  };
}

export async function showPush(scope: WorkerScope, text: string | null | undefined): Promise<void> {
  const { title, options } = notificationFor(readPayload(text));
  await scope.registration.showNotification(title, options);
}

async function call(scope: WorkerScope, method: string, path: string, body?: unknown): Promise<Response> {
  return scope.fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * 'Complete': the task's complete action (a recurring task moves to its next date). Where the server
 * has no such route yet (an older server answers 404 'Nothing is served…' or 405), PATCH
 * {completed: true}, as the card's toggle does.
 */
export async function completeTask(scope: WorkerScope, taskId: number): Promise<boolean> {
  const response = await call(scope, 'POST', `/api/tasks/${taskId}/complete`, {});
  if (response.ok) return true;
  const noRoute =
    response.status === 405 ||
    (response.status === 404 && /Nothing is served/.test(await response.text().catch(() => '')));
  if (!noRoute) return false;
  return (await call(scope, 'PATCH', `/api/tasks/${taskId}`, { completed: true })).ok;
}

/** 'Snooze 1 hour': a reminder an hour from now. */
export async function snoozeTask(scope: WorkerScope, taskId: number, now = Date.now()): Promise<boolean> {
  const at = new Date(now + SNOOZE_MINUTES * 60_000).toISOString();
  return (await call(scope, 'POST', `/api/tasks/${taskId}/reminders`, { at })).ok;
}

/** Marks the notification read (best effort: the action itself is what counts). */
async function markRead(scope: WorkerScope, notificationId: number | null): Promise<void> {
  if (notificationId === null) return;
  await call(scope, 'POST', '/api/notifications/read', { ids: [notificationId] }).catch(() => undefined);
}

/**
 * Shows the task in the app: an open Tasklane tab is told to go there (no reload: a half-typed note
 * survives) and focused; with none, a new window opens at the task.
 */
export async function openTask(scope: WorkerScope, url: string): Promise<void> {
  const target = new URL(url, scope.location.origin);
  const windows = await scope.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).origin === scope.location.origin);
  if (open) {
    open.postMessage({ type: OPEN_TASK_MESSAGE, url: `${target.pathname}${target.search}` });
    await open.focus().catch(() => undefined);
    return;
  }
  await scope.clients.openWindow(target.href);
}

/**
 * A click on the notification (`action` '' for its body) or on one of its actions. An action that
 * fails (signed out, offline, no longer allowed) opens the task instead, where the person can see why.
 */
export async function handleNotificationClick(
  scope: WorkerScope,
  notification: WorkerNotification,
  action: string,
): Promise<void> {
  const payload = readPayload(JSON.stringify(notification.data ?? null));
  notification.close();
  if (
    payload.taskId !== null &&
    (action === PUSH_ACTIONS.complete.action || action === PUSH_ACTIONS.snooze.action)
  ) {
    const done = await (action === PUSH_ACTIONS.complete.action
      ? completeTask(scope, payload.taskId)
      : snoozeTask(scope, payload.taskId)
    ).catch(() => false);
    if (done) {
      await markRead(scope, payload.notificationId);
      return;
    }
    await openTask(scope, payload.url);
    return;
  }
  await markRead(scope, payload.notificationId);
  await openTask(scope, payload.url);
}
