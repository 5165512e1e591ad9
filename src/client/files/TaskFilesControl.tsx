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
import { toast } from '../ui/use-toast';
import { downloadFile, useDeleteFile, useFileCounts, useTaskFiles, useUploadFiles } from './api';

/** The per-task files badge and its dropdown (spec §2 'Per-task files control'). */
export function TaskFilesControl({ taskId }: { taskId: number }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [open, setOpen] = useState(false);
  const counts = useFileCounts();
  const list = useTaskFiles(taskId, open);
  const files = list.data;
  const isLoading = counts.isLoading || (open && list.isLoading);
  const isError = counts.isError || list.isError;
  const upload = useUploadFiles(taskId);
  const remove = useDeleteFile(taskId);

  useEffect(() => {
    if (isError)
      toast({ variant: 'destructive', title: ERRORS.genericTitle, description: ERRORS.fetchFiles });
  }, [isError]);

  const onChosen = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = Array.from(event.target.files ?? []);
    // Cleared so that choosing the same file again is still a change.
    event.target.value = '';
    if (chosen.length > 0) upload.mutate(chosen);
  };

  const count = files?.length ?? counts.data?.[taskId] ?? 0;
  const label = isLoading ? COPY.loadingFiles : count > 0 ? COPY.fileCount(count) : COPY.noFiles;

  return (
    <>
      {/* Not modal: the menu stays open across a delete, and the toast it raises must not be hidden
          from assistive technology meanwhile, as a modal menu hides everything outside it. */}
      <DropdownMenu modal={false} open={open} onOpenChange={setOpen}>
        <DropdownMenuTrigger
          className={cn(
            badgeVariants({ variant: count > 0 ? 'secondary' : 'outline' }),
            'cursor-pointer font-normal outline-none hover:bg-accent hover:text-accent-foreground focus-visible:ring-2 focus-visible:ring-ring',
            count === 0 && 'text-muted-foreground',
          )}
        >
          {isLoading || upload.isPending ? (
            <Loader2Icon aria-hidden className="animate-spin" />
          ) : (
            <PaperclipIcon aria-hidden />
          )}
          {label}
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
