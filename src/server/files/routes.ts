import multipart from '@fastify/multipart';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { MEDIA, noContentSchema } from '../../common/api';
import {
  FILE_COUNTS_PATH,
  fileCountsSchema,
  fileDownloadSchema,
  fileListSchema,
  fileParamsSchema,
  taskFilesParamsSchema,
  taskFilesPath,
  UPLOAD_FIELD,
  uploadFilesBodySchema,
} from '../../common/files';
import type { Database } from '../db';
import { HttpError } from '../http/errors';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { LiveBus } from '../live/bus';
import { createFileRepository } from './repository';
import {
  contentDisposition,
  createFileService,
  FILE_MESSAGES,
  servedContentType,
  UPLOAD_LIMITS,
} from './service';
import { type FileStore, UPLOAD_BUFFER_BYTES } from './store';

/** What the files feature is given by the app. */
export interface FileFeatureDeps {
  db: Kysely<Database>;
  store: FileStore;
  live: LiveBus;
  maxUploadBytes: number;
  logger: FastifyBaseLogger;
}

export async function fileRoutes(
  fastify: FastifyInstance,
  { db, store, live, maxUploadBytes, logger }: FileFeatureDeps,
) {
  const service = createFileService({ files: createFileRepository(db), store, maxUploadBytes, logger });

  // Its own scope, so only these routes accept multipart bodies.
  await fastify.register(async (scope) => {
    await scope.register(multipart, {
      // One byte over the limit reaches the store, whose counter turns it into a 413 naming the file.
      limits: { ...UPLOAD_LIMITS, fileSize: maxUploadBytes + 1 },
      throwFileSizeLimit: false,
      fileHwm: UPLOAD_BUFFER_BYTES,
    });

    // A request refused before its body was read keeps sending; reading the rest lets the client
    // receive the answer instead of a connection reset. It is discarded as it arrives.
    scope.addHook('onError', async (request) => {
      if (request.isMultipart() && !request.raw.readableEnded) {
        request.raw.unpipe();
        request.raw.resume();
      }
    });

    const app = scope.withTypeProvider<ZodTypeProvider>();

    app.get(
      FILE_COUNTS_PATH,
      {
        preHandler: requireUser,
        schema: {
          summary: 'How many files each of your tasks has',
          description: 'By task id; tasks with no files are absent.',
          tags: ['Files'],
          operationId: 'getFileCounts',
          response: { 200: fileCountsSchema },
        },
      },
      async (request) => service.counts(currentUser(request).id),
    );

    app.get(
      '/api/tasks/:taskId/files',
      {
        preHandler: requireUser,
        schema: {
          summary: 'The files of a task',
          tags: ['Files'],
          operationId: 'listTaskFiles',
          params: taskFilesParamsSchema,
          response: { 200: fileListSchema },
        },
      },
      async (request) => service.list(request.params.taskId, currentUser(request).id),
    );

    app.post(
      '/api/tasks/:taskId/files',
      {
        preHandler: requireUser,
        schema: {
          summary: 'Attach files to a task',
          description: `A multipart form with the field \`${UPLOAD_FIELD}\` once per file; each file is limited in size (413). Answers the files stored.`,
          tags: ['Files'],
          operationId: 'uploadTaskFiles',
          params: taskFilesParamsSchema,
          streamedBody: { [MEDIA.multipart]: uploadFilesBodySchema },
          response: { 201: fileListSchema },
        },
      },
      async (request, reply) => {
        const { taskId } = request.params;
        const userId = currentUser(request).id;
        await service.requireTask(taskId, userId);
        if (!request.isMultipart()) throw new HttpError(415, FILE_MESSAGES.notMultipart);
        const files = await service.upload(taskId, userId, request.parts());
        live.publish(userId, [taskFilesPath(taskId), FILE_COUNTS_PATH]);
        return reply.code(201).send(files);
      },
    );

    app.delete(
      '/api/files/:id',
      {
        preHandler: requireUser,
        schema: {
          summary: 'Delete a file',
          tags: ['Files'],
          operationId: 'deleteFile',
          params: fileParamsSchema,
          response: { 204: noContentSchema },
        },
      },
      async (request, reply) => {
        const userId = currentUser(request).id;
        const { taskId } = await service.remove(request.params.id, userId);
        live.publish(userId, [taskFilesPath(taskId), FILE_COUNTS_PATH]);
        return reply.code(204).send();
      },
    );

    // GET is safe, so the session cookie alone is enough: a plain link downloads.
    app.get(
      '/api/files/:id/download',
      {
        preHandler: requireUser,
        exposeHeadRoute: false,
        // The file goes as stored: its length and byte ranges hold.
        compress: false,
        schema: {
          summary: 'Download a file',
          description: 'A plain link works in the browser: the session cookie is enough for a GET.',
          tags: ['Files'],
          operationId: 'downloadFile',
          params: fileParamsSchema,
          // A stream is never serialised: these describe it.
          response: {
            200: { content: { [MEDIA.anyFile]: { schema: fileDownloadSchema } } },
            206: { content: { [MEDIA.anyFile]: { schema: fileDownloadSchema } } },
          },
        },
      },
      async (request, reply) => {
        const { file, stream, range } = await service.open(
          request.params.id,
          currentUser(request).id,
          request.headers.range,
        );
        if (range) {
          reply.code(206).header('Content-Range', `bytes ${range.start}-${range.end}/${file.fileSize}`);
        }
        return reply
          .headers({
            'Content-Type': servedContentType(file.contentType),
            'Content-Length': String(range ? range.end - range.start + 1 : file.fileSize),
            'Accept-Ranges': 'bytes',
            'Content-Disposition': contentDisposition(file.originalName),
            'X-Content-Type-Options': 'nosniff',
            'Content-Security-Policy': "default-src 'none'; sandbox",
            'Cache-Control': 'private, no-store',
          })
          .send(stream);
      },
    );
  });
}
