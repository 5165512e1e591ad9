import { DownloadIcon, FileIcon, Loader2Icon, PaperclipIcon, Trash2Icon, UploadIcon } from 'lucide-react';
import { type ChangeEvent, useEffect, useRef, useState } from 'react';
import { formatFileSize, type TaskFile } from '../../common/files';
import { COPY, ERRORS } from '../../common/spec';
import { cn } from '../lib/cn';
import { badgeVariants } from '../ui/badge';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '../ui/dropdown-menu';
import { errorToast } from '../ui/toasts';
import { toast } from '../ui/use-toast';
import { downloadFile, useDeleteFile, useFileCounts, useTaskFiles, useUploadFiles } from './api';

const badgeClass = (count: number) =>
  cn(
    badgeVariants({ variant: count > 0 ? 'secondary' : 'outline' }),
    'cursor-pointer font-normal outline-none hover:bg-accent hover:text-accent-foreground focus-visible:ring-2 focus-visible:ring-ring',
    count === 0 && 'text-muted-foreground',
  );

function BadgeContent({ count, busy }: { count: number; busy: boolean }) {
  return (
    <>
      {busy ? <Loader2Icon aria-hidden className="animate-spin" /> : <PaperclipIcon aria-hidden />}
      {busy ? COPY.loadingFiles : count > 0 ? COPY.fileCount(count) : COPY.noFiles}
    </>
  );
}

let countsFailureTold = 0;

/**
 * The per-task files badge and its dropdown (spec §2 'Per-task files control'). Until first used, the
 * badge is a plain button: a menu on each of a thousand cards doubled the time the list took to appear.
 */
export function TaskFilesControl({ taskId }: { taskId: number }) {
  const [armed, setArmed] = useState(false);
  const counts = useFileCounts();
  const count = counts.data?.[taskId] ?? 0;

  useEffect(() => {
    // Every card watches the one counts query: its failure is told once, not once per card.
    if (counts.isError && counts.errorUpdatedAt !== countsFailureTold) {
      countsFailureTold = counts.errorUpdatedAt;
      errorToast(ERRORS.fetchFiles);
    }
  }, [counts.isError, counts.errorUpdatedAt]);

  if (armed) return <FilesMenu taskId={taskId} count={count} countsLoading={counts.isLoading} />;
  return (
    <button
      type="button"
      className={badgeClass(count)}
      // Swapped for the menu on click, once the press is over: swapped mid-press, the browser would
      // move focus off the vanished button and so dismiss the menu that had just opened.
      onClick={() => setArmed(true)}
    >
      <BadgeContent count={count} busy={counts.isLoading} />
    </button>
  );
}

function FilesMenu({
  taskId,
  count: countedBefore,
  countsLoading,
}: {
  taskId: number;
  count: number;
  countsLoading: boolean;
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [open, setOpen] = useState(true);
  const list = useTaskFiles(taskId, open);
  const upload = useUploadFiles(taskId);
  const remove = useDeleteFile(taskId);
  const files = list.data;

  useEffect(() => {
    if (list.isError) errorToast(ERRORS.fetchFiles);
  }, [list.isError]);

  const onChosen = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = Array.from(event.target.files ?? []);
    // Cleared so that choosing the same file again is still a change.
    event.target.value = '';
    if (chosen.length > 0) upload.mutate(chosen);
  };

  // While open, the list is fresh; closed, it is not refetched, and the shared counts are.
  const count = open && files ? files.length : countedBefore;
  const busy = countsLoading || (open && list.isLoading) || upload.isPending;

  return (
    <>
      {/* Not modal: the menu stays open across a delete, and the toast it raises must not be hidden
          from assistive technology meanwhile, as a modal menu hides everything outside it. */}
      <DropdownMenu modal={false} open={open} onOpenChange={setOpen}>
        <DropdownMenuTrigger className={badgeClass(count)}>
          <BadgeContent count={count} busy={busy} />
        </DropdownMenuTrigger>
        <DropdownMenuContent align="start" className="w-80 max-w-[calc(100vw-2rem)]">
          <DropdownMenuItem disabled={upload.isPending} onSelect={() => inputRef.current?.click()}>
            <UploadIcon aria-hidden />
            {COPY.addFiles}
          </DropdownMenuItem>
          {count > 0 && <DropdownMenuSeparator />}
          {files?.map((file) => (
            <FileRow
              key={file.id}
              file={file}
              deleting={remove.isPending && remove.variables?.id === file.id}
              onDelete={() => remove.mutate(file)}
            />
          ))}
        </DropdownMenuContent>
      </DropdownMenu>
      <input ref={inputRef} type="file" multiple hidden tabIndex={-1} onChange={onChosen} />
    </>
  );
}

const iconItem = 'size-8 shrink-0 justify-center p-0';

function FileRow({ file, deleting, onDelete }: { file: TaskFile; deleting: boolean; onDelete(): void }) {
  const download = () =>
    downloadFile(file).catch(() =>
      toast({ variant: 'destructive', title: ERRORS.downloadTitle, description: ERRORS.download }),
    );
  return (
    <div className="flex items-center gap-2 py-0.5 pr-0.5 pl-2">
      <FileIcon aria-hidden className="size-4 shrink-0 text-muted-foreground" />
      <div className="min-w-0 flex-1">
        <p className="truncate text-sm" title={file.originalName}>
          {file.originalName}
        </p>
        <p className="text-xs text-muted-foreground">{formatFileSize(file.fileSize)}</p>
      </div>
      <DropdownMenuItem
        aria-label={`Download ${file.originalName}`}
        className={iconItem}
        onSelect={() => void download()}
      >
        <DownloadIcon aria-hidden />
      </DropdownMenuItem>
      <DropdownMenuItem
        variant="destructive"
        aria-label={`Delete ${file.originalName}`}
        className={iconItem}
        disabled={deleting}
        // The menu stays open, so the person sees the file leave the list.
        onSelect={(event) => {
          event.preventDefault();
          onDelete();
        }}
      >
        <Trash2Icon aria-hidden />
      </DropdownMenuItem>
    </div>
  );
}
