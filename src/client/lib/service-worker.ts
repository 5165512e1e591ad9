import { useSyncExternalStore } from 'react';

/**
 * Registers the service worker that vite-plugin-pwa builds (decision 020): it precaches the app shell
 * so the app opens offline; the API always goes to the network. Nothing in development (no worker is
 * built) or where the browser offers none (plain HTTP on another host than localhost).
 *
 * Updates by prompt (issue 31): a new worker installs in the background and waits; the page then
 * offers 'A new version is ready. Reload' (ui/connection-notice.tsx). Choosing it tells the waiting
 * worker to take over and reloads once it does, so nobody's page changes under their hands.
 * workbox-window is loaded after the page's `load`, off the login screen's first bundle.
 */
const CHECK_EVERY_MS = 60 * 60 * 1000;

let ready = false;
let takeOver: (() => void) | undefined;
const listeners = new Set<() => void>();

function setReady(value: boolean) {
  if (ready === value) return;
  ready = value;
  for (const listener of listeners) listener();
}

export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  window.addEventListener('load', () => {
    void import('workbox-window')
      .then(async ({ Workbox }) => {
        const workbox = new Workbox('/sw.js', { scope: '/' });
        let asked = false;
        workbox.addEventListener('waiting', () => {
          takeOver = () => {
            asked = true;
            workbox.messageSkipWaiting();
          };
          setReady(true);
        });
        // Also when the worker first installs (clients.claim): only a take-over asked for reloads.
        workbox.addEventListener('controlling', () => {
          if (asked) window.location.reload();
        });
        await workbox.register();
        // A tab open for days still hears of a new version (the browser checks on navigations only).
        setInterval(() => void workbox.update().catch(() => undefined), CHECK_EVERY_MS);
      })
      .catch((error: unknown) => {
        console.warn('Tasklane: the offline app shell is unavailable:', error);
      });
  });
}

/** 'Reload': the waiting worker takes over, then the page reloads with the new version. */
export function applyNewVersion(): void {
  if (takeOver) takeOver();
  else window.location.reload();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A new version has installed and waits for the person's 'Reload'. */
export const useNewVersionReady = (): boolean => useSyncExternalStore(subscribe, () => ready);
