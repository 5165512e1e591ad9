import { DownloadIcon } from 'lucide-react';
import { EXPORT_PATH } from '../../common/data';
import { Button } from '../ui/button';
import {
  type ControlledDialogProps,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';

/** 'Export my data': plain links, since the session cookie is enough for a GET download. */
export function ExportDialog({ open, onOpenChange }: ControlledDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="gap-4 sm:max-w-md">
        <DialogHeader>
          <DialogTitle>Export my data</DialogTitle>
          <DialogDescription>
            JSON holds everything: tasks, archive, notes, drafts, checklists and agents, and imports back into
            Tasklane. CSV has one row per task, for spreadsheets.
          </DialogDescription>
        </DialogHeader>
        <div className="flex flex-wrap gap-2">
          <Button asChild>
            <a href={`${EXPORT_PATH}?format=json`} download>
              <DownloadIcon aria-hidden />
              Download JSON
            </a>
          </Button>
          <Button asChild variant="outline">
            <a href={`${EXPORT_PATH}?format=csv`} download>
              <DownloadIcon aria-hidden />
              Download CSV
            </a>
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}
