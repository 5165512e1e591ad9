import { lazy, useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { SEARCH_FIELD_ID, shortcutReader } from '../lib/shortcuts';
import { focusNeighbourCard } from '../tasks/card-focus';
import { LazyPart } from '../ui/lazy';
import { useOpenAddTask } from './add-task';
import { closeDialog, getDialogState, openDialog, useDialogState } from './dialogs';
import { SCREEN_PATHS } from './screens';

// Loaded on first use: most visits never open them (issue 13).
const CommandPalette = lazy(() => import('./CommandPalette').then((m) => ({ default: m.CommandPalette })));
const ShortcutsDialog = lazy(() => import('./ShortcutsDialog').then((m) => ({ default: m.ShortcutsDialog })));

/** Another dialog or a menu has the keys: its own keys (Escape, arrows, letters to jump) win. */
const IN_OVERLAY = '[role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"]';

/**
 * The app-wide keyboard shortcuts (issue 13; the keys are in lib/shortcuts.ts), the command palette
 * and the shortcuts dialog. The keys for a focused card are handled by the card itself.
 */
export function KeyboardShortcuts() {
  const [, navigate] = useLocation();
  const { open, mounted } = useDialogState();
  const openAddTask = useOpenAddTask();
  const [readShortcut] = useState(shortcutReader);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      const shortcut = readShortcut(event);
      if (!shortcut) return;
      const current = getDialogState().open;
      if (shortcut === 'palette') {
        if (current === 'palette') closeDialog('palette');
        else if (current === null && !document.querySelector(IN_OVERLAY)) openDialog('palette');
        else return;
        event.preventDefault();
        return;
      }
      const target = event.target instanceof Element ? event.target : null;
      if (current !== null || target?.closest(IN_OVERLAY)) return;
      switch (shortcut) {
        case 'help':
          openDialog('shortcuts');
          break;
        case 'new-task':
          openAddTask();
          break;
        case 'go-inbox':
          navigate(SCREEN_PATHS.inbox);
          break;
        case 'go-assigned':
          navigate(SCREEN_PATHS.assigned);
          break;
        case 'go-today':
          navigate(SCREEN_PATHS.today);
          break;
        case 'go-upcoming':
          navigate(SCREEN_PATHS.upcoming);
          break;
        case 'search':
          document.getElementById(SEARCH_FIELD_ID)?.focus();
          break;
        case 'next-card':
          focusNeighbourCard(1);
          break;
        case 'previous-card':
          focusNeighbourCard(-1);
          break;
        default:
          // The card's own keys, pressed elsewhere: nothing to do.
          return;
      }
      event.preventDefault();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [readShortcut, openAddTask, navigate]);

  return (
    <LazyPart>
      {mounted.has('palette') && <CommandPalette open={open === 'palette'} />}
      {mounted.has('shortcuts') && (
        <ShortcutsDialog
          open={open === 'shortcuts'}
          onOpenChange={(next) => (next ? openDialog('shortcuts') : closeDialog('shortcuts'))}
        />
      )}
    </LazyPart>
  );
}
