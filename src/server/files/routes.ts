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
  UPLOAD_FIELD,
  UPLOAD_LIMITS,
  uploadFilesBodySchema,
} from '../../common/files';
import type { Access } from '../access';
import type { Database } from '../db';
import { HttpError } from '../http/errors';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { ProjectEvents } from '../live/projects';
import { contentDisposition, createFileService, FILE_MESSAGES, servedContentType } from './service';
import { type FileStore, UPLOAD_BUFFER_BYTES } from './store';

/** What the files feature is given by the app. */
export interface FileFeatureDeps {
  db: Kysely<Database>;
  store: FileStore;
  access: Access;
  /** The project's members' streams (../live/projects). */
  projectEvents: ProjectEvents;
  maxUploadBytes: number;
  logger: FastifyBaseLogger;
}

export async function fileRoutes(
  fastify: FastifyInstance,
  { db, store, access, projectEvents, maxUploadBytes, logger }: FileFeatureDeps,
) {
  const service = createFileService({ db, store, maxUploadBytes, logger, access, projectEvents });

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
        onRequest: requireUser,
        schema: {
          summary: 'How many files each of your tasks has',
          description:
            'By task id, for the tasks of every project you belong to; tasks with no files are absent.',
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
        onRequest: requireUser,
        schema: {
          summary: 'The files of a task',
          description: "Any member of the task's project (viewer or more).",
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
        onRequest: requireUser,
        schema: {
          summary: 'Attach files to a task',
          description: `A multipart form with the field \`${UPLOAD_FIELD}\` once per file; each file is limited in size (413). Answers the files stored. Editors of the task's project and above (403 below).`,
          tags: ['Files'],
          operationId: 'uploadTaskFiles',
          params: taskFilesParamsSchema,
          streamedBody: { [MEDIA.multipart]: uploadFilesBodySchema },
          response: { 201: fileListSchema },
        },
      },
      async (request, reply) => {
        const userId = currentUser(request).id;
        const task = await service.writableTask(request.params.taskId, userId);
        if (!request.isMultipart()) throw new HttpError(415, FILE_MESSAGES.notMultipart);
        return reply.code(201).send(await service.upload(task, userId, request.parts()));
      },
    );

    app.delete(
      '/api/files/:id',
      {
        onRequest: requireUser,
        schema: {
          summary: 'Delete a file',
          description: "Editors of the task's project and above (403 below).",
          tags: ['Files'],
          operationId: 'deleteFile',
          params: fileParamsSchema,
          response: { 204: noContentSchema },
        },
      },
      async (request, reply) => {
        await service.remove(request.params.id, currentUser(request).id);
        return reply.code(204).send();
      },
    );

    // GET is safe, so the session cookie alone is enough: a plain link downloads.
    app.get(
      '/api/files/:id/download',
      {
        onRequest: requireUser,
        exposeHeadRoute: false,
        // The file goes as stored: its length and byte ranges hold.
        compress: false,
        schema: {
          summary: 'Download a file',
          description:
            "Any member of the task's project (viewer or more). A plain link works in the browser: the session cookie is enough for a GET.",
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
