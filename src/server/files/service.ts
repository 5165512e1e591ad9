import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import parseRange from 'range-parser';
import { taskActivityPath } from '../../common/activity';
import {
  FILE_COUNTS_PATH,
  type FileCounts,
  formatFileSize,
  type TaskFile,
  taskFilesPath,
  UPLOAD_FIELD,
  UPLOAD_LIMITS,
} from '../../common/files';
import type { ProjectRole } from '../../common/projects';
import type { Access } from '../access';
import { recordActivity } from '../activity/repository';
import type { Database, FileRow, TaskRow } from '../db/schema';
import { badRequest, HttpError, notFound } from '../http/errors';
import type { ProjectEvents } from '../live/projects';
import { createFileRepository, type NewFile, toTaskFile } from './repository';
import { type ByteRange, type FileStore, FileTooLargeError } from './store';

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
  db: Kysely<Database>;
  store: FileStore;
  maxUploadBytes: number;
  logger: FastifyBaseLogger;
  access: Access;
  /** The project's members' streams (../live/projects). */
  projectEvents: ProjectEvents;
}

/**
 * Files of a task (spec §7). Who may see or change them is the task's project's role table
 * (decision 029, the access module): viewers list and download, editors upload and delete; a file
 * of a task the caller cannot see does not exist (404). Uploads and deletes write the task's
 * activity in the transaction of the row.
 */
export function createFileService({
  db,
  store,
  maxUploadBytes,
  logger,
  access,
  projectEvents,
}: FileServiceDeps) {
  const files = createFileRepository(db);
  const removeBlobs = async (keys: string[]) => {
    for (const key of keys) {
      await store.remove(key).catch((error) => logger.error({ err: error, key }, 'could not remove a blob'));
    }
  };
  const changed = (projectId: number, taskId: number) =>
    projectEvents([projectId], [taskFilesPath(taskId), FILE_COUNTS_PATH, taskActivityPath(taskId)]);

  /** The file and its task, when the caller's role in the task's project is at least `needed`. */
  const requireFile = async (userId: number, fileId: number, needed: ProjectRole) => {
    const row = await files.find(fileId);
    if (!row) throw notFound('File');
    try {
      const { task } = await access.requireTask({ id: userId }, row.task_id, needed);
      return { row, task };
    } catch (error) {
      // A file of a task the caller cannot see is answered as one that does not exist.
      if (error instanceof HttpError && error.statusCode === 404) throw notFound('File');
      throw error;
    }
  };

  return {
    /** The task files may be added to (editor or more); asked before the upload's body is read. */
    writableTask: async (taskId: number, userId: number): Promise<TaskRow> =>
      (await access.requireTask({ id: userId }, taskId, 'editor')).task,

    /** How many files each task of every project the caller belongs to has. */
    async counts(userId: number): Promise<FileCounts> {
      const rows = await files.countsByTask([...(await access.memberships(userId)).keys()]);
      return Object.fromEntries(rows.map((row) => [String(row.taskId), Number(row.count)]));
    },

    async list(taskId: number, userId: number): Promise<TaskFile[]> {
      await access.requireTask({ id: userId }, taskId, 'viewer');
      return (await files.listForTask(taskId)).map(toTaskFile);
    },

    /**
     * Streams every file part into the store, then records them all in one insert, with a
     * `file_added` activity entry each. Whatever fails (too large, aborted, a bad part, the
     * database), the blobs this request stored are removed. `task` comes from writableTask, asked
     * before the body was read.
     */
    async upload(task: TaskRow, userId: number, parts: AsyncIterable<UploadPart>): Promise<TaskFile[]> {
      const stored: NewFile[] = [];
      let rows: FileRow[];
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
        rows = await db.transaction().execute(async (trx) => {
          const inserted = await createFileRepository(trx).insertMany(task.id, userId, stored);
          await recordActivity(
            trx,
            stored.map((file) => ({
              taskId: task.id,
              actorId: userId,
              kind: 'file_added' as const,
              data: { fileName: file.originalName },
            })),
          );
          return inserted;
        });
      } catch (error) {
        await removeBlobs(stored.map((f) => f.storageKey));
        throw uploadError(error);
      }
      await changed(task.project_id, task.id);
      return rows.sort((a, b) => a.id - b.id).map(toTaskFile);
    },

    /** The file and its content, or the part of it `rangeHeader` asks for. */
    async open(fileId: number, userId: number, rangeHeader?: string) {
      const { row } = await requireFile(userId, fileId, 'viewer');
      const file = toTaskFile(row);
      const range = requestedRange(rangeHeader, file.fileSize);
      const stream = await store.get(row.storage_key, range ?? undefined);
      if (!stream) {
        logger.warn({ fileId, key: row.storage_key }, 'file row without content');
        throw new HttpError(404, FILE_MESSAGES.contentMissing);
      }
      return { file, stream, range };
    },

    /** Deletes the row with a `file_removed` activity entry, then the blob. */
    async remove(fileId: number, userId: number): Promise<void> {
      const { task } = await requireFile(userId, fileId, 'editor');
      const deleted = await db.transaction().execute(async (trx) => {
        const row = await createFileRepository(trx).delete(fileId, task.id);
        if (!row) throw notFound('File');
        await recordActivity(trx, [
          { taskId: task.id, actorId: userId, kind: 'file_removed', data: { fileName: row.original_name } },
        ]);
        return row;
      });
      await removeBlobs([deleted.storage_key]);
      await changed(task.project_id, task.id);
    },
  };
}

export type FileService = ReturnType<typeof createFileService>;
