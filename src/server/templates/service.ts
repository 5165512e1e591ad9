import type { Kysely } from 'kysely';
import { addDays, dateInZone } from '../../common/due';
import { LABELS_PATH, labelKey } from '../../common/labels';
import { DEFAULT_PROJECT_COLOR, PROJECT_COLORS, PROJECTS_PATH, type Project } from '../../common/projects';
import {
  type ApplyTemplateBody,
  type SaveTemplateBody,
  TEMPLATE_LIMITS,
  TEMPLATE_MESSAGES,
  TEMPLATES_PATH,
  type Template,
  type TemplateData,
  type TemplateTask,
  templateDataSchema,
} from '../../common/templates';
import type { Access } from '../access';
import { recordActivity } from '../activity/repository';
import { userTimeZone } from '../auth/users';
import type { Database, TaskRow, UserRow } from '../db/schema';
import { toBool, toIso } from '../db/values';
import { badRequest, conflict, notFound } from '../http/errors';
import type { LiveBus } from '../live/bus';
import { createProjectRepository } from '../projects/repository';
import type { ProjectService } from '../projects/service';
import { createSectionRepository } from '../sections/repository';
import type { SectionService } from '../sections/service';
import { insertTasksOnTop } from '../tasks/bulk';
import type { Clock } from '../time/clock';
import { createTemplateRepository, type TemplateRow } from './repository';

export interface TemplateServiceDeps {
  db: Kysely<Database>;
  access: Access;
  live: Pick<LiveBus, 'publish'>;
  /** 'The day of saving' and nothing else: a test moves it. */
  clock: Clock;
  /** A person's zone until they or their browser set one (issue 28). */
  defaultTimeZone: string;
  /** The new project as POST /api/projects answers it. */
  projects: Pick<ProjectService, 'list'>;
  /** The project's sections, in order (viewer and up). */
  sections: Pick<SectionService, 'list'>;
}

const toTemplate = (row: TemplateRow): Template => ({
  id: row.id,
  name: row.name,
  taskCount: row.task_count,
  createdAt: toIso(row.created_at),
});

const DAY_MS = 86_400_000;
/** Whole days from `from` to `to` (both YYYY-MM-DD), on the calendar alone. */
const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

/**
 * The project's open tasks as a template keeps them: each parent before its sub-tasks, siblings in
 * list order. A task that is done (a completed sub-task of an open parent) is left out with
 * whatever is under it; so is a task whose parent is not among the open ones.
 */
function openTree(rows: TaskRow[]): TaskRow[] {
  const open = new Map(rows.filter((row) => !toBool(row.completed)).map((row) => [row.id, row]));
  const children = new Map<number | null, TaskRow[]>();
  for (const row of open.values()) {
    const parent = row.parent_id ?? null;
    if (parent !== null && !open.has(parent)) continue;
    const list = children.get(parent);
    if (list) list.push(row);
    else children.set(parent, [row]);
  }
  const ordered: TaskRow[] = [];
  // Depth first without recursion: a stack of the siblings still to visit.
  const stack: TaskRow[] = [...(children.get(null) ?? [])].reverse();
  while (stack.length > 0) {
    const row = stack.pop()!;
    ordered.push(row);
    stack.push(...[...(children.get(row.id) ?? [])].reverse());
  }
  return ordered;
}

/**
 * Project templates (issue 29, decision 051). Anyone who can see a project (viewer and up) may save
 * its structure as a template of their own; a template is its owner's alone (another's answers 404,
 * as one that does not exist). Applying one creates a project of the caller's, in one transaction.
 */
export function createTemplateService({
  db,
  access,
  live,
  clock,
  defaultTimeZone,
  projects,
  sections,
}: TemplateServiceDeps) {
  const templates = createTemplateRepository(db);

  /** What the template of this project keeps: its JSON's content and how many tasks it holds. */
  async function capture(user: UserRow, projectId: number, projectName: string, color: string) {
    const [sectionList, rows, labelRows, checklistRows] = await Promise.all([
      sections.list(user.id, projectId),
      templates.openTasks(projectId),
      templates.labelsOnOpenTasks(projectId),
      templates.checklistOfOpenTasks(projectId),
    ]);
    const ordered = openTree(rows);
    if (ordered.length > TEMPLATE_LIMITS.tasksMax) {
      throw badRequest(TEMPLATE_MESSAGES.tooManyTasks(projectName, ordered.length));
    }
    const sectionIndex = new Map(sectionList.map((section, index) => [section.id, index]));
    const taskIndex = new Map(ordered.map((row, index) => [row.id, index]));

    // Each name once (whatever its case), in the colour of the first label of that name.
    const labels = new Map<string, { name: string; color: (typeof PROJECT_COLORS)[number] }>();
    const labelsOf = new Map<number, string[]>();
    for (const row of labelRows) {
      if (!taskIndex.has(row.task_id)) continue;
      const key = labelKey(row.name);
      if (!labels.has(key)) {
        const color = (PROJECT_COLORS as readonly string[]).includes(row.color)
          ? (row.color as (typeof PROJECT_COLORS)[number])
          : DEFAULT_PROJECT_COLOR;
        labels.set(key, { name: row.name, color });
      }
      const names = labelsOf.get(row.task_id) ?? [];
      if (!names.some((name) => labelKey(name) === key)) names.push(labels.get(key)!.name);
      labelsOf.set(row.task_id, names);
    }
    const checklistOf = new Map<number, string[]>();
    for (const row of checklistRows) {
      if (!taskIndex.has(row.task_id)) continue;
      const items = checklistOf.get(row.task_id) ?? [];
      items.push(row.title);
      checklistOf.set(row.task_id, items);
    }

    const today = dateInZone(clock.now(), userTimeZone(user.time_zone, defaultTimeZone));
    const tasks = ordered.map(
      (row): TemplateTask => ({
        title: row.title,
        description: row.description,
        notes: row.notes,
        priority: row.priority ?? 4,
        section: row.section_id === null ? null : (sectionIndex.get(row.section_id) ?? null),
        parent: row.parent_id === null ? null : (taskIndex.get(row.parent_id) ?? null),
        dueOffset: row.due_date ? daysBetween(today, row.due_date) : null,
        dueTime: row.due_date ? (row.due_time ?? null) : null,
        dueTimeZone: row.due_date && row.due_time ? (row.due_time_zone ?? null) : null,
        recurrence: row.due_date ? (row.recurrence ?? null) : null,
        recurrenceFrom: row.recurrence_from === 'completion' ? 'completion' : 'due',
        labels: labelsOf.get(row.id) ?? [],
        checklist: checklistOf.get(row.id) ?? [],
      }),
    );
    const data: TemplateData = {
      version: 1,
      color: (PROJECT_COLORS as readonly string[]).includes(color)
        ? (color as TemplateData['color'])
        : DEFAULT_PROJECT_COLOR,
      sections: sectionList.map((section) => section.name),
      labels: [...labels.values()],
      tasks,
    };
    const json = JSON.stringify(data);
    if (json.length > TEMPLATE_LIMITS.dataMax) throw badRequest(TEMPLATE_MESSAGES.tooLarge(projectName));
    return { json, taskCount: tasks.length };
  }

  /** A stored template's content; one that no longer reads (written by hand?) is refused, not half-applied. */
  const readData = (row: TemplateRow): TemplateData => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.data);
    } catch {
      parsed = undefined;
    }
    const checked = templateDataSchema.safeParse(parsed);
    const data = checked.success ? checked.data : undefined;
    // A parent is an earlier task: the tree cannot loop.
    if (!data || data.tasks.some((task, index) => task.parent !== null && task.parent >= index)) {
      throw conflict(`Template "${row.name}" cannot be read: delete it and save the project again`);
    }
    return data;
  };

  return {
    async list(user: Pick<UserRow, 'id'>): Promise<Template[]> {
      return (await templates.list(user.id)).map(toTemplate);
    },

    async save(user: UserRow, projectId: number, body: SaveTemplateBody): Promise<Template> {
      const { project } = await access.requireProjectRole(user, projectId, 'viewer');
      if ((await templates.count(user.id)) >= TEMPLATE_LIMITS.perUser)
        throw badRequest(TEMPLATE_MESSAGES.tooMany);
      const { json, taskCount } = await capture(user, projectId, project.name, project.color);
      const row = await templates.insert({
        userId: user.id,
        name: body.name ?? project.name,
        data: json,
        taskCount,
      });
      live.publish(user.id, [TEMPLATES_PATH]);
      return toTemplate(row);
    },

    async remove(user: Pick<UserRow, 'id'>, id: number): Promise<void> {
      if (!(await templates.remove(user.id, id))) throw notFound('Template');
      live.publish(user.id, [TEMPLATES_PATH]);
    },

    /**
     * A new project of the caller's from the template: its sections, tasks (sub-tasks under their
     * parents), the caller's labels of the template's names and the checklists, due dates counted
     * from `startDate`. All of it in one transaction.
     */
    async apply(user: UserRow, id: number, body: ApplyTemplateBody): Promise<Project> {
      // Like creating a project: not with a token limited to some (it could not see the new one).
      access.requireAllProjects(user.id);
      const row = await templates.find(user.id, id);
      if (!row) throw notFound('Template');
      const data = readData(row);
      const dueDates = data.tasks.map((task) => {
        if (task.dueOffset === null) return null;
        const date = addDays(body.startDate, task.dueOffset);
        if (!/^[1-9]\d{3}-\d{2}-\d{2}$/.test(date)) throw badRequest(TEMPLATE_MESSAGES.dueDateOutOfRange);
        return date;
      });
      const { projectId, labelsMade } = await db.transaction().execute(async (trx) => {
        const project = await createProjectRepository(trx).insert(user.id, body.name, data.color);
        const sectionRepository = createSectionRepository(trx);
        const sectionIds: number[] = [];
        for (const name of data.sections)
          sectionIds.push((await sectionRepository.insert(project.id, name)).id);
        const trxTemplates = createTemplateRepository(trx);
        const labels = await trxTemplates.labelsNamed(user.id, data.labels);
        const taskIds = await insertTasksOnTop(
          trx,
          user.id,
          project.id,
          data.tasks.map((task, index) => {
            return {
              title: task.title,
              description: task.description,
              notes: task.notes,
              dueDate: dueDates[index] ?? null,
              dueTime: task.dueTime,
              dueTimeZone: task.dueTimeZone,
              recurrence: task.recurrence,
              recurrenceFrom: task.recurrenceFrom,
              sectionId: task.section === null ? null : (sectionIds[task.section] ?? null),
              priority: task.priority,
              completed: false,
              archived: false,
              contextId: null,
              aiDraft: null,
              aiAssisted: false,
              checklistItems: task.checklist.map((title) => ({ title, done: false })),
            };
          }),
        );
        const children = new Map<number, number[]>();
        data.tasks.forEach((task, index) => {
          if (task.parent === null) return;
          const parentId = taskIds[task.parent]!;
          const list = children.get(parentId) ?? [];
          list.push(taskIds[index]!);
          children.set(parentId, list);
        });
        await trxTemplates.setParents(children);
        await trxTemplates.addTaskLabels(
          data.tasks.flatMap((task, index) =>
            [...new Set(task.labels.map(labelKey))].flatMap((key) => {
              const labelId = labels.ids.get(key);
              return labelId === undefined ? [] : [{ task_id: taskIds[index]!, label_id: labelId }];
            }),
          ),
        );
        await recordActivity(
          trx,
          taskIds.map((taskId) => ({ taskId, actorId: user.id, kind: 'created' as const })),
        );
        return { projectId: project.id, labelsMade: labels.created };
      });
      live.publish(user.id, [PROJECTS_PATH, ...(labelsMade ? [LABELS_PATH] : [])]);
      const project = (await projects.list(user)).find((candidate) => candidate.id === projectId);
      if (!project) throw new Error(`project ${projectId} made from template ${id} is not listed`);
      return project;
    },
  };
}

export type TemplateService = ReturnType<typeof createTemplateService>;
