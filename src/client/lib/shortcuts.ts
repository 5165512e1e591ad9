/**
 * Every keyboard shortcut (issue 13), decided in one place: the app-wide listener
 * (app/KeyboardShortcuts.tsx), the focused task card (tasks/TaskCard.tsx) and the '?' help dialog
 * all read this module. Single keys fire only outside text fields and with no modifier held (Shift
 * only where named); the key combinations are Ctrl/Cmd+K and, on Upcoming's cards, Alt with the up
 * and down arrows (issue 23). 'g' then a letter goes to a screen (issue 21), read by shortcutReader.
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
  | 'delete'
  | 'go-inbox'
  | 'go-assigned'
  | 'go-today'
  | 'go-upcoming'
  | 'next-day'
  | 'previous-day'
  | 'nest'
  | 'unnest';

/** What the help dialog lists: the keys as shown, and what they do. */
export const SHORTCUT_LIST: readonly {
  scope: 'Anywhere' | 'On a focused task';
  keys: readonly string[];
  /** The keys one after the other ('g' then 'i'), not held together. */
  sequence?: boolean;
  label: string;
}[] = [
  { scope: 'Anywhere', keys: ['Ctrl', 'K'], label: 'Open the command palette (⌘ K on a Mac)' },
  { scope: 'Anywhere', keys: ['g', 'i'], sequence: true, label: 'Go to Your Tasks (your Inbox)' },
  { scope: 'Anywhere', keys: ['g', 'a'], sequence: true, label: 'Go to Assigned to me' },
  { scope: 'Anywhere', keys: ['g', 't'], sequence: true, label: 'Go to Today' },
  { scope: 'Anywhere', keys: ['g', 'u'], sequence: true, label: 'Go to Upcoming' },
  { scope: 'Anywhere', keys: ['?'], label: 'Show keyboard shortcuts' },
  { scope: 'Anywhere', keys: ['n'], label: 'New task' },
  { scope: 'Anywhere', keys: ['/'], label: 'Search tasks' },
  { scope: 'Anywhere', keys: ['j'], label: 'Focus the next task' },
  { scope: 'Anywhere', keys: ['k'], label: 'Focus the previous task' },
  { scope: 'On a focused task', keys: ['Enter'], label: 'Expand or collapse' },
  { scope: 'On a focused task', keys: ['e'], label: 'Edit the title' },
  { scope: 'On a focused task', keys: ['x'], label: 'Complete' },
  { scope: 'On a focused task', keys: ['Shift', 'Delete'], label: 'Delete' },
  {
    scope: 'On a focused task',
    keys: ['Ctrl', ']'],
    label: 'Make it a sub-task of the task above (⌘ ] on a Mac)',
  },
  { scope: 'On a focused task', keys: ['Ctrl', '['], label: 'Bring a sub-task out one level (⌘ [ on a Mac)' },
  { scope: 'On a focused task', keys: ['Alt', '↓'], label: 'Upcoming: move to the next day' },
  { scope: 'On a focused task', keys: ['Alt', '↑'], label: 'Upcoming: move to the day before' },
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

/** Two keys one after the other: the first, then the second within SEQUENCE_TIMEOUT_MS. */
const SEQUENCES: Record<string, Record<string, Shortcut>> = {
  g: { i: 'go-inbox', a: 'go-assigned', t: 'go-today', u: 'go-upcoming' },
};
export const SEQUENCE_TIMEOUT_MS = 1500;

type KeyPress = Pick<
  KeyboardEvent,
  'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey' | 'isComposing' | 'target' | 'repeat'
>;

/** A plain key press outside a text field: what single keys and sequences listen to. */
const isPlain = (event: KeyPress) =>
  !event.isComposing && !event.ctrlKey && !event.metaKey && !event.altKey && !isTyping(event.target);

/** The shortcut a key press asks for, or null; `prefix` is a sequence's first key, just pressed. */
export function shortcutFor(event: KeyPress, prefix: string | null = null): Shortcut | null {
  const { key } = event;
  if (event.isComposing) return null;
  if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && key.toLowerCase() === 'k')
    return event.repeat ? null : 'palette';
  // Issue 29: Ctrl+] / Cmd+] nests the focused card under the one above, Ctrl+[ / Cmd+[ brings it out.
  if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && (key === ']' || key === '['))
    return isTyping(event.target) ? null : key === ']' ? 'nest' : 'unnest';
  if (
    event.altKey &&
    !event.ctrlKey &&
    !event.metaKey &&
    !event.shiftKey &&
    !isTyping(event.target) &&
    (key === 'ArrowDown' || key === 'ArrowUp')
  ) {
    return key === 'ArrowDown' ? 'next-day' : 'previous-day';
  }
  if (!isPlain(event)) return null;
  // '?' needs Shift on many layouts and none on others.
  if (key === '?') return 'help';
  if (event.shiftKey) return key === 'Delete' && !event.repeat ? 'delete' : null;
  const second = prefix === null ? undefined : SEQUENCES[prefix]?.[key];
  return second ?? SINGLE_KEYS[key] ?? null;
}

/**
 * Reads key presses one after another, as the app-wide listener gets them: a sequence's first key
 * ('g') is remembered, and the next plain key within SEQUENCE_TIMEOUT_MS completes it.
 */
export function shortcutReader() {
  let prefix: { key: string; at: number } | null = null;
  return (event: KeyPress & Pick<KeyboardEvent, 'timeStamp'>): Shortcut | null => {
    const pending = prefix && event.timeStamp - prefix.at <= SEQUENCE_TIMEOUT_MS ? prefix.key : null;
    prefix = null;
    const shortcut = shortcutFor(event, pending);
    if (shortcut === null && event.key in SEQUENCES && isPlain(event) && !event.shiftKey) {
      prefix = { key: event.key, at: event.timeStamp };
    }
    return shortcut;
  };
}
