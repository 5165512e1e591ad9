import type { Kysely } from 'kysely';
import {
  type CreateFilterBody,
  type CreateLabelBody,
  FILTERS_PATH,
  LABEL_MESSAGES,
  LABELS_PATH,
  type Label,
  labelKey,
  type SavedFilter,
  type UpdateFilterBody,
  type UpdateLabelBody,
} from '../../common/labels';
import type { ProjectColor } from '../../common/projects';
import { ARCHIVED_TASKS_PATH, TASKS_PATH, taskListQuerySchema } from '../../common/tasks';
import type { Database, LabelRow, SavedFilterRow } from '../db/schema';
import { isUniqueViolation, nowIso, toIso } from '../db/values';
import { badRequest, conflict, notFound } from '../http/errors';
import type { LiveBus } from '../live/bus';
import type { ProjectEvents } from '../live/projects';
import { versionBump } from '../tasks/version';

/**
 * Labels and saved filters (issue 23, decision 037): each belongs to one person, who alone sees
 * them in these routes; anyone else's answers 404, as one that does not exist. The labels a person
 * put on tasks are seen by everyone who can see those tasks (through the task).
 */

const toLabel = (row: LabelRow): Label => ({
  id: row.id,
  name: row.name,
  color: row.color as ProjectColor,
  createdAt: toIso(row.created_at),
});

const toFilter = (row: SavedFilterRow): SavedFilter => ({
  id: row.id,
  name: row.name,
  query: row.query,
  createdAt: toIso(row.created_at),
});

const LIST_PARAMETERS = new Set(Object.keys(taskListQuerySchema.shape));

/**
 * A saved filter's query, checked as GET /api/tasks checks its parameters: the text as it will go
 * in the address (no leading '?'), or 400 naming the field.
 */
export function checkFilterQuery(text: string): string {
  const query = text.replace(/^\?/, '').trim();
  const params = new URLSearchParams(query);
  const values: Record<string, string | string[]> = {};
  for (const [key, value] of params) {
    if (!LIST_PARAMETERS.has(key)) throw badRequest(`query: '${key}' is not a filter of the task list`);
    const before = values[key];
    values[key] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  if (Object.keys(values).length === 0) throw badRequest(LABEL_MESSAGES.queryRequired);
  for (const [key, value] of Object.entries(values)) {
    if (key !== 'label' && Array.isArray(value)) throw badRequest(`query: ${key} may be given once`);
  }
  const checked = taskListQuerySchema.safeParse(values);
  if (!checked.success) throw badRequest(`query: ${checked.error.issues[0]?.message ?? 'not a filter'}`);
  return query;
}

export function createLabelService({
  db,
  live,
  projectEvents,
}: {
  db: Kysely<Database>;
  live: Pick<LiveBus, 'publish'>;
  projectEvents: ProjectEvents;
}) {
  const findLabel = async (userId: number, id: number): Promise<LabelRow> => {
    const row = await db
      .selectFrom('labels')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) throw notFound('Label');
    return row;
  };
  const findFilter = async (userId: number, id: number): Promise<SavedFilterRow> => {
    const row = await db
      .selectFrom('saved_filters')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) throw notFound('Filter');
    return row;
  };
  const nameTaken = async (userId: number, name: string, except?: number) => {
    let query = db
      .selectFrom('labels')
      .select('id')
      .where('user_id', '=', userId)
      .where('name_key', '=', labelKey(name));
    if (except !== undefined) query = query.where('id', '!=', except);
    return (await query.executeTakeFirst()) !== undefined;
  };
  /** The unique index has the last word when two requests race. */
  const unique = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(LABEL_MESSAGES.nameTaken);
      throw error;
    }
  };
  /**
   * The tasks carrying the label are changed (their lists' versions move on, and every member of
   * their projects refetches), before `work` changes or deletes it.
   */
  const touchTasksOf = async (trx: Kysely<Database>, labelId: number): Promise<number[]> => {
    const tagged = trx.selectFrom('task_labels').select('task_id').where('label_id', '=', labelId);
    const rows = await trx
      .updateTable('tasks')
      .set({ updated_at: nowIso(), ...versionBump })
      .where('id', 'in', tagged)
      .returning('project_id')
      .execute();
    return [...new Set(rows.map((row) => row.project_id))];
  };
  const tasksChanged = (projectIds: number[]) =>
    projectIds.length > 0 ? projectEvents(projectIds, [TASKS_PATH, ARCHIVED_TASKS_PATH]) : undefined;

  return {
    async listLabels(userId: number): Promise<Label[]> {
      const rows = await db
        .selectFrom('labels')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('name_key')
        .orderBy('id')
        .execute();
      return rows.map(toLabel);
    },

    async createLabel(userId: number, body: CreateLabelBody): Promise<Label> {
      if (await nameTaken(userId, body.name)) throw conflict(LABEL_MESSAGES.nameTaken);
      const now = nowIso();
      const row = await unique(() =>
        db
          .insertInto('labels')
          .values({
            user_id: userId,
            name: body.name,
            name_key: labelKey(body.name),
            color: body.color,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow(),
      );
      live.publish(userId, [LABELS_PATH]);
      return toLabel(row);
    },

    async updateLabel(userId: number, id: number, body: UpdateLabelBody): Promise<Label> {
      await findLabel(userId, id);
      if (body.name !== undefined && (await nameTaken(userId, body.name, id))) {
        throw conflict(LABEL_MESSAGES.nameTaken);
      }
      const { row, projectIds } = await unique(() =>
        db.transaction().execute(async (trx) => {
          const projectIds = await touchTasksOf(trx, id);
          const row = await trx
            .updateTable('labels')
            .set({
              ...(body.name !== undefined ? { name: body.name, name_key: labelKey(body.name) } : {}),
              ...(body.color !== undefined ? { color: body.color } : {}),
              updated_at: nowIso(),
            })
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirstOrThrow();
          return { row, projectIds };
        }),
      );
      live.publish(userId, [LABELS_PATH]);
      await tasksChanged(projectIds);
      return toLabel(row);
    },

    /** Deletes the label: it leaves every task it was on. */
    async removeLabel(userId: number, id: number): Promise<void> {
      await findLabel(userId, id);
      const projectIds = await db.transaction().execute(async (trx) => {
        const projectIds = await touchTasksOf(trx, id);
        await trx.deleteFrom('task_labels').where('label_id', '=', id).execute();
        await trx.deleteFrom('labels').where('id', '=', id).execute();
        return projectIds;
      });
      live.publish(userId, [LABELS_PATH]);
      await tasksChanged(projectIds);
    },

    async listFilters(userId: number): Promise<SavedFilter[]> {
      const rows = await db
        .selectFrom('saved_filters')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toFilter);
    },

    async createFilter(userId: number, body: CreateFilterBody): Promise<SavedFilter> {
      const query = checkFilterQuery(body.query);
      const now = nowIso();
      const row = await db
        .insertInto('saved_filters')
        .values({ user_id: userId, name: body.name, query, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      live.publish(userId, [FILTERS_PATH]);
      return toFilter(row);
    },

    async updateFilter(userId: number, id: number, body: UpdateFilterBody): Promise<SavedFilter> {
      await findFilter(userId, id);
      const query = body.query === undefined ? undefined : checkFilterQuery(body.query);
      const row = await db
        .updateTable('saved_filters')
        .set({ name: body.name, query, updated_at: nowIso() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      live.publish(userId, [FILTERS_PATH]);
      return toFilter(row);
    },

    async removeFilter(userId: number, id: number): Promise<void> {
      await findFilter(userId, id);
      await db.deleteFrom('saved_filters').where('id', '=', id).execute();
      live.publish(userId, [FILTERS_PATH]);
    },
  };
}

export type LabelService = ReturnType<typeof createLabelService>;
