import { describe, expect, it } from 'vitest';
import { OPEN_TASK_MESSAGE, type PushPayload } from '../../common/push-notification';
import { handleNotificationClick, notificationFor, readPayload, type WorkerScope } from './worker';

const payload: PushPayload = {
  title: 'Pay rent',
  body: 'Reminder',
  taskId: 7,
  notificationId: 11,
  url: '/projects/3?task=7',
};

/** A worker scope that records its calls; `answers` maps 'METHOD path' to a status. */
function fakeScope(answers: Record<string, [number, string?]>, windows: string[] = []) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  const posted: unknown[] = [];
  const opened: string[] = [];
  const scope: WorkerScope = {
    location: { origin: 'https://tasks.example.com' },
    registration: { showNotification: async () => undefined },
    clients: {
      matchAll: async () =>
        windows.map((url) => ({
          url,
          focus: async () => undefined,
          postMessage: (message: unknown) => posted.push(message),
        })),
      openWindow: async (url: string) => opened.push(url),
    },
    fetch: (async (path: string, init: RequestInit) => {
      const method = init.method ?? 'GET';
      calls.push({ method, path, body: init.body ? JSON.parse(String(init.body)) : undefined });
      const [status, text] = answers[`${method} ${path}`] ?? [200];
      return new Response(status === 204 ? null : (text ?? '{}'), { status });
    }) as typeof fetch,
  };
  return { scope, calls, posted, opened };
}

const notification = () => ({ data: payload, closed: false, close() {} });

describe('the service worker', () => {
  it('shows the task title and body, with Complete and Snooze 1 hour, tagged by notification', () => {
    const { title, options } = notificationFor(readPayload(JSON.stringify(payload)));
    expect(title).toBe('Pay rent');
    expect(options).toMatchObject({
      body: 'Reminder',
      tag: 'notification-11',
      data: payload,
      actions: [
        { action: 'complete', title: 'Complete' },
        { action: 'snooze', title: 'Snooze 1 hour' },
      ],
    });
    expect(readPayload('not json')).toMatchObject({ title: 'Tasklane', body: 'not json', url: '/' });
    expect(readPayload(JSON.stringify({ ...payload, url: 'https://evil.example/x?task=1' })).url).toBe(
      '/x?task=1',
    );
    expect(readPayload(JSON.stringify({ ...payload, url: 'javascript:alert(1)' })).url).toBe('/');
    expect(readPayload(JSON.stringify({ ...payload, url: 'http://localhost:3000/?task=7' })).url).toBe(
      '/?task=7',
    );
  });

  it('Complete posts the complete action and marks the notification read, opening nothing', async () => {
    const { scope, calls, opened, posted } = fakeScope({});
    await handleNotificationClick(scope, notification(), 'complete');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /api/tasks/7/complete',
      'POST /api/notifications/read',
    ]);
    expect(calls[1]?.body).toEqual({ ids: [11] });
    expect([...opened, ...posted]).toEqual([]);
  });

  it('Complete falls back to PATCH {completed: true} on a server without the route', async () => {
    const { scope, calls } = fakeScope({
      'POST /api/tasks/7/complete': [404, '{"message":"Nothing is served at this address."}'],
    });
    await handleNotificationClick(scope, notification(), 'complete');
    expect(calls.map((c) => `${c.method} ${c.path}`).slice(0, 2)).toEqual([
      'POST /api/tasks/7/complete',
      'PATCH /api/tasks/7',
    ]);
    expect(calls[1]?.body).toEqual({ completed: true });
  });

  it('Snooze 1 hour adds a reminder an hour from now', async () => {
    const { scope, calls } = fakeScope({});
    const before = Date.now();
    await handleNotificationClick(scope, notification(), 'snooze');
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/api/tasks/7/reminders' });
    const at = Date.parse((calls[0]!.body as { at: string }).at);
    expect(at - before).toBeGreaterThanOrEqual(60 * 60_000);
    expect(at - Date.now()).toBeLessThanOrEqual(60 * 60_000);
  });

  it('an action that fails (signed out) opens the task instead', async () => {
    const { scope, opened } = fakeScope({
      'POST /api/tasks/7/complete': [401, '{"message":"Please sign in"}'],
    });
    await handleNotificationClick(scope, notification(), 'complete');
    expect(opened).toEqual(['https://tasks.example.com/projects/3?task=7']);
  });

  it('a click on the body tells an open tab to show the task, or opens one', async () => {
    const open = fakeScope({}, ['https://tasks.example.com/']);
    await handleNotificationClick(open.scope, notification(), '');
    expect(open.posted).toEqual([{ type: OPEN_TASK_MESSAGE, url: '/projects/3?task=7' }]);
    expect(open.opened).toEqual([]);
    const none = fakeScope({}, ['https://elsewhere.example/']);
    await handleNotificationClick(none.scope, notification(), '');
    expect(none.opened).toEqual(['https://tasks.example.com/projects/3?task=7']);
  });
});
