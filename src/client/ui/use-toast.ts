import { type ReactNode, useSyncExternalStore } from 'react';
import { TIMINGS } from '../../common/spec';

/**
 * Toast state in the shadcn reducer pattern: a module-level store, so `toast()` works from anywhere
 * (mutation callbacks, plain functions), and <Toaster /> renders it.
 */

/** Spec §9: one toast visible at a time; a dismissed toast stays mounted (closed) this long. */
export const TOAST_LIMIT = TIMINGS.toastLimit;
export const TOAST_REMOVE_DELAY = TIMINGS.toastRemoveDelayMs;

export type ToastOptions = {
  title?: ReactNode;
  description?: ReactNode;
  variant?: 'default' | 'destructive';
  /** Milliseconds before it closes itself; the provider's default is spec §9's 5000. */
  duration?: number;
  /**
   * One button beside the text (issue 31: 'Use mine', 'Reload'); clicking it also closes the toast.
   * `altText` (default: the label) tells screen-reader users how to do the same without the toast.
   */
  action?: { label: string; altText?: string; onClick(): void };
};

export type ToasterToast = ToastOptions & { id: string; open: boolean };

export type ToastState = { toasts: ToasterToast[] };

export type ToastAction =
  | { type: 'ADD_TOAST'; toast: ToasterToast }
  | { type: 'DISMISS_TOAST'; toastId?: string }
  | { type: 'REMOVE_TOAST'; toastId?: string };

/** Pure: the newest toast first, at most TOAST_LIMIT; dismissing closes, removing forgets. */
export function toastReducer(state: ToastState, action: ToastAction): ToastState {
  switch (action.type) {
    case 'ADD_TOAST':
      return { toasts: [action.toast, ...state.toasts].slice(0, TOAST_LIMIT) };
    case 'DISMISS_TOAST':
      return {
        toasts: state.toasts.map((t) =>
          action.toastId === undefined || t.id === action.toastId ? { ...t, open: false } : t,
        ),
      };
    case 'REMOVE_TOAST':
      return {
        toasts: action.toastId === undefined ? [] : state.toasts.filter((t) => t.id !== action.toastId),
      };
  }
}

let state: ToastState = { toasts: [] };
const listeners = new Set<() => void>();
const removalTimers = new Map<string, ReturnType<typeof setTimeout>>();
let lastId = 0;

function dispatch(action: ToastAction): void {
  state = toastReducer(state, action);
  for (const listener of listeners) listener();
}

function scheduleRemoval(id: string): void {
  if (removalTimers.has(id)) return;
  removalTimers.set(
    id,
    setTimeout(() => {
      removalTimers.delete(id);
      dispatch({ type: 'REMOVE_TOAST', toastId: id });
    }, TOAST_REMOVE_DELAY),
  );
}

/** Closes one toast, or all of them without an id. */
export function dismissToast(toastId?: string): void {
  for (const t of state.toasts) if (toastId === undefined || t.id === toastId) scheduleRemoval(t.id);
  dispatch({ type: 'DISMISS_TOAST', toastId });
}

/** Shows a toast, replacing the one on screen. */
export function toast(options: ToastOptions): { id: string; dismiss: () => void } {
  lastId = (lastId + 1) % Number.MAX_SAFE_INTEGER;
  const id = String(lastId);
  dispatch({ type: 'ADD_TOAST', toast: { ...options, id, open: true } });
  return { id, dismiss: () => dismissToast(id) };
}

/** The toasts open now: on screen, or waiting for the toast list to load. */
export const openToasts = (): ToasterToast[] => state.toasts.filter((t) => t.open);

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useToast() {
  const { toasts } = useSyncExternalStore(subscribe, () => state);
  return { toasts, toast, dismiss: dismissToast };
}
