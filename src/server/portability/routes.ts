import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { MEDIA } from '../../common/api';
import {
  DATA_LIMITS,
  EXPORT_PATH,
  exportDocumentSchema,
  exportQuerySchema,
  IMPORT_FIELD,
  IMPORT_PATH,
  importBodySchema,
  importFailureSchema,
  importQuerySchema,
  importResultSchema,
} from '../../common/data';
import type { Access } from '../access';
import type { Database } from '../db/schema';
import { preferredEncoding } from '../http/compression';
import { HttpError } from '../http/errors';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { LiveBus } from '../live/bus';
import type { ProjectEvents } from '../live/projects';
import type { TaskService } from '../tasks/service';
import { UnreadableFileError } from './parse';
import { createDataService } from './service';

export interface DataFeatureDeps {
  db: Kysely<Database>;
  live: LiveBus;
  access: Access;
  projectEvents: ProjectEvents;
  /** A person's zone until they or their browser set one (issue 28). */
  defaultTimeZone: string;
  warmList: TaskService['warmList'];
}

const MB = DATA_LIMITS.importBytes / (1024 * 1024);
export const DATA_MESSAGES = {
  notMultipart: `Send the file as multipart/form-data, in the field '${IMPORT_FIELD}'.`,
  fileRequired: `file is required: send it in the multipart field '${IMPORT_FIELD}'.`,
  tooLarge: `The file is larger than ${MB} MB: split it and import the parts.`,
} as const;

/** `tasklane-2026-03-01.json`: the day the export was made. */
const fileName = (format: string) => `tasklane-${new Date().toISOString().slice(0, 10)}.${format}`;

/** Export and import of one person's data (issue 13); a session or an API token, like the tasks. */
export async function dataRoutes(fastify: FastifyInstance, deps: DataFeatureDeps) {
  const data = createDataService(deps);

  await fastify.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: DATA_LIMITS.importBytes, files: 1, fields: 10, parts: 11 },
    });
    // As for file uploads: read what a refused request still sends, so the client gets the answer.
    scope.addHook('onError', async (request) => {
      if (request.isMultipart() && !request.raw.readableEnded) {
        request.raw.unpipe();
        request.raw.resume();
      }
    });
    const app = scope.withTypeProvider<ZodTypeProvider>();

    app.get(
      EXPORT_PATH,
      {
        onRequest: requireUser,
        schema: {
          summary: 'Export your data',
          description:
            "Everything you own, as a download: the tasks of your Inbox and of the projects you own (not of those you are only a member of). `json`: `{tasks, agents, relations}`, active and archived tasks with notes, drafts, agent, checklist items and `parentId`, and the relations between them. `csv`: one row per task (title, description, dueDate, completed, archived, notes, createdAt, ..., and `parent`, the parent's title path such as 'Plan trip > Book flights'), lines ending in CRLF; a cell starting with `=`, `+`, `-`, `@`, tab or carriage return gets a leading apostrophe so spreadsheets do not run it as a formula, and the import takes it off again. Nothing of anyone else, no credentials.",
          tags: ['Import and export'],
          operationId: 'exportData',
          querystring: exportQuerySchema,
          response: {
            200: {
              description: 'The file, named in `Content-Disposition`.',
              content: {
                [MEDIA.json]: { schema: exportDocumentSchema },
                [MEDIA.csv]: { schema: z.string().meta({ description: 'CSV with a header row' }) },
              },
            },
          },
        },
      },
      async (request, reply) => {
        const userId = currentUser(request).id;
        const { format } = request.query;
        const body = format === 'csv' ? await data.exportCsv(userId) : await data.exportJson(userId);
        return reply
          .type(format === 'csv' ? `${MEDIA.csv}; charset=utf-8` : `${MEDIA.json}; charset=utf-8`)
          .header('Content-Disposition', `attachment; filename="${fileName(format)}"`)
          .header('Cache-Control', 'no-store')
          .send(body);
      },
    );

    app.post(
      IMPORT_PATH,
      {
        onRequest: requireUser,
        schema: {
          summary: 'Import tasks',
          description: `A multipart form with the file in \`${IMPORT_FIELD}\` (at most ${MB} MB, else 413): Tasklane's JSON or CSV export, or Todoist's CSV export. With \`dryRun=true\`, says what would be imported and writes nothing. Tasks go on top of the list of the project \`projectId\` (one where you are an editor or more: 404 when you are not a member, 403 below editor, 409 when it is archived), by default your Inbox, in the file's order, sub-tasks under their parent (Todoist's \`INDENT\`, Tasklane's \`parentId\` or \`parent\` column; at most 4 levels, a deeper one under its deepest allowed ancestor) with the relations between them; rows with a bad value are skipped and listed in \`errors\`; \`notices\` says what came in with something lost (a Todoist recurrence, imported as one date) or was left out for a reason that is no error. A file that cannot be read imports nothing (400, with the line).`,
          tags: ['Import and export'],
          operationId: 'importData',
          querystring: importQuerySchema,
          streamedBody: { [MEDIA.multipart]: importBodySchema },
          response: { 200: importResultSchema, 400: importFailureSchema },
        },
      },
      async (request, reply) => {
        if (!request.isMultipart()) throw new HttpError(415, DATA_MESSAGES.notMultipart);
        const part = await request.file();
        if (!part || part.fieldname !== IMPORT_FIELD) throw new HttpError(400, DATA_MESSAGES.fileRequired);
        let bytes: Buffer;
        try {
          bytes = await part.toBuffer();
        } catch (error) {
          if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
            throw new HttpError(413, DATA_MESSAGES.tooLarge);
          throw error;
        }
        try {
          return await data.import(
            currentUser(request).id,
            bytes,
            request.query,
            preferredEncoding(request.headers['accept-encoding']),
          );
        } catch (error) {
          if (!(error instanceof UnreadableFileError)) throw error;
          return reply.code(400).send({
            message: `Line ${error.row}: ${error.message}`,
            imported: 0,
            skipped: 0,
            errors: [{ row: error.row, message: error.message }],
          });
        }
      },
    );
  });
}
