import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  FILE_COUNTS_PATH,
  type FileCounts,
  fileDownloadPath,
  filePath,
  type TaskFile,
  taskFilesPath,
  UPLOAD_FIELD,
} from '../../common/files';
import { ERRORS, TOASTS } from '../../common/spec';
import { apiRequest, errorStatus, serverMessage } from '../lib/api';
import { toast } from '../ui/use-toast';

/** The query key is the list's URL, which the default query function GETs (spec §7). */
export const taskFilesKey = (taskId: number) => [taskFilesPath(taskId)] as const;

export const fileCountsKey = [FILE_COUNTS_PATH] as const;

/** A task's list, fetched when its menu opens: a thousand cards must not mean a thousand requests. */
export function useTaskFiles(taskId: number, enabled: boolean) {
  return useQuery<TaskFile[]>({ queryKey: taskFilesKey(taskId), enabled });
}

/** Every card's badge count, in one request. */
export function useFileCounts() {
  return useQuery<FileCounts>({ queryKey: fileCountsKey });
}

/** After an upload or a delete: the task's list and the badge counts. */
export function invalidateTaskFiles(queryClient: QueryClient, taskId: number): Promise<void> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: taskFilesKey(taskId) }),
    queryClient.invalidateQueries({ queryKey: fileCountsKey }),
  ]).then(() => undefined);
}

/** One multipart POST; the browser sets the boundary, apiRequest adds the session header. */
export async function uploadFiles(taskId: number, files: File[]): Promise<TaskFile[]> {
  const form = new FormData();
  for (const file of files) form.append(UPLOAD_FIELD, file, file.name);
  const res = await apiRequest('POST', taskFilesPath(taskId), form);
  return (await res.json()) as TaskFile[];
}

/** Spec §8: the catalogue's copy, then the server's own reason when it gave one (too large, say). */
function failureToast(title: string, copy: string, error: unknown): void {
  const reason = serverMessage(error);
  toast({
    variant: 'destructive',
    title,
    description: reason ? (
      <span className="grid gap-0.5">
        <span>{copy}</span>
        <span>{reason}</span>
      </span>
    ) : (
      copy
    ),
  });
}

export function useUploadFiles(taskId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (files: File[]) => uploadFiles(taskId, files),
    onMutate: (files) => {
      toast({ title: TOASTS.filesUploading, description: TOASTS.uploadingCount(files.length) });
    },
    onError: (error) => failureToast(ERRORS.uploadTitle, ERRORS.upload, error),
    onSettled: () => invalidateTaskFiles(queryClient, taskId),
  });
}

export function useDeleteFile(taskId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (file: TaskFile) => {
      await apiRequest('DELETE', filePath(file.id));
    },
    onSuccess: () => {
      const [title, description] = TOASTS.fileDeleted;
      toast({ title, description });
    },
    onError: (error) => failureToast(ERRORS.genericTitle, ERRORS.deleteFile, error),
    onSettled: () => invalidateTaskFiles(queryClient, taskId),
  });
}

/**
 * Fetches the bytes with the session (spec §7) and saves them under the original name. Fetched
 * rather than a plain link (the cookie alone would do) so that a failure can be told in a toast.
 */
export async function downloadFile(file: TaskFile): Promise<void> {
  const res = await apiRequest('GET', fileDownloadPath(file.id)).catch((error: unknown) => {
    const status = errorStatus(error);
    throw status === undefined ? error : new Error(ERRORS.downloadStatus(status));
  });
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = file.originalName;
  document.body.append(link);
  link.click();
  link.remove();
  // Some browsers read the blob after the click returns; a second is plenty for them to start.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
