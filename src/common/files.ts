import { z } from 'zod';
import { binarySchema } from './api';
import { idParam } from './ids';
import { LIMITS } from './spec';

/** A file attached to a task, as the API returns it (spec §3). */
export const fileSchema = z.object({
  id: z.number(),
  taskId: z.number(),
  originalName: z.string(),
  fileSize: z.number(),
  contentType: z.string(),
  createdAt: z.string(),
});
export type TaskFile = z.infer<typeof fileSchema>;

export const fileListSchema = z.array(fileSchema);

/**
 * How many files each of the caller's tasks has, by task id (tasks with none are absent).
 * One request feeds every card's badge; a task's list is fetched only when its menu opens.
 */
export const fileCountsSchema = z.record(z.string(), z.number());
export type FileCounts = z.infer<typeof fileCountsSchema>;
export const FILE_COUNTS_PATH = '/api/files/counts';

/** The multipart field that carries the files, repeated once per file (spec §7). */
export const UPLOAD_FIELD = 'files';

/** Per request: enough for any real use of the picker, small enough to bound one request's work. */
export const UPLOAD_LIMITS = { files: 20, fields: 10, fieldSize: 1024, parts: 30 } as const;

/**
 * POST /api/tasks/{taskId}/files: a multipart/form-data body, read as a stream by the server. The
 * document only: files go in one field; other parts may be text, which is ignored.
 */
export const uploadFilesBodySchema = z
  .object({ [UPLOAD_FIELD]: z.array(binarySchema).min(1).max(UPLOAD_LIMITS.files) })
  .catchall(
    z.string().meta({
      description: `Any other part must be text, and is ignored: a file in a field other than \`${UPLOAD_FIELD}\` is refused (400).`,
    }),
  );

/**
 * GET /api/files/{id}/download: the file's bytes, in its own content type (HTML never inline).
 * The server sends a stream, so the schema takes anything and tells the document what it is.
 */
export const fileDownloadSchema = z.unknown().meta({
  type: 'string',
  format: 'binary',
  description: 'The file as uploaded; `Content-Disposition` names it, `Range` requests answer 206.',
});

export const taskFilesParamsSchema = z.object({ taskId: idParam('taskId') });
export const fileParamsSchema = z.object({ id: idParam() });

/** The query key and URL of a task's file list (spec §7); uploads and deletes invalidate it. */
export const taskFilesPath = (taskId: number) => `/api/tasks/${taskId}/files`;
export const fileDownloadPath = (fileId: number) => `/api/files/${fileId}/download`;
export const filePath = (fileId: number) => `/api/files/${fileId}`;

const UNITS = ['Bytes', 'KB', 'MB', 'GB'] as const;

/** Spec §2, §9: Bytes, KB, MB or GB, 1024 per step, two decimals above Bytes. */
export function formatFileSize(bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  // Compare the rounded figure, so 1048575 bytes reads 1.00 MB and not 1024.00 KB.
  while (unit < UNITS.length - 1 && Number(value.toFixed(2)) >= LIMITS.sizeUnitStep) {
    value /= LIMITS.sizeUnitStep;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} Bytes` : `${value.toFixed(2)} ${UNITS[unit]}`;
}
