/**
 * Escapes a toast let through to the dialog under it (issue 20). Radix lets only the newest layer
 * hear Escape, and a toast is one: raised inside a dialog, it took the dialog's Escape. A toast now
 * closes on Escape only from inside it (Toast) and marks any other Escape as passed on; the dialog
 * with the focus closes on one (DialogContent). A module of its own, so dialogs need not load Radix
 * Toast, which comes with the first toast.
 */
const passed = new WeakSet<Event>();

export function passEscapeOn(event: KeyboardEvent) {
  passed.add(event);
}

export function escapePassedOn(event: Event): boolean {
  return passed.has(event);
}
