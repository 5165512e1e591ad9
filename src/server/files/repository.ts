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

/** Every lookup goes through the file's own task and its owner, never through an id alone. */
export function createFileRepository(db: Kysely<Database>) {
  return {
    taskOwnedBy: async (taskId: number, userId: number): Promise<boolean> =>
      (await db
        .selectFrom('tasks')
        .select('id')
        .where('id', '=', taskId)
        .where('user_id', '=', userId)
        .executeTakeFirst()) !== undefined,

    countsByTask: (userId: number): Promise<Array<{ taskId: number; count: number }>> =>
      db
        .selectFrom('files')
        .innerJoin('tasks', 'tasks.id', 'files.task_id')
        .select(['files.task_id as taskId', (eb) => eb.fn.countAll<number>().as('count')])
        .where('tasks.user_id', '=', userId)
        .groupBy('files.task_id')
        .execute(),

    listForTask: (taskId: number, userId: number): Promise<FileRow[]> =>
      db
        .selectFrom('files')
        .innerJoin('tasks', 'tasks.id', 'files.task_id')
        .selectAll('files')
        .where('files.task_id', '=', taskId)
        .where('tasks.user_id', '=', userId)
        .orderBy('files.created_at')
        .orderBy('files.id')
        .execute(),

    findOwned: (fileId: number, userId: number): Promise<FileRow | undefined> =>
      db
        .selectFrom('files')
        .innerJoin('tasks', 'tasks.id', 'files.task_id')
        .selectAll('files')
        .where('files.id', '=', fileId)
        .where('tasks.user_id', '=', userId)
        .executeTakeFirst(),

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

    /** Deletes the row when it is the caller's; returns what is needed to clean up after it. */
    deleteOwned: (fileId: number, userId: number) =>
      db
        .deleteFrom('files')
        .where('id', '=', fileId)
        .where('task_id', 'in', db.selectFrom('tasks').select('id').where('user_id', '=', userId))
        .returning(['storage_key', 'task_id'])
        .executeTakeFirst(),
  };
}

export type FileRepository = ReturnType<typeof createFileRepository>;
