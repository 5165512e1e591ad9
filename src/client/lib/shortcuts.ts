/**
 * Every keyboard shortcut (issue 13), decided in one place: the app-wide listener
 * (app/KeyboardShortcuts.tsx), the focused task card (tasks/TaskCard.tsx) and the '?' help dialog
 * all read this module. Single keys fire only outside text fields and with no modifier held (Shift
 * only where named); Ctrl/Cmd+K is the only key combination.
 */

export type Shortcut =
  | 'palette'
  | 'help'
  | 'new-task'
  | 'search'
  | 'next-card'
  | 'previous-card'
  | 'expand'
  | 'edit-title'
  | 'complete'
  | 'delete';

/** What the help dialog lists: the keys as shown, and what they do. */
export const SHORTCUT_LIST: readonly {
  scope: 'Anywhere' | 'On a focused task';
  keys: readonly string[];
  label: string;
}[] = [
  { scope: 'Anywhere', keys: ['Ctrl', 'K'], label: 'Open the command palette (⌘ K on a Mac)' },
  { scope: 'Anywhere', keys: ['?'], label: 'Show keyboard shortcuts' },
  { scope: 'Anywhere', keys: ['n'], label: 'New task' },
  { scope: 'Anywhere', keys: ['/'], label: 'Search tasks' },
  { scope: 'Anywhere', keys: ['j'], label: 'Focus the next task' },
  { scope: 'Anywhere', keys: ['k'], label: 'Focus the previous task' },
  { scope: 'On a focused task', keys: ['Enter'], label: 'Expand or collapse' },
  { scope: 'On a focused task', keys: ['e'], label: 'Edit the title' },
  { scope: 'On a focused task', keys: ['x'], label: 'Complete' },
  { scope: 'On a focused task', keys: ['Shift', 'Delete'], label: 'Delete' },
];

/** The search field's id: '/' focuses it from anywhere outside a text field. */
export const SEARCH_FIELD_ID = 'task-search';

/** Whether a key press is typing into a field (where single-key shortcuts must stay quiet). */
export const isTyping = (target: EventTarget | null): boolean =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

const SINGLE_KEYS: Record<string, Shortcut> = {
  n: 'new-task',
  '/': 'search',
  j: 'next-card',
  k: 'previous-card',
  Enter: 'expand',
  e: 'edit-title',
  x: 'complete',
};

/** The shortcut a key press asks for, or null. */
export function shortcutFor(
  event: Pick<
    KeyboardEvent,
    'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey' | 'isComposing' | 'target' | 'repeat'
  >,
): Shortcut | null {
  const { key } = event;
  if (event.isComposing) return null;
  if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && key.toLowerCase() === 'k')
    return event.repeat ? null : 'palette';
  if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return null;
  // '?' needs Shift on many layouts and none on others.
  if (key === '?') return 'help';
  if (event.shiftKey) return key === 'Delete' && !event.repeat ? 'delete' : null;
  return SINGLE_KEYS[key] ?? null;
}
