import type { Kysely } from 'kysely';
import type { TaskFile } from '../../common/files';
import type { Database, FileRow } from '../db/schema';
import { nowIso, toIso, toNumber } from '../db/values';

export interface NewFile {
  originalName: string;
  fileSize: number;
  contentType: string;
  storageKey: string;
}

export const toTaskFile = (row: FileRow): TaskFile => ({
  id: row.id,
  taskId: row.task_id,
  originalName: row.original_name,
  fileSize: toNumber(row.file_size),
  contentType: row.content_type,
  createdAt: toIso(row.created_at),
});

/**
 * Queries of files, keyed by task. Who may see or change them is the access module's answer
 * (decision 029), asked by the service before any of these runs; `files.user_id` only says who
 * uploaded a file.
 */
export function createFileRepository(db: Kysely<Database>) {
  return {
    /** How many files each task of these projects has; tasks with none are absent. */
    countsByTask: async (projectIds: number[]): Promise<Array<{ taskId: number; count: number }>> =>
      projectIds.length === 0
        ? []
        : db
            .selectFrom('files')
            .innerJoin('tasks', 'tasks.id', 'files.task_id')
            .select(['files.task_id as taskId', (eb) => eb.fn.countAll<number>().as('count')])
            .where('tasks.project_id', 'in', projectIds)
            .groupBy('files.task_id')
            .execute(),

    listForTask: (taskId: number): Promise<FileRow[]> =>
      db
        .selectFrom('files')
        .selectAll()
        .where('task_id', '=', taskId)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),

    find: (fileId: number): Promise<FileRow | undefined> =>
      db.selectFrom('files').selectAll().where('id', '=', fileId).executeTakeFirst(),

    /** Records the files of a task, uploaded by `userId`. */
    insertMany: (taskId: number, userId: number, files: NewFile[]): Promise<FileRow[]> => {
      const createdAt = nowIso();
      return db
        .insertInto('files')
        .values(
          files.map((f) => ({
            task_id: taskId,
            user_id: userId,
            original_name: f.originalName,
            file_size: f.fileSize,
            content_type: f.contentType,
            storage_key: f.storageKey,
            created_at: createdAt,
          })),
        )
        .returningAll()
        .execute();
    },

    /** Deletes the row while it is still the task's; returns what is needed to clean up after it. */
    delete: (fileId: number, taskId: number) =>
      db
        .deleteFrom('files')
        .where('id', '=', fileId)
        .where('task_id', '=', taskId)
        .returning(['storage_key', 'original_name'])
        .executeTakeFirst(),
  };
}

export type FileRepository = ReturnType<typeof createFileRepository>;
