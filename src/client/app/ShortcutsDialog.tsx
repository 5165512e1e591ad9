import { Fragment } from 'react';
import { SHORTCUT_LIST } from '../lib/shortcuts';
import {
  type ControlledDialogProps,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';

const SCOPES = ['Anywhere', 'On a focused task'] as const;

/** The '?' dialog: every keyboard shortcut (issue 13), read from the one list in lib/shortcuts.ts. */
export function ShortcutsDialog({ open, onOpenChange }: ControlledDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-md">
        <DialogHeader>
          <DialogTitle>Keyboard shortcuts</DialogTitle>
          <DialogDescription>Single keys work when you are not typing in a field.</DialogDescription>
        </DialogHeader>
        {SCOPES.map((scope) => (
          <section key={scope} aria-labelledby={`shortcuts-${scope}`} className="grid gap-2">
            <h3 id={`shortcuts-${scope}`} className="text-sm font-medium">
              {scope}
            </h3>
            <dl className="grid gap-1.5 text-sm">
              {SHORTCUT_LIST.filter((shortcut) => shortcut.scope === scope).map(
                ({ keys, sequence, label }) => (
                  <div key={label} className="flex items-center justify-between gap-4">
                    <dt className="text-muted-foreground">{label}</dt>
                    <dd className="flex shrink-0 items-center gap-1">
                      {keys.map((key, index) => (
                        <Fragment key={key}>
                          {sequence && index > 0 && (
                            <span className="text-xs text-muted-foreground">then</span>
                          )}
                          <kbd className="min-w-6 rounded border bg-muted px-1.5 py-0.5 text-center font-mono text-xs text-foreground">
                            {key}
                          </kbd>
                        </Fragment>
                      ))}
                    </dd>
                  </div>
                ),
              )}
            </dl>
          </section>
        ))}
      </DialogContent>
    </Dialog>
  );
}
