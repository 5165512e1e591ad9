import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { DATA_LIMITS, type ImportError } from '../../common/data';
import { counted } from '../../common/plural';
import { ARCHIVED_TASKS_PATH, TASKS_PATH } from '../../common/tasks';
import { errorMessage } from '../lib/api';
import { Button } from '../ui/button';
import {
  type ControlledDialogProps,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';
import { toast } from '../ui/use-toast';
import { type ImportOutcome, importFile } from './api';

const LINES_SHOWN = 5;

/** Rows the preview names with their line: errors (left out) or notices (something lost). */
function RowMessages({ items, className = '' }: { items: ImportError[]; className?: string }) {
  if (items.length === 0) return null;
  const more = items.length - LINES_SHOWN;
  return (
    <ul className={`grid gap-1 text-sm ${className}`}>
      {items.slice(0, LINES_SHOWN).map((item) => (
        <li key={`${item.row}-${item.message}`}>
          Line {item.row}: {item.message}
        </li>
      ))}
      {more > 0 && (
        // The server lists at most DATA_LIMITS.errorsListed of each: past that, the count is unknown.
        <li>
          and{' '}
          {items.length < DATA_LIMITS.errorsListed ? counted(more, 'more line', 'more lines') : 'more lines'}
        </li>
      )}
    </ul>
  );
}

/** 'Import tasks': pick a file, see what would be imported (a dry run), then import it. */
export function ImportDialog({ open, onOpenChange }: ControlledDialogProps) {
  const queryClient = useQueryClient();
  const inputId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<ImportOutcome | null>(null);
  const [busy, setBusy] = useState(false);

  const choose = async (chosen: File | null) => {
    setFile(chosen);
    setPreview(null);
    if (!chosen) return;
    setBusy(true);
    try {
      setPreview(await importFile(chosen, true));
    } catch (error) {
      toast({ title: errorMessage(error, 'Could not read the file.'), variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  const run = async () => {
    if (!file) return;
    setBusy(true);
    try {
      const outcome = await importFile(file, false);
      if (!outcome.ok) return setPreview(outcome);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: [TASKS_PATH] }),
        queryClient.invalidateQueries({ queryKey: [ARCHIVED_TASKS_PATH] }),
      ]);
      toast({ title: `Imported ${counted(outcome.result.imported, 'task', 'tasks')}` });
      setFile(null);
      setPreview(null);
      onOpenChange(false);
    } catch (error) {
      toast({ title: errorMessage(error, 'Could not import the file.'), variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="gap-4 sm:max-w-lg">
        <DialogHeader>
          <DialogTitle>Import tasks</DialogTitle>
          <DialogDescription>
            A Tasklane export (JSON or CSV) or Todoist's CSV export. The tasks go on top of your list.
          </DialogDescription>
        </DialogHeader>
        <div className="grid gap-2">
          <label htmlFor={inputId} className="text-sm font-medium">
            File to import
          </label>
          <input
            id={inputId}
            type="file"
            accept=".csv,.json,text/csv,application/json"
            className="text-sm"
            onChange={(event) => void choose(event.currentTarget.files?.[0] ?? null)}
          />
        </div>
        {preview && (
          <div role="status" className="grid gap-2 rounded-lg border px-4 py-3">
            {preview.ok ? (
              <p className="text-sm">
                {counted(preview.result.imported, 'task', 'tasks')} to import,{' '}
                {counted(preview.result.skipped, 'row', 'rows')} skipped.
              </p>
            ) : (
              <p className="text-sm font-medium">This file cannot be imported.</p>
            )}
            <RowMessages
              items={(preview.ok ? preview.result.errors : preview.failure.errors) ?? []}
              className="text-destructive"
            />
            {preview.ok && <RowMessages items={preview.result.notices} />}
          </div>
        )}
        <div>
          <Button
            type="button"
            disabled={busy || !preview?.ok || preview.result.imported === 0}
            onClick={() => void run()}
          >
            Import
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}
