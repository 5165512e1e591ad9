import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import parseRange from 'range-parser';
import { type FileCounts, formatFileSize, type TaskFile, UPLOAD_FIELD } from '../../common/files';
import { badRequest, HttpError, notFound } from '../http/errors';
import { type FileRepository, type NewFile, toTaskFile } from './repository';
import { type ByteRange, type FileStore, FileTooLargeError } from './store';

/** Per request: enough for any real use of the picker, small enough to bound one request's work. */
export const UPLOAD_LIMITS = { files: 20, fields: 10, fieldSize: 1024, parts: 30 } as const;

const MAX_NAME_LENGTH = 255;
/** Extensions longer than this are not kept apart when a long name is shortened. */
const MAX_EXTENSION_LENGTH = 16;
const FALLBACK_NAME = 'file';
const OCTET_STREAM = 'application/octet-stream';

export const FILE_MESSAGES = {
  taskNotFound: 'Task not found',
  fileNotFound: 'File not found',
  contentMissing: 'The file content is missing from storage.',
  notMultipart: `Send the files as multipart/form-data in the field "${UPLOAD_FIELD}".`,
  noFiles: `No files were sent: add them in the field "${UPLOAD_FIELD}".`,
  wrongField: (name: string) => `Unexpected file field "${name}": send files in the field "${UPLOAD_FIELD}".`,
  tooLarge: (name: string, maxBytes: number) =>
    `"${name}" is larger than the ${formatFileSize(maxBytes)} upload limit.`,
  tooManyFiles: `At most ${UPLOAD_LIMITS.files} files can be uploaded at once.`,
  tooManyFields: 'The upload has too many form fields.',
  malformed: 'The upload was interrupted or is not a valid multipart form.',
  rangeNotSatisfiable: (size: number) => `The requested range is outside the file (${size} bytes).`,
} as const;

/** One part of a multipart body, as @fastify/multipart yields it. */
export interface UploadPart {
  type: 'file' | 'field';
  fieldname: string;
  filename?: string;
  mimetype?: string;
  file?: Readable;
}

/**
 * The original name is only metadata (the stored name is a generated key), but it is shown and
 * sent back in headers: keep the last path segment, drop control and bidi-override characters,
 * and shorten it to 255 characters keeping the extension.
 */
export function sanitizeFileName(name: string | undefined): string {
  const lastSegment = (name ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = lastSegment
    .normalize('NFC')
    .replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, '')
    .trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return FALLBACK_NAME;
  const chars = Array.from(cleaned);
  if (chars.length <= MAX_NAME_LENGTH) return cleaned;
  const extension = path.extname(cleaned);
  const keep = extension.length > 1 && extension.length <= MAX_EXTENSION_LENGTH ? Array.from(extension) : [];
  return (
    chars
      .slice(0, MAX_NAME_LENGTH - keep.length)
      .join('')
      .trimEnd() + keep.join('')
  );
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The part's declared type when it looks like `type/subtype`, else application/octet-stream. */
export function sanitizeContentType(mimetype: string | undefined): string {
  const type = (mimetype ?? '').split(';')[0]!.trim().toLowerCase();
  return MEDIA_TYPE.test(type) ? type : OCTET_STREAM;
}

/** Types a browser would run or render as a document: markup, scripts, stylesheets for XML. */
const ACTIVE_CONTENT = /html|xml|svg|script|xsl|flash|^multipart\//;

/** The Content-Type a download is served with: never one a browser would render as a page. */
export function servedContentType(stored: string): string {
  return ACTIVE_CONTENT.test(stored) ? OCTET_STREAM : stored;
}

/** RFC 6266: an ASCII `filename` for old agents and the exact name as RFC 5987 `filename*`. */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * The one byte range a download asks for (RFC 9110 §14.2), or null for the whole file: a malformed
 * header, several ranges or none. A range wholly outside the file is a 416 naming its size.
 */
export function requestedRange(header: string | undefined, size: number): ByteRange | null {
  if (!header) return null;
  const ranges = parseRange(size, header, { combine: true });
  if (ranges === -1) {
    throw new HttpError(416, FILE_MESSAGES.rangeNotSatisfiable(size), { 'Content-Range': `bytes */${size}` });
  }
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return null;
  return { start: ranges[0]!.start, end: ranges[0]!.end };
}

/** Errors of the multipart parser and of the request stream are the client's, never a 500. */
function uploadError(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'FST_FILES_LIMIT') return new HttpError(413, FILE_MESSAGES.tooManyFiles);
  if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return new HttpError(413, FILE_MESSAGES.tooManyFields);
  }
  // A failing disk (ENOSPC, EACCES) is ours to log; anything else went wrong in the request body.
  if ((error as { syscall?: string }).syscall) return error;
  return badRequest(FILE_MESSAGES.malformed);
}

export interface FileServiceDeps {
  files: FileRepository;
  store: FileStore;
  maxUploadBytes: number;
  logger: FastifyBaseLogger;
}

export function createFileService({ files, store, maxUploadBytes, logger }: FileServiceDeps) {
  const removeBlobs = async (keys: string[]) => {
    for (const key of keys) {
      await store.remove(key).catch((error) => logger.error({ err: error, key }, 'could not remove a blob'));
    }
  };

  const requireTask = async (taskId: number, userId: number) => {
    if (!(await files.taskOwnedBy(taskId, userId))) throw notFound('Task');
  };

  return {
    requireTask,

    async counts(userId: number): Promise<FileCounts> {
      const rows = await files.countsByTask(userId);
      return Object.fromEntries(rows.map((row) => [String(row.taskId), Number(row.count)]));
    },

    async list(taskId: number, userId: number): Promise<TaskFile[]> {
      await requireTask(taskId, userId);
      return (await files.listForTask(taskId, userId)).map(toTaskFile);
    },

    /**
     * Streams every file part into the store, then records them all in one insert. Whatever fails
     * (too large, aborted, a bad part, the database), the blobs this request stored are removed.
     * The caller has checked the task with requireTask before reading the body.
     */
    async upload(taskId: number, userId: number, parts: AsyncIterable<UploadPart>): Promise<TaskFile[]> {
      const stored: NewFile[] = [];
      try {
        for await (const part of parts) {
          if (part.type !== 'file' || !part.file) continue;
          if (part.fieldname !== UPLOAD_FIELD) throw badRequest(FILE_MESSAGES.wrongField(part.fieldname));
          const originalName = sanitizeFileName(part.filename);
          try {
            const { key, size } = await store.put(part.file, { maxBytes: maxUploadBytes });
            stored.push({
              originalName,
              fileSize: size,
              contentType: sanitizeContentType(part.mimetype),
              storageKey: key,
            });
          } catch (error) {
            if (error instanceof FileTooLargeError) {
              throw new HttpError(413, FILE_MESSAGES.tooLarge(originalName, maxUploadBytes));
            }
            throw error;
          }
        }
        if (stored.length === 0) throw badRequest(FILE_MESSAGES.noFiles);
        const rows = await files.insertMany(taskId, userId, stored);
        return rows.sort((a, b) => a.id - b.id).map(toTaskFile);
      } catch (error) {
        await removeBlobs(stored.map((f) => f.storageKey));
        throw uploadError(error);
      }
    },

    /** The file and its content, or the part of it `rangeHeader` asks for. */
    async open(fileId: number, userId: number, rangeHeader?: string) {
      const row = await files.findOwned(fileId, userId);
      if (!row) throw notFound('File');
      const file = toTaskFile(row);
      const range = requestedRange(rangeHeader, file.fileSize);
      const stream = await store.get(row.storage_key, range ?? undefined);
      if (!stream) {
        logger.warn({ fileId, key: row.storage_key }, 'file row without content');
        throw new HttpError(404, FILE_MESSAGES.contentMissing);
      }
      return { file, stream, range };
    },

    /** Returns the task the file belonged to. */
    async remove(fileId: number, userId: number): Promise<{ taskId: number }> {
      const deleted = await files.deleteOwned(fileId, userId);
      if (!deleted) throw notFound('File');
      await removeBlobs([deleted.storage_key]);
      return { taskId: deleted.task_id };
    },
  };
}

export type FileService = ReturnType<typeof createFileService>;
