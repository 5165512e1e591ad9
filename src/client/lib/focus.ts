/**
 * Focus that has nowhere to be: on <body>, on an element that left the page, or on a button that has
 * just disabled itself (Chromium drops focus from it at the next frame). Issue 10: after an action,
 * focus goes where a person expects instead of falling to <body>.
 */
export function focusIsLost(within?: Element | null): boolean {
  const active = document.activeElement;
  if (!active || active === document.body || !active.isConnected) return true;
  if ((active as HTMLButtonElement | HTMLInputElement).disabled) return true;
  return within ? within.contains(active) : false;
}

/** Moves focus to `target` if focus is lost (or still inside `within`, which is going away). */
export function rescueFocus(target: HTMLElement | null | undefined, within?: Element | null): void {
  if (target?.isConnected && focusIsLost(within)) target.focus();
}

/**
 * rescueFocus at the next frame, once React has rendered what a mutation's settling changed (TanStack
 * Query tells components a task later): a button disabled while the call was pending is enabled again.
 */
export function rescueFocusAfterRender(
  target: () => HTMLElement | null | undefined,
  within?: Element | null,
) {
  requestAnimationFrame(() => rescueFocus(target(), within));
}
