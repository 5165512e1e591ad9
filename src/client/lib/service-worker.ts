/**
 * Registers the service worker that vite-plugin-pwa generates at build time (decision 020): it
 * precaches the app shell so the app opens offline; the API always goes to the network. It updates
 * itself (skipWaiting + clientsClaim) and never reloads an open page. Nothing in development (no
 * worker is built) or where the browser offers none (plain HTTP on another host than localhost).
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => {
      console.warn('Tasklane: the offline app shell is unavailable:', error);
    });
  });
}
