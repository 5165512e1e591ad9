import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import { CSV_COLUMNS, DATA_LIMITS, type ExportDocument, type ImportResult } from '../../common/data';
import { ARCHIVED_TASKS_PATH, TASKS_PATH } from '../../common/tasks';
import type { Database } from '../db/schema';
import { toBool, toIso } from '../db/values';
import type { LiveBus } from '../live/bus';
import { insertTasksOnTop } from '../tasks/bulk';
import { toTask } from '../tasks/repository';
import { type ParsedFile, parseImportFile } from './parse';
import { createDataRepository } from './repository';

/** The agent lists the client keeps (src/client/agents/api.ts), refetched when an import adds agents. */
const AGENT_PATHS = ['/api/ai-agents', '/api/ai-contexts'];

export interface DataServiceDeps {
  db: Kysely<Database>;
  live: LiveBus;
}

/** Your data out (JSON or CSV) and tasks in (Tasklane's JSON or CSV, Todoist's CSV): issue 13. */
export function createDataService({ db, live }: DataServiceDeps) {
  const data = createDataRepository(db);

  const exportDocument = async (userId: number): Promise<ExportDocument> => {
    const [tasks, items, agents] = await Promise.all([
      data.tasks(userId),
      data.checklistItems(userId),
      data.agents(userId),
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
        const { userId: _owner, ...task } = toTask(row);
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
    };
  };

  return {
    exportJson: async (userId: number): Promise<string> =>
      JSON.stringify(await exportDocument(userId), null, 2),

    /** One row per task; a byte-order mark so spreadsheets read it as UTF-8. */
    async exportCsv(userId: number): Promise<string> {
      const tasks = (await data.tasks(userId)).map(toTask);
      return stringify(
        tasks.map((task) => ({
          title: task.title,
          description: task.description ?? '',
          dueDate: task.dueDate ?? '',
          completed: String(task.completed),
          archived: String(task.archived),
          notes: task.notes ?? '',
          createdAt: task.createdAt,
        })),
        { header: true, columns: [...CSV_COLUMNS], bom: true },
      );
    },

    /**
     * Reads the file (UnreadableFileError: nothing imported) and, unless it is a dry run, adds its
     * tasks on top of the list in the file's order, with its agents, in one transaction.
     */
    async import(userId: number, file: Buffer, dryRun: boolean): Promise<ImportResult> {
      const parsed = await parseImportFile(file);
      const result = {
        imported: parsed.tasks.length,
        skipped: parsed.skipped,
        errors: parsed.errors.slice(0, DATA_LIMITS.errorsListed),
      };
      if (dryRun || (parsed.tasks.length === 0 && parsed.agents.length === 0)) return result;
      await db.transaction().execute(async (trx) => write(trx, userId, parsed));
      live.publish(userId, [TASKS_PATH, ARCHIVED_TASKS_PATH, ...AGENT_PATHS]);
      return result;
    },
  };
}

/**
 * The file's agents become the user's (one with the same title and prompt is reused, so importing
 * twice does not double them), then its tasks, each linked to its agent's new id.
 */
async function write(trx: Kysely<Database>, userId: number, parsed: ParsedFile) {
  const repository = createDataRepository(trx);
  const agentIds = new Map<number, number>();
  if (parsed.agents.length > 0) {
    const existing = await repository.agents(userId);
    for (const agent of parsed.agents) {
      const same = existing.find((a) => a.title === agent.title && a.prompt === agent.prompt);
      agentIds.set(agent.ref, same?.id ?? (await repository.insertAgent(userId, agent)));
    }
  }
  await insertTasksOnTop(
    trx,
    userId,
    parsed.tasks.map(({ agentRef, ...task }) => ({
      ...task,
      contextId: agentRef === null ? null : (agentIds.get(agentRef) ?? null),
    })),
  );
}

export type DataService = ReturnType<typeof createDataService>;
