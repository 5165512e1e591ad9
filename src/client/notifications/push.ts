import type { PushPublicKey } from '../../common/push';
import { PUSH_PATHS } from '../../common/push-notification';
import { apiRequest } from '../lib/api';

/**
 * This browser's Web Push subscription (issue 22, decision 036). Permission is asked only when the
 * person presses 'Enable notifications on this device'.
 */

export type DeviceState = 'unsupported' | 'blocked' | 'off' | 'on';

export class PushPermissionError extends Error {
  constructor(readonly permission: NotificationPermission) {
    super(`Notification permission: ${permission}`);
  }
}

/** Web Push needs a secure context, a service worker, the Push API and notifications. */
export function pushSupported(): boolean {
  return (
    typeof window !== 'undefined' &&
    window.isSecureContext &&
    'serviceWorker' in navigator &&
    'PushManager' in window &&
    'Notification' in window
  );
}

async function registration(): Promise<ServiceWorkerRegistration | undefined> {
  if (!pushSupported()) return undefined;
  return (await navigator.serviceWorker.getRegistration('/')) ?? undefined;
}

export async function currentSubscription(): Promise<PushSubscription | null> {
  return (await (await registration())?.pushManager.getSubscription()) ?? null;
}

export async function deviceState(): Promise<DeviceState> {
  if (!pushSupported() || !(await registration())) return 'unsupported';
  if (Notification.permission === 'denied') return 'blocked';
  return Notification.permission === 'granted' && (await currentSubscription()) ? 'on' : 'off';
}

const fromBase64url = (text: string) => {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
};

const sameKey = (a: ArrayBuffer | null, b: Uint8Array) => {
  if (!a || a.byteLength !== b.byteLength) return false;
  const view = new Uint8Array(a);
  return view.every((byte, i) => byte === b[i]);
};

/**
 * Asks for permission (the browser's own prompt), subscribes with the server's public key (again,
 * when an old subscription was made with another key) and gives the server the subscription.
 */
export async function enablePush(): Promise<void> {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new PushPermissionError(permission);
  await subscribeAndSend();
}

/** Subscribes (anew when the server's key changed) and gives the server the subscription. */
async function subscribeAndSend(): Promise<void> {
  const worker = await registration();
  if (!worker) throw new Error('No service worker');
  const response = await apiRequest('GET', PUSH_PATHS.publicKey);
  const key = fromBase64url(((await response.json()) as PushPublicKey).publicKey);
  let subscription = await worker.pushManager.getSubscription();
  if (subscription && !sameKey(subscription.options.applicationServerKey, key)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  await apiRequest('POST', PUSH_PATHS.subscriptions, subscription.toJSON());
}

/** Stops push to this browser: the server forgets it, and the browser drops the subscription. */
export async function disablePush(): Promise<void> {
  const subscription = await currentSubscription();
  if (!subscription) return;
  await apiRequest('DELETE', PUSH_PATHS.subscriptions, { endpoint: subscription.endpoint });
  await subscription.unsubscribe();
}

/**
 * On start, signed in: a subscription this browser already has is given to the server again (made
 * anew if the server's key changed), so it holds after a restored backup, a new key pair or a server
 * that forgot it. Nothing is asked of the person: only where they enabled push before.
 */
export async function resendSubscription(): Promise<void> {
  if (!pushSupported() || Notification.permission !== 'granted') return;
  if (await currentSubscription()) await subscribeAndSend();
}
