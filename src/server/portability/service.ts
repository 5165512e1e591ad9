import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import {
  CSV_COLUMNS,
  DATA_LIMITS,
  type ExportDocument,
  type ImportResult,
  PARENT_PATH_SEPARATOR,
} from '../../common/data';
import { labelKey } from '../../common/labels';
import { DEFAULT_PROJECT_COLOR, PROJECTS_PATH } from '../../common/projects';
import { projectSectionsPath } from '../../common/sections';
import { ARCHIVED_TASKS_PATH, TASKS_PATH, type Task } from '../../common/tasks';
import { type Access, projectNotFound } from '../access';
import { recordActivity } from '../activity/repository';
import { userTimeZone } from '../auth/users';
import type { Database } from '../db/schema';
import { nowIso, toBool, toIso } from '../db/values';
import type { LiveBus } from '../live/bus';
import type { ProjectEvents } from '../live/projects';
import { sectionsNamed } from '../sections/service';
import { insertTasksOnTop } from '../tasks/bulk';
import type { ListEncoding } from '../tasks/list-cache';
import { toTask } from '../tasks/repository';
import type { TaskService } from '../tasks/service';
import { keepLeadingQuote } from './formulas';
import { type ParsedFile, parseImportFile } from './parse';
import { createDataRepository } from './repository';

/** The agent lists the client keeps (src/client/agents/api.ts), refetched when an import adds agents. */
const AGENT_PATHS = ['/api/ai-agents', '/api/ai-contexts'];

export interface DataServiceDeps {
  db: Kysely<Database>;
  live: LiveBus;
  access: Access;
  /** The project's members' streams (../live/projects). */
  projectEvents: ProjectEvents;
  /** A person's zone until they or their browser set one (issue 28). */
  defaultTimeZone: string;
  /** Reads a project's list into the tasks' list cache (../tasks/service). */
  warmList: TaskService['warmList'];
}

/**
 * Your data out (JSON or CSV) and tasks in (Tasklane's JSON or CSV, Todoist's CSV): issue 13. An
 * export holds the caller's Inbox and the projects they own (issue 21), not those they are only a
 * member of; an import goes into a project where the caller is editor or more, by default the Inbox.
 */
export function createDataService({
  db,
  live,
  access,
  projectEvents,
  defaultTimeZone,
  warmList,
}: DataServiceDeps) {
  const data = createDataRepository(db);

  /** The caller's tasks to export: the Inbox first, then every project they own. */
  const ownTasks = async (userId: number) => {
    // An export is of everything the caller owns: not for a token limited to some projects.
    access.requireAllProjects(userId);
    const [inbox, memberships] = await Promise.all([
      access.listScope(userId, undefined),
      access.memberships(userId),
    ]);
    if (!inbox) throw projectNotFound();
    const owned = [...memberships].filter(([, role]) => role === 'owner').map(([projectId]) => projectId);
    return { rows: await data.tasks(owned, inbox.projectId), projectIds: owned };
  };

  const exportDocument = async (userId: number): Promise<ExportDocument> => {
    const [{ rows: tasks, projectIds }, agents] = await Promise.all([ownTasks(userId), data.agents(userId)]);
    const [items, relations] = await Promise.all([
      data.checklistItems(projectIds),
      data.relations(projectIds),
    ]);
    const itemsOf = new Map<number, Array<{ title: string; done: boolean }>>();
    for (const item of items) {
      const list = itemsOf.get(item.task_id) ?? [];
      list.push({ title: item.title, done: toBool(item.done) });
      itemsOf.set(item.task_id, list);
    }
    return {
      format: 'tasklane',
      version: 1,
      exportedAt: new Date().toISOString(),
      tasks: tasks.map((row) => {
        // A person's own file: which project, whose assignments and how many comments belong to
        // this server, not to the file.
        const {
          userId: _owner,
          projectId: _project,
          assigneeIds: _assignees,
          commentCount: _comments,
          labels: _labels,
          subtasks: _subtasks,
          blockedBy: _blockedBy,
          version: _version,
          ...task
        } = toTask(row);
        return { ...task, checklistItems: itemsOf.get(row.id) ?? [] };
      }),
      agents: agents.map((agent) => ({
        id: agent.id,
        title: agent.title,
        prompt: agent.prompt,
        model: agent.model,
        createdAt: toIso(agent.created_at),
        updatedAt: toIso(agent.updated_at),
      })),
      relations: relations.map((relation) => ({
        taskId: relation.task_id,
        otherTaskId: relation.other_task_id,
        kind: relation.kind,
      })),
    };
  };

  return {
    exportJson: async (userId: number): Promise<string> =>
      JSON.stringify(await exportDocument(userId), null, 2),

    /**
     * One row per task; a byte-order mark so spreadsheets read it as UTF-8, CRLF after every record
     * (RFC 4180), and no cell a spreadsheet would run as a formula (formulas.ts).
     */
    async exportCsv(userId: number): Promise<string> {
      const tasks = (await ownTasks(userId)).rows.map((row) => toTask(row));
      // Issue 29: each task's parent as its title path from the top, 'Plan trip > Book flights'.
      const byId = new Map(tasks.map((task) => [task.id, task]));
      const pathOf = new Map<number, string>();
      const parentPath = (task: Task): string => {
        const parent = task.parentId === null ? undefined : byId.get(task.parentId);
        if (!parent) return '';
        const known = pathOf.get(parent.id);
        if (known !== undefined) return known;
        pathOf.set(parent.id, parent.title); // on the way: a loop stops here
        const above = parentPath(parent);
        const path = above ? `${above}${PARENT_PATH_SEPARATOR}${parent.title}` : parent.title;
        pathOf.set(parent.id, path);
        return path;
      };
      return stringify(
        tasks.map((task) => ({
          title: task.title,
          description: task.description ?? '',
          dueDate: task.dueDate ?? '',
          completed: String(task.completed),
          archived: String(task.archived),
          notes: task.notes ?? '',
          createdAt: task.createdAt,
          dueTime: task.dueTime ?? '',
          dueTimeZone: task.dueTimeZone ?? '',
          recurrence: task.recurrence ?? '',
          recurrenceFrom: task.recurrenceFrom,
          priority: String(task.priority),
          parent: parentPath(task),
        })),
        {
          header: true,
          columns: [...CSV_COLUMNS],
          bom: true,
          record_delimiter: 'windows',
          // Off by default once record_delimiter is set: a value with a bare \n must still be quoted.
          quote_record_delimiter: true,
          escape_formulas: true,
          cast: { string: keepLeadingQuote },
        },
      );
    },

    /**
     * Reads the file (UnreadableFileError: nothing imported) and, unless it is a dry run, adds its
     * tasks on top of the project's list (the Inbox without `projectId`) in the file's order, with
     * its agents, in one transaction. The project is checked first, dry run or not: 404 for a
     * non-member, 403 below editor, 409 when archived.
     */
    async import(
      userId: number,
      file: Buffer,
      { dryRun, projectId: target }: { dryRun: boolean; projectId?: number },
      encoding: ListEncoding | null = null,
    ): Promise<ImportResult> {
      const { id: projectId } = await access.requireWritableProject({ id: userId }, target);
      // A due time in a file without its zone (a Todoist row without TIMEZONE) is read in the importer's.
      const zone = await db
        .selectFrom('users')
        .select('time_zone')
        .where('id', '=', userId)
        .executeTakeFirst();
      const parsed = await parseImportFile(
        file,
        new Date(),
        userTimeZone(zone?.time_zone ?? null, defaultTimeZone),
      );
      const result = {
        imported: parsed.tasks.length,
        skipped: parsed.skipped,
        errors: parsed.errors.slice(0, DATA_LIMITS.errorsListed),
        notices: parsed.notices.slice(0, DATA_LIMITS.errorsListed),
      };
      if (dryRun || (parsed.tasks.length === 0 && parsed.agents.length === 0)) return result;
      await db.transaction().execute(async (trx) => write(trx, userId, projectId, parsed));
      // The list is read once here, before every open page of the project is told to read it:
      // their GETs (and the importer's next screen, a board of thousands) are then the cache's.
      // Not the import's failure if that read fails: the next GET reads it again, and says why.
      await warmList(userId, projectId, encoding).catch(() => undefined);
      await projectEvents(
        [projectId],
        [TASKS_PATH, ARCHIVED_TASKS_PATH, PROJECTS_PATH, projectSectionsPath(projectId)],
      );
      if (parsed.agents.length > 0) live.publish(userId, AGENT_PATHS);
      return result;
    },
  };
}

/**
 * The file's agents become the user's (one with the same title and prompt is reused, so importing
 * twice does not double them), then its tasks, each linked to its agent's new id.
 */
async function write(trx: Kysely<Database>, userId: number, projectId: number, file: ParsedFile) {
  const parsed = inTreeOrder(file);
  const repository = createDataRepository(trx);
  const agentIds = new Map<number, number>();
  if (parsed.agents.length > 0) {
    const existing = await repository.agents(userId);
    for (const agent of parsed.agents) {
      const same = existing.find((a) => a.title === agent.title && a.prompt === agent.prompt);
      agentIds.set(agent.ref, same?.id ?? (await repository.insertAgent(userId, agent)));
    }
  }
  const sectionIds = await sectionsNamed(trx, projectId, [
    ...new Set(parsed.tasks.flatMap((task) => (task.section ? [task.section] : []))),
  ]);
  const taskIds = await insertTasksOnTop(
    trx,
    userId,
    projectId,
    parsed.tasks.map(({ agentRef, section, ...task }) => ({
      ...task,
      contextId: agentRef === null ? null : (agentIds.get(agentRef) ?? null),
      sectionId: section ? (sectionIds.get(section) ?? null) : null,
    })),
  );
  await repository.insertRelations(
    userId,
    parsed.relations.map(({ from, to, kind }) => ({
      taskId: taskIds[from]!,
      otherTaskId: taskIds[to]!,
      kind,
    })),
  );
  await addLabels(
    trx,
    userId,
    taskIds.map((taskId, i) => ({ taskId, names: parsed.tasks[i]?.labels ?? [] })),
  );
  await recordActivity(
    trx,
    taskIds.map((taskId) => ({ taskId, actorId: userId, kind: 'created' as const })),
  );
}

/**
 * Issue 29: the file's tasks with each parent before its sub-tasks, as insertTasksOnTop nests them
 * (a sub-task of a JSON export's archive may come before its parent): every top-level task in the
 * file's order, each followed by its sub-tasks (and theirs) in the file's order. The relations follow.
 */
export function inTreeOrder(file: ParsedFile): ParsedFile {
  const { tasks } = file;
  if (tasks.every((task, i) => task.parentIndex === undefined || task.parentIndex < i)) return file;
  const children = new Map<number, number[]>();
  const roots: number[] = [];
  tasks.forEach((task, i) => {
    const parent = task.parentIndex;
    if (parent === undefined || parent === i || tasks[parent] === undefined) roots.push(i);
    else children.set(parent, [...(children.get(parent) ?? []), i]);
  });
  const order: number[] = [];
  const visit = (i: number) => {
    order.push(i);
    for (const child of children.get(i) ?? []) visit(child);
  };
  for (const root of roots) visit(root);
  // A loop of parents (the parser breaks them) would leave tasks unvisited: they come last, top-level.
  const placed = new Set(order);
  for (let i = 0; i < tasks.length; i++) if (!placed.has(i)) order.push(i);
  const at = new Map(order.map((old, index) => [old, index]));
  return {
    ...file,
    tasks: order.map((old) => {
      const { parentIndex, ...task } = tasks[old]!;
      const parent = parentIndex === undefined ? undefined : at.get(parentIndex);
      return parent !== undefined && parent < at.get(old)! ? { ...task, parentIndex: parent } : task;
    }),
    relations: file.relations.map(({ from, to, kind }) => ({ from: at.get(from)!, to: at.get(to)!, kind })),
  };
}

/** The importer's labels of these names (made when they have none of that name, in grey) on the tasks. */
async function addLabels(
  trx: Kysely<Database>,
  userId: number,
  tagged: Array<{ taskId: number; names: string[] }>,
): Promise<void> {
  const wanted = new Map<string, string>();
  for (const { names } of tagged)
    for (const name of names) if (!wanted.has(labelKey(name))) wanted.set(labelKey(name), name);
  if (wanted.size === 0) return;
  const existing = await trx
    .selectFrom('labels')
    .select(['id', 'name_key'])
    .where('user_id', '=', userId)
    .execute();
  const ids = new Map(existing.map((row) => [row.name_key, row.id]));
  const now = nowIso();
  for (const [key, name] of wanted) {
    if (ids.has(key)) continue;
    const row = await trx
      .insertInto('labels')
      .values({
        user_id: userId,
        name,
        name_key: key,
        color: DEFAULT_PROJECT_COLOR,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.set(key, row.id);
  }
  const rows = tagged.flatMap(({ taskId, names }) =>
    [...new Set(names.map(labelKey))].map((key) => ({ task_id: taskId, label_id: ids.get(key)! })),
  );
  for (let at = 0; at < rows.length; at += 400) {
    await trx
      .insertInto('task_labels')
      .values(rows.slice(at, at + 400))
      .execute();
  }
}

export type DataService = ReturnType<typeof createDataService>;
