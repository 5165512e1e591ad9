import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import {
  handleNotificationClick,
  showPush,
  type WorkerNotification,
  type WorkerScope,
} from './notifications/worker';

/**
 * The service worker (decisions 020 and 036), built by vite-plugin-pwa (injectManifest): it precaches
 * the app shell as the generated worker did, and shows push notifications with their actions.
 */
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface PushEvent extends ExtendableEvent {
  data: { text(): string } | null;
}
interface NotificationEvent extends ExtendableEvent {
  notification: WorkerNotification;
  action: string;
}
declare const self: WorkerScope &
  EventTarget & {
    __WB_MANIFEST: Array<string | { url: string; revision: string | null }>;
    skipWaiting(): Promise<void>;
  };

// By prompt (issue 31, decision 020 as changed): a new worker waits until the page's 'A new version
// is ready. Reload' asks it to take over (workbox-window's messageSkipWaiting). The first worker a
// browser installs has nothing to wait for and claims the open page at once.
self.addEventListener('message', (event) => {
  if ((event as MessageEvent).data?.type === 'SKIP_WAITING') void self.skipWaiting();
});
clientsClaim();

// The shell: index.html, the hashed JS and CSS, the icons. Nothing else is cached; /api/* is not
// routed, so it always goes to the network.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
// Client routes load the cached index.html; what the server answers as no page never does
// (src/server/http/routing.ts): the API, MCP, the probes, /assets/ and any path with a dot.
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('index.html'), {
    denylist: [/^\/(api|assets)(\/|$)/, /^\/(healthz|readyz|mcp)$/, /^[^?]*\./],
  }),
);

self.addEventListener('push', (event) => {
  const push = event as PushEvent;
  push.waitUntil(showPush(self, push.data?.text()));
});

self.addEventListener('notificationclick', (event) => {
  const click = event as NotificationEvent;
  click.waitUntil(handleNotificationClick(self, click.notification, click.action));
});
