import { useQueryClient } from '@tanstack/react-query';
import { CheckIcon, FileIcon, PaperclipIcon, XIcon } from 'lucide-react';
import {
  type CSSProperties,
  type DragEvent,
  type ReactNode,
  useCallback,
  useEffect,
  useRef,
  useState,
} from 'react';
import { formatFileSize } from '../../common/files';
import { ATTACHMENT_TYPES, ERRORS, LIMITS, TIMINGS } from '../../common/spec';
import { cn } from '../lib/cn';
import { Button } from '../ui/button';
import { toast } from '../ui/use-toast';
import { invalidateTaskFiles, uploadFiles } from './api';
import './celebration.css';

export interface TaskAttachments {
  /** The attachments field of the Add New Task form. */
  field: ReactNode;
  /** True while files are being uploaded (the form stays open and removal is disabled). */
  isUploading: boolean;
  /** Uploads the chosen files to the new task; resolves false when some failed (the hook shows the toast). */
  uploadFor(taskId: number): Promise<boolean>;
  reset(): void;
}

/** An attachment in the Add New Task form (spec §3). */
export interface Attachment {
  id: string;
  name: string;
  type: string;
  size: number;
  /** Object URL of an image, shown as a thumbnail; revoked when the attachment goes. */
  preview: string | null;
  uploadProgress: number;
  uploadStatus: 'pending' | 'uploading' | 'completed';
}

/** The simulated progress stays under this until the real upload answers (spec §4). */
const SIMULATED_PROGRESS_CAP = 95;
/** Once every file is up, the form waits this long so the celebration can be seen before it closes. */
const CELEBRATION_MS = 700;

const ALLOWED_TYPES: ReadonlySet<string> = new Set(ATTACHMENT_TYPES);
const isAllowed = (file: File) => ALLOWED_TYPES.has(file.type) && file.size <= LIMITS.attachmentMaxBytes;
const progressStep = () =>
  TIMINGS.attachmentProgressMinStep +
  Math.random() * (TIMINGS.attachmentProgressMaxStep - TIMINGS.attachmentProgressMinStep);

let lastId = 0;

/** Attachments in the Add New Task form (spec §4, §5): choose, preview, then upload to the new task. */
export function useTaskAttachments(): TaskAttachments {
  const queryClient = useQueryClient();
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [isUploading, setIsUploading] = useState(false);
  // Every change goes through `update`, so the ref is always the current list, even between renders.
  const current = useRef<Attachment[]>([]);
  const files = useRef(new Map<string, File>());
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());

  const update = useCallback((change: (list: Attachment[]) => Attachment[]) => {
    current.current = change(current.current);
    setAttachments(current.current);
  }, []);
  const patch = useCallback(
    (id: string, changes: (a: Attachment) => Partial<Attachment>) =>
      update((list) => list.map((a) => (a.id === id ? { ...a, ...changes(a) } : a))),
    [update],
  );

  const add = useCallback(
    (chosen: File[]) => {
      const room = LIMITS.attachmentMaxFiles - current.current.length;
      // Spec §5: wrong type or too large is skipped without a word; extras past the limit are dropped.
      const accepted = chosen.filter(isAllowed).slice(0, Math.max(0, room));
      const added = accepted.map((file): Attachment => {
        lastId += 1;
        const id = `attachment-${lastId}`;
        files.current.set(id, file);
        return {
          id,
          name: file.name,
          type: file.type,
          size: file.size,
          preview: file.type.startsWith('image/') ? URL.createObjectURL(file) : null,
          uploadProgress: 0,
          uploadStatus: 'pending',
        };
      });
      if (added.length > 0) update((list) => [...list, ...added]);
    },
    [update],
  );

  const remove = useCallback(
    (id: string) => {
      const attachment = current.current.find((a) => a.id === id);
      if (attachment?.uploadStatus !== 'pending') return;
      if (attachment.preview) URL.revokeObjectURL(attachment.preview);
      files.current.delete(id);
      update((list) => list.filter((a) => a.id !== id));
    },
    [update],
  );

  const clearTimers = useCallback(() => {
    for (const timer of timers.current) clearTimeout(timer);
    timers.current.clear();
  }, []);

  const reset = useCallback(() => {
    clearTimers();
    for (const a of current.current) if (a.preview) URL.revokeObjectURL(a.preview);
    files.current.clear();
    update(() => []);
    setIsUploading(false);
  }, [clearTimers, update]);

  useEffect(
    () => () => {
      clearTimers();
      for (const a of current.current) if (a.preview) URL.revokeObjectURL(a.preview);
    },
    [clearTimers],
  );

  const wait = useCallback(
    (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.current.delete(timer);
          resolve();
        }, ms);
        timers.current.add(timer);
      }),
    [],
  );

  /** One file: simulated progress (spec §4) while the real upload runs; true when it arrived. */
  const uploadOne = useCallback(
    async (taskId: number, attachment: Attachment, delayMs: number): Promise<boolean> => {
      await wait(delayMs);
      const file = files.current.get(attachment.id);
      if (!file) return true;
      patch(attachment.id, () => ({ uploadStatus: 'uploading', uploadProgress: 0 }));
      const ticker = setInterval(
        () =>
          patch(attachment.id, (a) => ({
            uploadProgress: Math.min(SIMULATED_PROGRESS_CAP, a.uploadProgress + progressStep()),
          })),
        TIMINGS.attachmentProgressStepMs,
      );
      timers.current.add(ticker);
      try {
        await uploadFiles(taskId, [file]);
        patch(attachment.id, () => ({ uploadStatus: 'completed', uploadProgress: 100 }));
        return true;
      } catch {
        patch(attachment.id, () => ({ uploadStatus: 'pending', uploadProgress: 0 }));
        return false;
      } finally {
        clearInterval(ticker);
        timers.current.delete(ticker);
      }
    },
    [patch, wait],
  );

  const uploadFor = useCallback(
    async (taskId: number): Promise<boolean> => {
      const pending = current.current.filter((a) => a.uploadStatus === 'pending');
      if (pending.length === 0) return true;
      setIsUploading(true);
      const results = await Promise.all(
        pending.map((a, i) => uploadOne(taskId, a, i * TIMINGS.attachmentStaggerMs)),
      );
      void invalidateTaskFiles(queryClient, taskId);
      const allArrived = results.every(Boolean);
      if (allArrived) await wait(CELEBRATION_MS);
      else toast({ variant: 'destructive', title: ERRORS.genericTitle, description: ERRORS.someFilesFailed });
      setIsUploading(false);
      return allArrived;
    },
    [queryClient, uploadOne, wait],
  );

  const field = (
    <AttachmentsField attachments={attachments} disabled={isUploading} onAdd={add} onRemove={remove} />
  );
  return { field, isUploading, uploadFor, reset };
}

function AttachmentsField({
  attachments,
  disabled,
  onAdd,
  onRemove,
}: {
  attachments: Attachment[];
  disabled: boolean;
  onAdd(files: File[]): void;
  onRemove(id: string): void;
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const full = attachments.length >= LIMITS.attachmentMaxFiles;
  const closed = disabled || full;

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (!closed) onAdd(Array.from(event.dataTransfer.files));
  };

  return (
    <fieldset className="grid gap-2">
      <legend className="mb-2 text-sm leading-none font-medium">Attachments</legend>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the drop target only adds to the button beside it. */}
      <div
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(!closed);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        className={cn(
          'flex flex-col items-center gap-2 rounded-lg border border-dashed px-4 py-4 text-center transition-colors',
          dragging ? 'border-primary bg-accent/60' : 'border-input',
        )}
      >
        <div className="flex flex-wrap items-center justify-center gap-2 text-sm text-muted-foreground">
          <span>Drop files here or</span>
          <Button variant="outline" size="sm" disabled={closed} onClick={() => inputRef.current?.click()}>
            <PaperclipIcon aria-hidden />
            Attach files
          </Button>
        </div>
        <p className="text-xs text-balance text-muted-foreground">
          Up to {LIMITS.attachmentMaxFiles} files of {formatFileSize(LIMITS.attachmentMaxBytes)} each: images,
          PDF, text, Word, Excel, MP4, MP3 or WAV.
        </p>
        <input
          ref={inputRef}
          type="file"
          name="files"
          multiple
          hidden
          tabIndex={-1}
          accept={ATTACHMENT_TYPES.join(',')}
          onChange={(event) => {
            onAdd(Array.from(event.target.files ?? []));
            event.target.value = '';
          }}
        />
      </div>
      {attachments.length > 0 && (
        <ul aria-label="Attached files" className="grid gap-2">
          {attachments.map((a) => (
            <AttachmentItem key={a.id} attachment={a} onRemove={() => onRemove(a.id)} />
          ))}
        </ul>
      )}
    </fieldset>
  );
}

function AttachmentItem({ attachment: a, onRemove }: { attachment: Attachment; onRemove(): void }) {
  return (
    <li className="flex items-center gap-3 rounded-md border bg-card px-2 py-2">
      <div className="relative size-10 shrink-0">
        <div className="grid size-full place-items-center overflow-hidden rounded bg-muted">
          {a.preview ? (
            <img src={a.preview} alt="" className="size-full object-cover" />
          ) : (
            <FileIcon aria-hidden className="size-5 text-muted-foreground" />
          )}
        </div>
        {a.uploadStatus === 'completed' && <Celebration />}
      </div>
      <div className="grid min-w-0 flex-1 gap-1">
        <div className="flex items-baseline justify-between gap-2">
          <span className="truncate text-sm" title={a.name}>
            {a.name}
          </span>
          <span className="shrink-0 text-xs text-muted-foreground">{formatFileSize(a.size)}</span>
        </div>
        <div
          role="progressbar"
          aria-label={`Upload of ${a.name}`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(a.uploadProgress)}
          className="h-1.5 overflow-hidden rounded-full bg-muted"
        >
          <div
            className={cn(
              'h-full rounded-full transition-[width] duration-150 ease-out',
              a.uploadStatus === 'completed' ? 'bg-emerald-500' : 'bg-primary',
            )}
            style={{ width: `${a.uploadProgress}%` }}
          />
        </div>
      </div>
      <Button
        variant="ghost"
        size="icon"
        className="size-8 text-muted-foreground hover:text-destructive"
        aria-label={`Remove ${a.name}`}
        disabled={a.uploadStatus !== 'pending'}
        onClick={onRemove}
      >
        <XIcon aria-hidden />
      </Button>
    </li>
  );
}

const SPARKS = Array.from({ length: 8 }, (_, i) => {
  const angle = (i / 8) * 2 * Math.PI;
  return { x: `${Math.round(Math.cos(angle) * 22)}px`, y: `${Math.round(Math.sin(angle) * 22)}px` };
});

/** A check mark that pops in with a ring of sparks (spec §4: a completed upload is celebrated). */
function Celebration() {
  return (
    <span className="absolute inset-0 grid place-items-center rounded bg-emerald-500/85">
      <CheckIcon aria-hidden strokeWidth={3} className="attachment-check size-5 text-white" />
      <span className="sr-only">Uploaded</span>
      {SPARKS.map((spark) => (
        <span
          key={`${spark.x}${spark.y}`}
          aria-hidden
          className="attachment-spark absolute top-1/2 left-1/2 size-1.5 rounded-full bg-amber-400"
          style={{ '--spark-x': spark.x, '--spark-y': spark.y } as CSSProperties}
        />
      ))}
    </span>
  );
}
