import type { Kysely } from 'kysely';
import { z } from 'zod';
import {
  type AiProposal,
  aiRunsPath,
  isProposalTool,
  PROPOSAL_MESSAGES,
  PROPOSAL_TOOL_NAMES,
  PROPOSAL_TOOLS,
  type ProposalArguments,
  type ProposalTool,
} from '../../common/ai-runs';
import { createTaskBodySchema, type UpdateTaskBody, updateTaskBodySchema } from '../../common/tasks';
import type { Access } from '../access';
import { type ActivityRecord, recordActivity } from '../activity/repository';
import type { AiProposalRow, Database } from '../db/schema';
import { badRequest, conflict, HttpError, notFound } from '../http/errors';
import type { ProjectEvents } from '../live/projects';
import type { ChecklistService } from '../tasks/checklist';
import type { TaskService } from '../tasks/service';
import type { ChatTool, ToolCall } from './ai-client';
import { type NewProposal, type RunRepository, toProposal } from './runs';

/** The tools offered to the model, their parameters the JSON Schema of the API's own field schemas. */
export const PROPOSAL_CHAT_TOOLS: ChatTool[] = PROPOSAL_TOOL_NAMES.map((name) => {
  const { $schema: _, ...parameters } = z.toJSONSchema(PROPOSAL_TOOLS[name].schema, { io: 'input' });
  return { name, description: PROPOSAL_TOOLS[name].description, parameters };
});

/** What the system prompt adds when tools are offered. */
export const PROPOSAL_INSTRUCTIONS =
  'Write your draft as your reply. When a change to the task itself would help (a due date, a ' +
  'clearer title, checklist steps, sub-tasks that split this one, text for the notes), propose it ' +
  'with the tools: the person reviews each proposal and nothing changes until they apply it.';

const firstIssue = (error: z.ZodError) => {
  const issue = error.issues[0];
  if (!issue) return 'invalid arguments';
  // A nested field is named by its path (tasks.1.title), a top-level one by its own message.
  return issue.path.length > 1 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
};

/** A tool call checked with the API's schemas: pending with its parsed arguments, or invalid and why. */
export function checkToolCall(call: ToolCall): NewProposal {
  let args: unknown;
  try {
    args = call.arguments.trim() ? JSON.parse(call.arguments) : {};
  } catch {
    return {
      tool: call.name,
      arguments: call.arguments,
      status: 'invalid',
      error: PROPOSAL_MESSAGES.badJson,
    };
  }
  if (!isProposalTool(call.name)) {
    return {
      tool: call.name,
      arguments: args,
      status: 'invalid',
      error: PROPOSAL_MESSAGES.unknownTool(call.name),
    };
  }
  const result = PROPOSAL_TOOLS[call.name].schema.safeParse(args);
  return result.success
    ? { tool: call.name, arguments: result.data, status: 'pending', error: null }
    : { tool: call.name, arguments: args, status: 'invalid', error: firstIssue(result.error) };
}

export interface ProposalServiceDeps {
  db: Kysely<Database>;
  access: Access;
  runs: RunRepository;
  tasks: TaskService;
  checklists: ChecklistService;
  /** The project's members' streams (../live/projects). */
  projectEvents: ProjectEvents;
}

/**
 * Applying and dismissing proposals: each an ordinary edit with the person's own permissions, which
 * are the project's (editor or more, issue 21), whoever started the run. An applied proposal is in
 * the task's activity (`proposal_applied` {runId}), written in the transaction of the change.
 */
export function createProposalService({
  db,
  access,
  runs,
  tasks,
  checklists,
  projectEvents,
}: ProposalServiceDeps) {
  const historyChanged = (projectId: number, taskId: number) =>
    projectEvents([projectId], [aiRunsPath(taskId)]);

  /** An edit of the task checked as PATCH /api/tasks/{id} checks it: the notes with the text added may be too long. */
  const update = async (userId: number, taskId: number, body: UpdateTaskBody, applied: ActivityRecord) => {
    const parsed = updateTaskBodySchema.safeParse(body);
    if (!parsed.success) throw badRequest(firstIssue(parsed.error));
    await tasks.update(userId, taskId, parsed.data, [applied]);
  };

  async function edit<T extends ProposalTool>(
    userId: number,
    row: AiProposalRow,
    tool: T,
    args: ProposalArguments<T>,
  ) {
    const taskId = row.task_id;
    const applied: ActivityRecord = {
      taskId,
      actorId: userId,
      kind: 'proposal_applied',
      data: { runId: row.run_id },
    };
    switch (tool) {
      case 'set_due_date': {
        const { dueDate } = args as ProposalArguments<'set_due_date'>;
        await update(userId, taskId, { dueDate }, applied);
        return;
      }
      case 'rename_task': {
        const { title } = args as ProposalArguments<'rename_task'>;
        await update(userId, taskId, { title }, applied);
        return;
      }
      case 'add_checklist_items': {
        const { items } = args as ProposalArguments<'add_checklist_items'>;
        await checklists.addMany(userId, taskId, items, [applied]);
        return;
      }
      case 'create_tasks': {
        // The task itself stays: the new ones go on top of its project's list.
        const { projectId } = await tasks.get(userId, taskId);
        await tasks.createMany(userId, projectId, (args as ProposalArguments<'create_tasks'>).tasks, [
          applied,
        ]);
        return;
      }
      case 'create_subtasks': {
        // Issue 29: the task's split becomes its sub-tasks, after any it has, in the proposal's order
        // (each checked as POST /api/tasks {parentId} checks it: a task 4 levels down takes none).
        for (const step of (args as ProposalArguments<'create_subtasks'>).tasks) {
          await tasks.create(userId, createTaskBodySchema.parse({ ...step, parentId: taskId }));
        }
        await recordActivity(db, [applied]);
        return;
      }
      case 'append_notes': {
        const { text } = args as ProposalArguments<'append_notes'>;
        const { notes } = await tasks.get(userId, taskId);
        await update(userId, taskId, { notes: notes ? `${notes}\n\n${text}` : text }, applied);
        return;
      }
    }
  }

  /**
   * The proposal, when the caller is an editor (or more) of its task's project; a non-member is
   * answered as for a proposal that does not exist.
   */
  async function editable(userId: number, id: number) {
    const row = await runs.findProposal(id);
    if (!row) throw notFound(PROPOSAL_MESSAGES.notFound);
    try {
      const { task } = await access.requireTask({ id: userId }, row.task_id, 'editor');
      return { row, projectId: task.project_id };
    } catch (error) {
      if (error instanceof HttpError && error.statusCode === 404) throw notFound(PROPOSAL_MESSAGES.notFound);
      throw error;
    }
  }

  /** 409 naming why a proposal cannot move on from where it is, unless it is pending. */
  function assertPending(row: Pick<AiProposalRow, 'status' | 'error'>) {
    if (row.status === 'applied') throw conflict(PROPOSAL_MESSAGES.alreadyApplied);
    if (row.status === 'dismissed') throw conflict(PROPOSAL_MESSAGES.dismissed);
    if (row.status === 'invalid') throw conflict(PROPOSAL_MESSAGES.invalid(row.error ?? 'invalid arguments'));
  }

  return {
    async apply(userId: number, id: number): Promise<AiProposal> {
      const { row, projectId } = await editable(userId, id);
      assertPending(row);
      // Checked again: the schemas are the API's, which may have grown stricter since the run.
      const checked = checkToolCall({ name: row.tool, arguments: row.arguments });
      if (checked.status === 'invalid' || !isProposalTool(row.tool)) {
        await runs.transition(id, 'pending', 'invalid', checked.error);
        historyChanged(projectId, row.task_id);
        throw conflict(PROPOSAL_MESSAGES.invalid(checked.error ?? 'invalid arguments'));
      }
      // Claimed first, so a second apply (another tab, another member, another instance) finds it applied.
      if (!(await runs.transition(id, 'pending', 'applied')))
        throw conflict(PROPOSAL_MESSAGES.alreadyApplied);
      try {
        await edit(userId, row, row.tool, checked.arguments as ProposalArguments<typeof row.tool>);
      } catch (error) {
        // The edit was refused (the task is gone, the notes would be too long): still pending.
        await runs.transition(id, 'applied', 'pending');
        throw error;
      }
      historyChanged(projectId, row.task_id);
      return toProposal({ ...row, status: 'applied' });
    },

    async dismiss(userId: number, id: number): Promise<AiProposal> {
      const { row, projectId } = await editable(userId, id);
      assertPending(row);
      if (!(await runs.transition(id, 'pending', 'dismissed'))) {
        // Another request moved it first: answer with where it is now.
        const now = await runs.findProposal(id);
        if (!now) throw notFound(PROPOSAL_MESSAGES.notFound);
        assertPending(now);
        throw conflict(PROPOSAL_MESSAGES.alreadyApplied);
      }
      historyChanged(projectId, row.task_id);
      return toProposal({ ...row, status: 'dismissed' });
    },
  };
}

export type ProposalService = ReturnType<typeof createProposalService>;
