import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { version } from '../../../package.json';
import type { Agent } from '../../common/agents';
import type { ChecklistItem } from '../../common/checklist';
import { createChecklistItemBodySchema } from '../../common/checklist';
import { idSchema } from '../../common/ids';
import { recurrenceText } from '../../common/recurrence';
import { RELATION_KINDS, RELATION_LABELS, type Relation } from '../../common/relations';
import {
  ALL_PROJECTS,
  createTaskBodySchema,
  type Task,
  type TaskListQuery,
  taskListQuerySchema,
  updateTaskBodySchema,
} from '../../common/tasks';
import { type AgentRepository, toAgent } from '../agents/repository';
import { DATABASE_UNAVAILABLE, HttpError, isDatabaseUnavailable } from '../http/errors';
import { onFirstUse } from '../on-first-use';
import type { ProjectService } from '../projects/service';
import type { RelationService } from '../relations/service';
import type { ChecklistService } from '../tasks/checklist';
import type { TaskService } from '../tasks/service';

/**
 * The MCP tools (decision 021): each takes its arguments through the API's own Zod schemas (the
 * SDK validates them and answers a bad one with `isError` naming the field) and works through the
 * features' services, so a change made over MCP reaches open browsers like one made in the app.
 */

export const MCP_TOOL_NAMES = [
  'list_tasks',
  'get_task',
  'create_task',
  'update_task',
  'complete_task',
  'add_checklist_item',
  'add_relation',
  'list_agents',
  'list_projects',
] as const;

/**
 * What a read-only token lists and may call: the read tools issue 24 names, to the letter
 * (list_projects, added with projects, is left to tokens that can write).
 */
export const MCP_READ_TOOLS: ReadonlySet<string> = new Set(['list_tasks', 'get_task', 'list_agents']);

export const MCP_MESSAGES = {
  unexpected: 'Something went wrong on our side. Please try again.',
} as const;

const taskId = idSchema('taskId').describe('The id of a task you can see (list_tasks shows them).');
/** Tasks call an agent `contextId` in the API; over MCP it is `agentId`, as in the list filter. */
const agentId = idSchema('agentId')
  .nullable()
  .optional()
  .describe('The id of one of your AI agents (list_agents shows them); null for none.');

/**
 * GET /api/tasks's filters, with their rules (a due window in order). JSON arguments carry a real
 * boolean for `hasFiles`, where the query string has the words 'true' and 'false': both are taken.
 */
export const listTasksInput = taskListQuerySchema
  .safeExtend({
    hasFiles: z.preprocess(
      (value) => (value === 'true' ? true : value === 'false' ? false : value),
      z.boolean({ error: 'hasFiles must be true or false' }).optional(),
    ),
  })
  .strict();

export const getTaskInput = z.strictObject({ taskId });

/** POST /api/tasks: the fields a person sets on a new task, and its project (the Inbox without one). */
export const createTaskInput = createTaskBodySchema
  .pick({
    title: true,
    description: true,
    dueDate: true,
    projectId: true,
    dueTime: true,
    recurrence: true,
    recurrenceFrom: true,
    priority: true,
    labelIds: true,
    parentId: true,
  })
  .extend({ agentId });

/**
 * PATCH /api/tasks/{id}: the fields a person edits (the AI draft fields are the app's own), moving
 * it to another project and assigning it.
 */
export const updateTaskInput = updateTaskBodySchema
  .pick({
    title: true,
    description: true,
    notes: true,
    dueDate: true,
    completed: true,
    archived: true,
    projectId: true,
    assigneeIds: true,
    dueTime: true,
    recurrence: true,
    recurrenceFrom: true,
    priority: true,
    labelIds: true,
    parentId: true,
  })
  .extend({ taskId, agentId });

export const completeTaskInput = z.strictObject({
  taskId,
  final: z
    .boolean()
    .optional()
    .describe('For a recurring task: true ends the series and archives it (Complete forever).'),
});

/** POST /api/tasks/{id}/checklist. */
export const addChecklistItemInput = createChecklistItemBodySchema.extend({ taskId });

/** POST /api/tasks/{id}/relations: task `taskId` `kind` task `otherTaskId`. */
export const addRelationInput = z.strictObject({
  taskId,
  kind: z
    .enum(RELATION_KINDS, { error: `kind must be one of ${RELATION_KINDS.join(', ')}` })
    .describe(
      'How taskId stands to otherTaskId: blocks, blocked_by, relates_to, duplicate_of or duplicated_by.',
    ),
  otherTaskId: idSchema('otherTaskId').describe('The id of the other task (one you can see).'),
});

export const listAgentsInput = z.strictObject({});

export const listProjectsInput = z.strictObject({});

export interface McpToolDeps {
  tasks: TaskService;
  checklists: ChecklistService;
  agents: AgentRepository;
  projects: Pick<ProjectService, 'list'>;
  relations: RelationService;
  logger: FastifyBaseLogger;
}

const quoted = (text: string) => JSON.stringify(text);
const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/**
 * `#12 "Buy milk" · due 2026-05-01 · done`: one line per task in a list; a list that spans
 * projects names each task's (`project 3`).
 */
export function taskLine(task: Task, { withProject = false } = {}): string {
  const parts = [
    `#${task.id} ${quoted(task.title)}`,
    task.dueDate
      ? `due ${task.dueDate}${task.dueTime ? ` ${task.dueTime} ${task.dueTimeZone ?? 'UTC'}` : ''}`
      : 'no due date',
    task.completed ? 'done' : 'not done',
  ];
  if (task.recurrence)
    parts.push(
      `repeats ${recurrenceText(task.recurrence)}${task.recurrenceFrom === 'completion' ? ' from completion' : ''}`,
    );
  if (task.priority < 4) parts.push(`P${task.priority}`);
  if (task.labels.length > 0) parts.push(task.labels.map((label) => `@${label.name}`).join(' '));
  if (task.checklist.total > 0) parts.push(`checklist ${task.checklist.done}/${task.checklist.total}`);
  if (task.archived) parts.push('archived');
  if (withProject) parts.push(`project ${task.projectId}`);
  return parts.join(' · ');
}

const named = (task: Task) => `task ${task.id} ${quoted(task.title)}`;

/** `Blocked by #7 "Book flights" (done)`: a relation as read from the task it is on. */
const relationLine = (relation: Relation) =>
  `${RELATION_LABELS[relation.kind]} #${relation.otherTaskId} ${quoted(relation.otherTitle)}${relation.otherCompleted ? ' (done)' : ''} (relation ${relation.id})`;

interface TaskStructure {
  subtasks: Task[];
  relations: Relation[];
}

function taskDetails(
  task: Task,
  items: ChecklistItem[],
  agent: Agent | undefined,
  { subtasks, relations }: TaskStructure,
): string {
  const lines = [
    `Task ${task.id} ${quoted(task.title)}`,
    `Project: ${task.projectId}`,
    `Parent: ${task.parentId === null ? 'none (top-level)' : `#${task.parentId}`}`,
    `Due: ${task.dueDate ?? 'none'}${task.dueTime ? ` ${task.dueTime} (${task.dueTimeZone ?? 'UTC'})` : ''}`,
    `Repeats: ${task.recurrence ? `${recurrenceText(task.recurrence)} (RRULE ${task.recurrence}; next date counts from ${task.recurrenceFrom === 'completion' ? 'completion' : 'the due date'})` : 'no'}`,
    `Done: ${yesNo(task.completed)}`,
    `Archived: ${yesNo(task.archived)}`,
  ];
  if (task.assigneeIds.length > 0) lines.push(`Assignees (user ids): ${task.assigneeIds.join(', ')}`);
  if (task.priority < 4) lines.push(`Priority: P${task.priority}`);
  if (task.labels.length > 0)
    lines.push(`Labels: ${task.labels.map((label) => `${label.name} (#${label.id})`).join(', ')}`);
  if (task.contextId !== null) lines.push(`Agent: ${agent ? agentLine(agent) : `#${task.contextId}`}`);
  lines.push(`Description: ${task.description ?? '(none)'}`);
  if (task.notes) lines.push(`Notes: ${task.notes}`);
  if (items.length === 0) lines.push('Checklist: (empty)');
  else {
    lines.push(`Checklist (${task.checklist.done}/${task.checklist.total} done):`);
    for (const item of items) lines.push(`- [${item.done ? 'x' : ' '}] ${item.title} (item ${item.id})`);
  }
  if (subtasks.length === 0) lines.push('Sub-tasks: (none)');
  else {
    lines.push(`Sub-tasks (${subtasks.filter((sub) => sub.completed).length}/${subtasks.length} done):`);
    for (const sub of subtasks)
      lines.push(`- [${sub.completed ? 'x' : ' '}] #${sub.id} ${quoted(sub.title)}`);
  }
  if (task.blockedBy > 0)
    lines.push(`Blocked: by ${task.blockedBy} open ${task.blockedBy === 1 ? 'task' : 'tasks'}`);
  if (relations.length === 0) lines.push('Dependencies: (none)');
  else {
    lines.push('Dependencies:');
    for (const relation of relations) lines.push(`- ${relationLine(relation)}`);
  }
  lines.push(`Created: ${task.createdAt}`, `Updated: ${task.updatedAt}`);
  return lines.join('\n');
}

function agentLine(agent: Agent): string {
  const prompt = agent.prompt.split('\n')[0]?.trim() ?? '';
  const short = prompt.length > 120 ? `${prompt.slice(0, 119)}…` : prompt;
  return `#${agent.id} ${quoted(agent.title)}${short ? ` · ${short}` : ''}`;
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const failure = (message: string): CallToolResult => ({
  content: [{ type: 'text', text: message }],
  isError: true,
});

/** The SDK's server, loaded at the first MCP request (decision 027). */
const mcpServerSdk = onFirstUse(() => import('@modelcontextprotocol/sdk/server/mcp.js'));

/**
 * One MCP server for one caller: stateless, made anew for each request (routes.ts). A read-only
 * token's (`canWrite` false) has the read tools alone.
 */
export async function createMcpServer(
  userId: number,
  { tasks, checklists, agents, projects, relations, logger }: McpToolDeps,
  { canWrite }: { canWrite: boolean },
): Promise<McpServer> {
  const { McpServer } = await mcpServerSdk();
  const server = new McpServer(
    { name: 'tasklane', title: 'Tasklane', version },
    {
      instructions: `Tasklane is a task manager. Tasks have an id, a title, an optional description, notes, a due date (YYYY-MM-DD), a done flag, a checklist and assignees; an AI agent can be attached to one. Every task is in a project: your own Inbox, or a project shared with you, where your role (viewer, commenter, editor, admin, owner) says what you may do. ${canWrite ? 'Use list_projects to find project ids and list_tasks to find task ids.' : 'This token can only read. Use list_tasks to find task ids.'}`,
    },
  );

  /**
   * A service's refusal (a task you cannot see or change, an agent that is not yours) is the
   * tool's answer with `isError`; anything else is logged and answered without detail.
   */
  const run = async (action: () => Promise<string>): Promise<CallToolResult> => {
    try {
      return text(await action());
    } catch (error) {
      if (error instanceof HttpError && error.statusCode < 500) return failure(error.message);
      if (isDatabaseUnavailable(error)) return failure(DATABASE_UNAVAILABLE);
      logger.error({ err: error }, 'MCP tool failed');
      return failure(MCP_MESSAGES.unexpected);
    }
  };

  /** Every tool, but a read-only token's server keeps the read tools alone. */
  const registerTool: McpServer['registerTool'] = (name, config, callback) => {
    const tool = server.registerTool(name, config, callback);
    if (!canWrite && !MCP_READ_TOOLS.has(name)) tool.remove();
    return tool;
  };

  const activeTasks = async (query: TaskListQuery = {}): Promise<Task[]> =>
    JSON.parse((await tasks.activeList(userId, query)).json().toString('utf8')) as Task[];

  registerTool(
    'list_tasks',
    {
      title: 'List tasks',
      description:
        'Active (not archived) tasks in list order, one line each: id, title, due date, done. Without projectId, your Inbox; projectId is a project id (list_projects) or "all" (every project you belong to); assignee "me" lists the tasks assigned to you, in any project, and "me_or_unassigned" adds the tasks assigned to nobody in the projects where you are an editor or more. Filters: q (every word must occur in the title, description, notes or a checklist item), due (overdue, today, week, none: today in your time zone), hasFiles, agentId.',
      inputSchema: listTasksInput,
      annotations: { readOnlyHint: true },
    },
    (query) =>
      run(async () => {
        const found = await activeTasks(query);
        if (found.length === 0) return 'No tasks found.';
        const withProject = query.projectId === ALL_PROJECTS || query.assignee !== undefined;
        return found.map((task) => taskLine(task, { withProject })).join('\n');
      }),
  );

  registerTool(
    'get_task',
    {
      title: 'Get a task',
      description:
        "One task in full: project, parent task, due date, done, assignees, agent, description, notes, its checklist, its direct sub-tasks (id, title, done) and its dependencies (blocks, blocked by, relates to, duplicate of, with the other task's id and title).",
      inputSchema: getTaskInput,
      annotations: { readOnlyHint: true },
    },
    ({ taskId }) =>
      run(async () => {
        const task = await tasks.get(userId, taskId);
        const items = await checklists.list(userId, taskId);
        const agent = task.contextId === null ? undefined : await agents.find(userId, task.contextId);
        // Direct sub-tasks: the open ones and the completed ones still under their parent.
        const subtasks = (await activeTasks({ projectId: task.projectId, parentId: task.id })).filter(
          (sub) => sub.parentId === task.id,
        );
        const related = await relations.list(userId, taskId);
        return taskDetails(task, items, agent && toAgent(agent), { subtasks, relations: related });
      }),
  );

  registerTool(
    'create_task',
    {
      title: 'Create a task',
      description:
        "Adds a task at the top of a list: your Inbox, or the project named by projectId (you must be an editor there). dueDate is YYYY-MM-DD; dueTime 'HH:MM' in your time zone (needs dueDate); recurrence an RFC 5545 RRULE such as FREQ=WEEKLY;BYDAY=MO (needs dueDate), recurrenceFrom 'due' or 'completion'; priority 1 (urgent) to 4 (none); labelIds your labels' ids; agentId attaches one of your AI agents; parentId makes it a sub-task of that task (in the parent's project, at most 4 levels deep).",
      inputSchema: createTaskInput,
    },
    ({ agentId, ...fields }) =>
      run(async () => {
        const task = await tasks.create(userId, {
          ...fields,
          completed: false,
          archived: false,
          contextId: agentId ?? null,
          sectionId: null,
          parentId: fields.parentId ?? null,
        });
        return `Created ${named(task)}\n${taskLine(task)}`;
      }),
  );

  registerTool(
    'update_task',
    {
      title: 'Change a task',
      description:
        "Changes any of title, description, notes, dueDate (YYYY-MM-DD, null for none: clears dueTime and recurrence too), dueTime ('HH:MM' in your time zone, null for none), recurrence (an RRULE, null for none), recurrenceFrom ('due' or 'completion'), completed, archived, agentId; projectId moves the task to another project; assigneeIds (user ids, members of its project) replaces its assignees; priority 1 (urgent) to 4 (none); labelIds (ids of your own labels) replaces your labels on it; parentId moves it under another task of its project (null makes it top-level). The fields left out stay as they are. You must be an editor of the task's project. Completed and archived are one state: completing archives the task, reopening restores it.",
      inputSchema: updateTaskInput,
    },
    ({ taskId, agentId, ...fields }) =>
      run(async () => {
        const task = await tasks.update(userId, taskId, { ...fields, contextId: agentId });
        return `Updated ${named(task)}\n${taskLine(task)}`;
      }),
  );

  registerTool(
    'complete_task',
    {
      title: 'Complete a task',
      description:
        'Marks a task as done, which archives it, as in the app: it leaves list_tasks. A recurring task instead moves on to its next due date and stays active (its checklist unticked); final: true ends the series and archives it.',
      inputSchema: completeTaskInput,
    },
    ({ taskId, final }) =>
      run(async () => {
        const task = await tasks.complete(userId, taskId, { final });
        return task.archived
          ? `Completed ${named(task)}`
          : `Completed ${named(task)}; next due ${task.dueDate}${task.dueTime ? ` ${task.dueTime}` : ''}`;
      }),
  );

  registerTool(
    'add_checklist_item',
    {
      title: 'Add a checklist item',
      description: "Adds an item to the bottom of a task's checklist.",
      inputSchema: addChecklistItemInput,
    },
    ({ taskId, title }) =>
      run(async () => {
        const item = await checklists.add(userId, taskId, title);
        const task = await tasks.get(userId, taskId);
        return `Added ${quoted(item.title)} (item ${item.id}) to the checklist of ${named(task)} (${task.checklist.done}/${task.checklist.total} done)`;
      }),
  );

  registerTool(
    'add_relation',
    {
      title: 'Add a dependency',
      description:
        'Relates two tasks: taskId kind otherTaskId, where kind is blocks, blocked_by, relates_to, duplicate_of or duplicated_by ("taskId blocked_by otherTaskId": taskId waits for otherTaskId). You must be an editor of taskId\'s project and able to see otherTaskId, which may be in another project. A chain of blocked tasks may not loop.',
      inputSchema: addRelationInput,
    },
    ({ taskId, kind, otherTaskId }) =>
      run(async () => {
        const relation = await relations.create(userId, taskId, { kind, taskId: otherTaskId });
        const task = await tasks.get(userId, taskId);
        return `Added to ${named(task)}: ${relationLine(relation)}`;
      }),
  );

  registerTool(
    'list_agents',
    {
      title: 'List AI agents',
      description: 'Your AI agents, one line each: id, title and the start of its prompt.',
      inputSchema: listAgentsInput,
      annotations: { readOnlyHint: true },
    },
    () =>
      run(async () => {
        const rows = await agents.list(userId);
        if (rows.length === 0) return 'You have no AI agents.';
        return rows.map((row) => agentLine(toAgent(row))).join('\n');
      }),
  );

  registerTool(
    'list_projects',
    {
      title: 'List projects',
      description:
        'Your projects as JSON, as GET /api/projects answers: your Inbox first, then every project you belong to, by name, each with id, name, color, inbox, archived, your role, ownerId, memberCount, taskCount and createdAt.',
      inputSchema: listProjectsInput,
      annotations: { readOnlyHint: true },
    },
    () => run(async () => JSON.stringify(await projects.list({ id: userId }))),
  );

  return server;
}
