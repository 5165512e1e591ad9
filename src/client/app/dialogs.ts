import { useSyncExternalStore } from 'react';
import { flushSync } from 'react-dom';

/**
 * The app-wide dialogs that more than one place opens (issue 13): the account menu and the command
 * palette open the same account dialogs; 'n', the palette and the Add Task button open Add Task; the
 * sidebar and the palette open New project, the project's header and the palette Share (issue 21).
 */
export type AppDialog =
  | 'add-task'
  | 'new-project'
  | 'new-from-template'
  | 'save-template'
  | 'share'
  | 'palette'
  | 'shortcuts'
  | 'users'
  | 'agents'
  | 'connect-ai'
  | 'faq'
  | 'password'
  | 'security'
  | 'integrations'
  | 'calendar'
  | 'export'
  | 'import'
  | 'notifications'
  | 'time-zone';

export type DialogState = {
  open: AppDialog | null;
  /** Opened at least once: a dialog stays mounted, so it can animate out and loads only once. */
  mounted: ReadonlySet<AppDialog>;
  /**
   * Where focus goes when the open dialog closes, when its opener cannot take it back itself (a menu
   * item that has gone). Null: the dialog returns focus to what had it when it opened.
   */
  returnTo: HTMLElement | null;
};

let state: DialogState = { open: null, mounted: new Set(), returnTo: null };
const listeners = new Set<() => void>();

function set(next: DialogState) {
  state = next;
  for (const listener of listeners) listener();
}

export function openDialog(dialog: AppDialog, returnTo: HTMLElement | null = null): void {
  const mounted = state.mounted.has(dialog) ? state.mounted : new Set(state.mounted).add(dialog);
  set({ open: dialog, mounted, returnTo });
}

/** Closes `dialog` if it is the open one; returns where focus should go, if anywhere in particular. */
export function closeDialog(dialog: AppDialog): HTMLElement | null {
  if (state.open !== dialog) return null;
  const { returnTo } = state;
  set({ ...state, open: null, returnTo: null });
  return returnTo;
}

export function getDialogState(): DialogState {
  return state;
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useDialogState(): DialogState {
  return useSyncExternalStore(subscribe, getDialogState);
}

/**
 * `open` and `onOpenChange` for an app-wide dialog. The control that opened it may be gone once it
 * closes (a menu item), so it cannot hand focus back by itself: once the dialog has closed (and
 * stopped trapping focus), focus goes where the opener asked.
 */
export function dialogControl(dialog: AppDialog, open: AppDialog | null) {
  return {
    open: open === dialog,
    onOpenChange: (next: boolean) => {
      if (next) return openDialog(dialog);
      let returnTo: HTMLElement | null = null;
      flushSync(() => {
        returnTo = closeDialog(dialog);
      });
      (returnTo as HTMLElement | null)?.focus();
    },
  };
}
