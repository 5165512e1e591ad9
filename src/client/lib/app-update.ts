import { useSyncExternalStore } from 'react';
import { openToasts, type ToastOptions, toast } from '../ui/use-toast';
import { isOffline } from './connection';

/**
 * A page left open across a new build or an upgrade (issue 28, decision 048). Its lazily loaded
 * scripts carry its own build's names; the server keeps earlier builds' assets for a while, but once
 * one is gone, its import fails and Vite raises `vite:preloadError`. The page then reloads itself at
 * a safe moment: no dialog or menu open, no text field focused, and no words typed into a field still
 * on the page, so nobody loses what they are writing. Until then a notice says why. The failed
 * import is left to fail (no preventDefault, which would hand its caller an undefined module): each
 * lazy part shows nothing (ui/lazy.tsx) and quick add saves without its date reader.
 * A toast the page could not show is shown after the reload.
 */

export const UPDATE_COPY = {
  notice: 'Tasklane has been updated',
  whenSafe: 'this page reloads when you finish typing',
  reload: 'Reload now',
  pageFailed: 'This page could not be shown.',
} as const;

/** 'current': nothing to do; 'waiting': reloads at the next safe moment; 'stuck': only by hand. */
export type UpdateState = 'current' | 'waiting' | 'stuck';

const STORAGE_KEY = 'tasklane.reloadedForUpdate';
/** A page that reloaded for an update this recently and still misses a script is not reloaded again by itself. */
const NO_LOOP_MS = 60_000;
const CHECK_EVERY_MS = 1000;

interface Carried {
  at: number;
  toasts: ToastOptions[];
}

let state: UpdateState = 'current';
let reloadedAt: number | undefined;
const listeners = new Set<() => void>();
/** Text fields the person typed into: words left in one that is still on the page hold the reload. */
const typedInto = new Set<Element>();

function setState(next: UpdateState) {
  state = next;
  for (const listener of listeners) listener();
}

/** Open dialogs, menus and lists: something is being chosen or written there. */
const OPEN_LAYER = '[role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"], dialog[open]';
const NOT_TEXT = new Set([
  'button',
  'checkbox',
  'color',
  'file',
  'hidden',
  'image',
  'radio',
  'range',
  'reset',
  'submit',
]);

function takesText(element: Element | null): element is HTMLElement {
  if (element instanceof HTMLTextAreaElement) return true;
  if (element instanceof HTMLInputElement) return !NOT_TEXT.has(element.type);
  return element instanceof HTMLElement && element.isContentEditable;
}

const wordsIn = (element: HTMLElement) =>
  element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement
    ? element.value
    : (element.textContent ?? '');

/** Whether reloading now loses nothing the person is doing. */
function safeToReload(): boolean {
  if (document.querySelector(OPEN_LAYER)) return false;
  if (takesText(document.activeElement)) return false;
  for (const field of typedInto) {
    if (field.isConnected && takesText(field) && wordsIn(field).trim() !== '') return false;
  }
  return true;
}

/** Reloads, carrying the toasts on screen or never shown (their words; an action such as Undo cannot follow). */
export function reloadNow(): void {
  const toasts = openToasts()
    .filter(
      (t) =>
        typeof t.title === 'string' && (t.description === undefined || typeof t.description === 'string'),
    )
    .map(({ title, description, variant, duration }) => ({ title, description, variant, duration }));
  const carried: Carried = { at: Date.now(), toasts };
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(carried));
  } catch {
    // Storage refused (private mode, full): the reload matters more than the toast.
  }
  window.location.reload();
}

function takeCarried(): Carried | undefined {
  try {
    const saved = sessionStorage.getItem(STORAGE_KEY);
    sessionStorage.removeItem(STORAGE_KEY);
    return saved ? (JSON.parse(saved) as Carried) : undefined;
  } catch {
    return undefined;
  }
}

function waitForSafeMoment() {
  const check = () => {
    if (safeToReload()) reloadNow();
  };
  // After the event has done its work (focus moved, a dialog began to close); the interval catches
  // what no event announces (a dialog's closing animation ending, a field emptied by the app).
  const soon = () => setTimeout(check, 0);
  document.addEventListener('focusout', soon);
  document.addEventListener('visibilitychange', soon);
  setInterval(check, CHECK_EVERY_MS);
  soon();
}

/**
 * A script of this page's build could not be loaded. Vite says so with vite:preloadError; code that
 * catches an import's failure itself calls this, since Vite then raises nothing (it moves the
 * import's own .then/.catch inside the wrapper that raises the event).
 */
export function scriptNotLoaded(): void {
  // Offline, a script the service worker has not cached fails for want of a network, not because
  // the build changed: a reload would only show the browser's offline page (issue 31).
  if (state !== 'current' || isOffline()) return;
  if (reloadedAt !== undefined && Date.now() - reloadedAt < NO_LOOP_MS) {
    setState('stuck');
    return;
  }
  setState('waiting');
  waitForSafeMoment();
}

/** Called once at start-up (main.tsx), before the first render. */
export function watchForNewBuild(): void {
  const carried = takeCarried();
  reloadedAt = carried?.at;
  for (const options of carried?.toasts ?? []) toast(options);
  window.addEventListener('vite:preloadError', scriptNotLoaded);
  document.addEventListener('input', (event) => {
    if (!(event.target instanceof Element) || !takesText(event.target)) return;
    // Fields gone from the page (an editor closed) are let go, and their detached trees with them.
    for (const field of typedInto) if (!field.isConnected) typedInto.delete(field);
    typedInto.add(event.target);
  });
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const useUpdateState = (): UpdateState => useSyncExternalStore(subscribe, () => state);
