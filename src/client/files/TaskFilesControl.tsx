import { DownloadIcon, FileIcon, Loader2Icon, PaperclipIcon, Trash2Icon, UploadIcon } from 'lucide-react';
import { type ChangeEvent, useEffect, useRef, useState } from 'react';
import { formatFileSize, type TaskFile } from '../../common/files';
import { COPY, ERRORS } from '../../common/spec';
import { cn } from '../lib/cn';
import { isReconnecting } from '../lib/connection';
import { NeedsConnectionNote, useNeedsConnection } from '../offline/connection-status';
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
 * The per-task files badge and its dropdown (spec §2 'Per-task files control'). The menu is there from
 * the first render, so the badge under the pointer or focus is never swapped for another element; the
 * task's file list loads only while the menu is open, and the badge shows the shared counts meanwhile.
 */
export function TaskFilesControl({ taskId, readOnly = false }: { taskId: number; readOnly?: boolean }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [open, setOpen] = useState(false);
  // The hidden file input mounts once the menu has been opened (a collapsed card renders what it shows).
  const [used, setUsed] = useState(false);
  if (open && !used) setUsed(true);
  const counts = useFileCounts();
  const list = useTaskFiles(taskId, open);
  const upload = useUploadFiles(taskId);
  // Uploads need the server (issue 31).
  const uploading = useNeedsConnection();
  const remove = useDeleteFile(taskId);
  const files = list.data;

  useEffect(() => {
    // Every card watches the one counts query: its failure is told once, not once per card.
    // While the server is away, the reconnecting notice says so, once.
    if (counts.isError && counts.errorUpdatedAt !== countsFailureTold && !isReconnecting()) {
      countsFailureTold = counts.errorUpdatedAt;
      errorToast(ERRORS.fetchFiles);
    }
  }, [counts.isError, counts.errorUpdatedAt]);

  useEffect(() => {
    if (list.isError && !isReconnecting()) errorToast(ERRORS.fetchFiles);
  }, [list.isError]);

  const onChosen = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = Array.from(event.target.files ?? []);
    // Cleared so that choosing the same file again is still a change.
    event.target.value = '';
    if (chosen.length > 0) upload.mutate(chosen);
  };

  // While open, the list is fresh; closed, it is not refetched, and the shared counts are.
  const count = open && files ? files.length : (counts.data?.[taskId] ?? 0);
  const busy = counts.isLoading || (open && list.isLoading) || upload.isPending;

  return (
    <>
      {/* Not modal: the menu stays open across a delete, and the toast it raises must not be hidden
          from assistive technology meanwhile, as a modal menu hides everything outside it. */}
      <DropdownMenu modal={false} open={open} onOpenChange={setOpen}>
        <DropdownMenuTrigger className={badgeClass(count)}>
          <BadgeContent count={count} busy={busy} />
        </DropdownMenuTrigger>
        <DropdownMenuContent align="start" className="w-80 max-w-[calc(100vw-2rem)]">
          {/* A role that may not change tasks (issue 21) sees and downloads the files, no more. */}
          {readOnly ? (
            count === 0 && <p className="px-2 py-1.5 text-sm text-muted-foreground">{COPY.noFiles}</p>
          ) : (
            <DropdownMenuItem
              disabled={upload.isPending || uploading.offline}
              onSelect={() => inputRef.current?.click()}
            >
              <UploadIcon aria-hidden />
              {COPY.addFiles}
              {uploading.offline && <NeedsConnectionNote className="ml-auto" />}
            </DropdownMenuItem>
          )}
          {count > 0 && !readOnly && <DropdownMenuSeparator />}
          {files?.map((file) => (
            <FileRow
              key={file.id}
              file={file}
              deleting={remove.isPending && remove.variables?.id === file.id}
              onDelete={readOnly ? undefined : () => remove.mutate(file)}
            />
          ))}
        </DropdownMenuContent>
      </DropdownMenu>
      {used && (
        <input ref={inputRef} type="file" name="files" multiple hidden tabIndex={-1} onChange={onChosen} />
      )}
    </>
  );
}

const iconItem = 'size-8 shrink-0 justify-center p-0';

function FileRow({ file, deleting, onDelete }: { file: TaskFile; deleting: boolean; onDelete?: () => void }) {
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
      {onDelete && (
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
      )}
    </div>
  );
}
