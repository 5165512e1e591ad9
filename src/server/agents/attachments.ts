import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { formatFileSize } from '../../common/files';
import type { Database, FileRow } from '../db/schema';
import { toNumber } from '../db/values';
import { createFileRepository } from '../files/repository';
import type { FileStore } from '../files/store';

/**
 * A task's attachments as context for an AI run (decision 022): text, Markdown, CSV, JSON and the
 * text of PDFs go into the prompt within a budget of characters; other files are only named.
 * The text is extracted in a worker thread, so a long PDF never holds up the server.
 */

/** What a run is given: the prompt section (empty without attachments) and notes for the run. */
export interface AttachmentContext {
  prompt: string;
  notes: string[];
}

export interface AttachmentReader {
  /**
   * The task's files, whoever uploaded them: the caller must have been cleared for the task by
   * the access module (an AI run asks for editor) before.
   */
  read(taskId: number, signal?: AbortSignal): Promise<AttachmentContext>;
}

export interface AttachmentReaderDeps {
  db: Kysely<Database>;
  store: FileStore;
  /** At most this many characters of attachment text in one prompt (AI_CONTEXT_CHARS). */
  budgetChars: number;
  /** A PDF must be read whole: larger ones (the upload limit, MAX_UPLOAD_BYTES) are skipped. */
  maxPdfBytes?: number;
  /** Time limit of reading one file. */
  timeoutMs?: number;
  logger: Pick<FastifyBaseLogger, 'warn'>;
}

export const ATTACHMENT_NOTES = {
  cut: (name: string, chars: number) => `${name}: first ${chars} characters used`,
  notPdf: (name: string) => `${name}: skipped, not a readable PDF`,
  tooLarge: (name: string, maxBytes: number) => `${name}: skipped, larger than ${formatFileSize(maxBytes)}`,
  tooSlow: (name: string) => `${name}: skipped, took too long to read`,
  missing: (name: string) => `${name}: skipped, could not be read`,
} as const;

export const DEFAULT_READ_TIMEOUT_MS = 20_000;
const DEFAULT_MAX_PDF_BYTES = 25 * 1024 * 1024;
/** UTF-8 needs at most 4 bytes per character: more bytes than this can never fit the budget. */
const BYTES_PER_CHAR = 4;
/** A worker that a hostile PDF drives out of memory dies alone, with this heap. */
const WORKER_HEAP_MB = 512;

const TEXT_EXTENSIONS = new Set(['.txt', '.text', '.md', '.markdown', '.csv', '.json']);
const TEXT_TYPES = /^(text\/[a-z0-9.+-]+|application\/([a-z0-9.-]+\+)?json)$/;

export type AttachmentKind = 'text' | 'pdf' | 'other';

/** By the stored content type (parameters aside), else the extension: browsers send octet-stream for .md. */
export function attachmentKind(name: string, contentType: string): AttachmentKind {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const extension = path.extname(name).toLowerCase();
  if (type === 'application/pdf' || extension === '.pdf') return 'pdf';
  if (TEXT_TYPES.test(type) || TEXT_EXTENSIONS.has(extension)) return 'text';
  return 'other';
}

/**
 * Shares `budget` characters among texts of these lengths: files that fit stay whole, the largest
 * are cut first. Shortest first, each gets its length or an equal share of what is left.
 */
export function allocateBudget(lengths: readonly number[], budget: number): number[] {
  const order = lengths.map((_, index) => index).sort((a, b) => lengths[a]! - lengths[b]!);
  const shares = lengths.map(() => 0);
  let left = budget;
  order.forEach((index, position) => {
    const share = Math.min(lengths[index]!, Math.floor(left / (order.length - position)));
    shares[index] = share;
    left -= share;
  });
  return shares;
}

/** Does not split a surrogate pair. */
function firstChars(text: string, n: number): string {
  if (text.length <= n) return text;
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

interface ExtractJob {
  kind: 'text' | 'pdf';
  bytes: Uint8Array;
  /** The bytes are only the start of the file. */
  cut: boolean;
  maxChars: number;
}
type ExtractResult = { text: string; truncated: boolean } | { unreadable: true };

class ReadTimeout extends Error {}

/** Plain JavaScript beside this file in the sources, beside main.js in the build (scripts/build-server.mjs). */
const WORKER_URL = new URL('./attachment-worker.mjs', import.meta.url);

/**
 * One worker per read, started on its first readable file and ended with the read: a file that
 * crashes, hangs or exhausts it takes nothing else down, and an idle server holds no worker.
 */
function extractor(timeoutMs: number, signal: AbortSignal | undefined) {
  let worker: Worker | undefined;
  let nextId = 0;
  const stop = () => {
    void worker?.terminate();
    worker = undefined;
  };
  return {
    stop,
    extract(job: ExtractJob): Promise<ExtractResult> {
      worker ??= new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
      const current = worker;
      const id = nextId++;
      return new Promise<ExtractResult>((resolve, reject) => {
        const done = (settle: () => void, healthy: boolean) => {
          clearTimeout(timer);
          current.off('message', onMessage).off('error', onError).off('exit', onExit);
          signal?.removeEventListener('abort', onAbort);
          if (!healthy) stop();
          settle();
        };
        const onMessage = (message: ExtractResult & { id: number }) => {
          if (message.id === id) done(() => resolve(message), true);
        };
        const onError = (error: Error) => done(() => reject(error), false);
        const onExit = (code: number) =>
          done(() => reject(new Error(`attachment worker exited with code ${code}`)), false);
        const onAbort = () => done(() => reject(signal?.reason), false);
        const timer = setTimeout(() => done(() => reject(new ReadTimeout()), false), timeoutMs);
        current.on('message', onMessage).on('error', onError).on('exit', onExit);
        signal?.addEventListener('abort', onAbort, { once: true });
        // The bytes move to the worker rather than being copied.
        current.postMessage({ id, ...job }, [job.bytes.buffer as ArrayBuffer]);
      });
    },
  };
}

export function createAttachmentReader({
  db,
  store,
  budgetChars,
  maxPdfBytes = DEFAULT_MAX_PDF_BYTES,
  timeoutMs = DEFAULT_READ_TIMEOUT_MS,
  logger,
}: AttachmentReaderDeps): AttachmentReader {
  const files = createFileRepository(db);
  const maxTextBytes = budgetChars * BYTES_PER_CHAR;

  /** The first `maxBytes` of a stored file (a range request when it is larger), or null when it is gone. */
  async function readBytes(row: FileRow, maxBytes: number) {
    const size = toNumber(row.file_size);
    const stream = await store.get(
      row.storage_key,
      size > maxBytes ? { start: 0, end: maxBytes - 1 } : undefined,
    );
    if (!stream) return null;
    const chunks: Buffer[] = [];
    let total = 0;
    let cut = size > maxBytes;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const room = maxBytes - total;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      total += Math.min(chunk.length, room);
      if (chunk.length > room) {
        // The row's size was wrong: the store holds more than it said.
        cut = true;
        stream.destroy();
        break;
      }
    }
    // One fresh buffer of its own, so it can be transferred to the worker.
    const bytes = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    return { bytes, cut };
  }

  return {
    async read(taskId, signal) {
      const rows = await files.listForTask(taskId);
      const notes: string[] = [];
      const unread: string[] = [];
      const texts: Array<{ name: string; text: string; truncated: boolean }> = [];
      const worker = extractor(timeoutMs, signal);
      try {
        for (const row of rows) {
          signal?.throwIfAborted();
          const name = row.original_name;
          const kind = attachmentKind(name, row.content_type);
          if (kind === 'other') {
            unread.push(name);
            continue;
          }
          if (kind === 'pdf' && toNumber(row.file_size) > maxPdfBytes) {
            notes.push(ATTACHMENT_NOTES.tooLarge(name, maxPdfBytes));
            unread.push(name);
            continue;
          }
          let read: Awaited<ReturnType<typeof readBytes>>;
          try {
            read = await readBytes(row, kind === 'pdf' ? maxPdfBytes : maxTextBytes);
          } catch (error) {
            logger.warn({ err: error, fileId: row.id, taskId }, 'Attachment not read for an AI run');
            read = null;
          }
          if (!read || (kind === 'pdf' && read.cut)) {
            notes.push(read ? ATTACHMENT_NOTES.tooLarge(name, maxPdfBytes) : ATTACHMENT_NOTES.missing(name));
            unread.push(name);
            continue;
          }
          let result: ExtractResult;
          try {
            result = await worker.extract({ kind, bytes: read.bytes, cut: read.cut, maxChars: budgetChars });
          } catch (error) {
            if (signal?.aborted) throw signal.reason;
            const slow = error instanceof ReadTimeout;
            if (!slow) logger.warn({ err: error, fileId: row.id, taskId }, 'Attachment worker failed');
            result = { unreadable: true };
            if (slow) {
              notes.push(ATTACHMENT_NOTES.tooSlow(name));
              unread.push(name);
              continue;
            }
          }
          if ('unreadable' in result) {
            notes.push(kind === 'pdf' ? ATTACHMENT_NOTES.notPdf(name) : ATTACHMENT_NOTES.missing(name));
            unread.push(name);
            continue;
          }
          texts.push({ name, ...result });
        }
      } finally {
        worker.stop();
      }

      const shares = allocateBudget(
        texts.map(({ text }) => text.length),
        budgetChars,
      );
      const sections = texts.map(({ name, text, truncated }, index) => {
        const used = firstChars(text, shares[index]!);
        const isCut = truncated || used.length < text.length;
        if (isCut) notes.push(ATTACHMENT_NOTES.cut(name, used.length));
        const label = isCut ? `${name} (the first ${used.length} characters)` : name;
        return `Attachment: ${label}\n<<<\n${used}\n>>>`;
      });
      if (unread.length > 0) sections.push(`Other attachments (not read): ${unread.join(', ')}`);
      return { prompt: sections.join('\n\n'), notes };
    },
  };
}
