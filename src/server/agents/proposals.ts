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
import { type UpdateTaskBody, updateTaskBodySchema } from '../../common/tasks';
import { badRequest, conflict, notFound } from '../http/errors';
import type { LiveBus } from '../live/bus';
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
  'clearer title, checklist steps, new tasks that split this one, text for the notes), propose it ' +
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
  runs: RunRepository;
  tasks: TaskService;
  checklists: ChecklistService;
  live: LiveBus;
}

/** Applying and dismissing proposals: each an ordinary edit with the person's own permissions. */
export function createProposalService({ runs, tasks, checklists, live }: ProposalServiceDeps) {
  const historyChanged = (userId: number, taskId: number) => live.publish(userId, [aiRunsPath(taskId)]);

  /** An edit of the task checked as PATCH /api/tasks/{id} checks it: the notes with the text added may be too long. */
  const update = async (userId: number, taskId: number, body: UpdateTaskBody) => {
    const parsed = updateTaskBodySchema.safeParse(body);
    if (!parsed.success) throw badRequest(firstIssue(parsed.error));
    await tasks.update(userId, taskId, parsed.data);
  };

  async function edit<T extends ProposalTool>(
    userId: number,
    taskId: number,
    tool: T,
    args: ProposalArguments<T>,
  ) {
    switch (tool) {
      case 'set_due_date': {
        const { dueDate } = args as ProposalArguments<'set_due_date'>;
        await update(userId, taskId, { dueDate });
        return;
      }
      case 'rename_task': {
        const { title } = args as ProposalArguments<'rename_task'>;
        await update(userId, taskId, { title });
        return;
      }
      case 'add_checklist_items': {
        const { items } = args as ProposalArguments<'add_checklist_items'>;
        await checklists.addMany(userId, taskId, items);
        return;
      }
      case 'create_tasks': {
        // The task itself stays: the new ones go on top of the list.
        await tasks.get(userId, taskId);
        await tasks.createMany(userId, (args as ProposalArguments<'create_tasks'>).tasks);
        return;
      }
      case 'append_notes': {
        const { text } = args as ProposalArguments<'append_notes'>;
        const { notes } = await tasks.get(userId, taskId);
        await update(userId, taskId, { notes: notes ? `${notes}\n\n${text}` : text });
        return;
      }
    }
  }

  /** The proposal, or 409 naming why it cannot move on from where it is. */
  async function pending(userId: number, id: number) {
    const row = await runs.findProposal(userId, id);
    if (!row) throw notFound(PROPOSAL_MESSAGES.notFound);
    if (row.status === 'applied') throw conflict(PROPOSAL_MESSAGES.alreadyApplied);
    if (row.status === 'dismissed') throw conflict(PROPOSAL_MESSAGES.dismissed);
    if (row.status === 'invalid') throw conflict(PROPOSAL_MESSAGES.invalid(row.error ?? 'invalid arguments'));
    return row;
  }

  return {
    async apply(userId: number, id: number): Promise<AiProposal> {
      const row = await pending(userId, id);
      // Checked again: the schemas are the API's, which may have grown stricter since the run.
      const checked = checkToolCall({ name: row.tool, arguments: row.arguments });
      if (checked.status === 'invalid' || !isProposalTool(row.tool)) {
        await runs.transition(id, 'pending', 'invalid', checked.error);
        historyChanged(userId, row.task_id);
        throw conflict(PROPOSAL_MESSAGES.invalid(checked.error ?? 'invalid arguments'));
      }
      // Claimed first, so a second apply (another tab, another instance) finds it applied.
      if (!(await runs.transition(id, 'pending', 'applied')))
        throw conflict(PROPOSAL_MESSAGES.alreadyApplied);
      try {
        await edit(userId, row.task_id, row.tool, checked.arguments as ProposalArguments<typeof row.tool>);
      } catch (error) {
        // The edit was refused (the task is gone, the notes would be too long): still pending.
        await runs.transition(id, 'applied', 'pending');
        throw error;
      }
      historyChanged(userId, row.task_id);
      return toProposal({ ...row, status: 'applied' });
    },

    async dismiss(userId: number, id: number): Promise<AiProposal> {
      const row = await pending(userId, id);
      if (!(await runs.transition(id, 'pending', 'dismissed'))) {
        // Another request moved it first: answer with where it is now.
        await pending(userId, id);
        throw conflict(PROPOSAL_MESSAGES.alreadyApplied);
      }
      historyChanged(userId, row.task_id);
      return toProposal({ ...row, status: 'dismissed' });
    },
  };
}

export type ProposalService = ReturnType<typeof createProposalService>;
