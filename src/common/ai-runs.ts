import { z } from 'zod';
import { createChecklistItemBodySchema } from './checklist';
import { idParam } from './ids';
import { createTaskBodySchema, TASK_LIMITS, TASKS_PATH, updateTaskBodySchema } from './tasks';

/**
 * Issue 14: an agent run offers the model tools that propose changes to the task; nothing changes
 * until the person applies a proposal. Each tool's arguments are checked with the API's own field
 * schemas, so a proposal can only ever make an edit the API would take.
 */

/** At most this many tasks in one `create_tasks` or `create_subtasks` proposal: a split, not an import. */
export const CREATE_TASKS_MAX = 20;

const required = <T extends z.ZodType>(schema: z.ZodOptional<T>) => schema.unwrap();

/** The tasks of a `create_tasks` or `create_subtasks` proposal, in order. */
const newTasksSchema = z
  .array(
    z.strictObject({
      title: createTaskBodySchema.shape.title,
      description: createTaskBodySchema.shape.description,
      dueDate: createTaskBodySchema.shape.dueDate,
    }),
  )
  .min(1, 'tasks must list at least one task')
  .max(CREATE_TASKS_MAX, `tasks must list at most ${CREATE_TASKS_MAX} tasks`);

export const PROPOSAL_TOOLS = {
  set_due_date: {
    description: 'Propose a new due date for the task (YYYY-MM-DD), or null to remove it.',
    schema: z.strictObject({ dueDate: required(updateTaskBodySchema.shape.dueDate) }),
  },
  rename_task: {
    description: 'Propose a clearer title for the task.',
    schema: z.strictObject({ title: required(updateTaskBodySchema.shape.title) }),
  },
  add_checklist_items: {
    description: "Propose steps to add to the task's checklist, in order.",
    schema: z.strictObject({
      items: z
        .array(createChecklistItemBodySchema.shape.title)
        .min(1, 'items must list at least one item')
        .max(50, 'items must list at most 50 items'),
    }),
  },
  create_tasks: {
    description:
      'Propose new tasks beside this one, on top of its project. The task itself stays. To split this task into steps, propose create_subtasks instead.',
    schema: z.strictObject({ tasks: newTasksSchema }),
  },
  create_subtasks: {
    description:
      'Propose sub-tasks that split this task into smaller steps: they go under the task, in this order. The task itself stays.',
    schema: z.strictObject({ tasks: newTasksSchema }),
  },
  append_notes: {
    description: "Propose text to add at the end of the task's notes.",
    schema: z.strictObject({
      text: z
        .string()
        .trim()
        .min(1, 'text is required')
        .max(TASK_LIMITS.notesMax, `text must be at most ${TASK_LIMITS.notesMax} characters`),
    }),
  },
} as const;

export type ProposalTool = keyof typeof PROPOSAL_TOOLS;
export const PROPOSAL_TOOL_NAMES = Object.keys(PROPOSAL_TOOLS) as ProposalTool[];
export type ProposalArguments<T extends ProposalTool> = z.output<(typeof PROPOSAL_TOOLS)[T]['schema']>;

export const isProposalTool = (name: string): name is ProposalTool => Object.hasOwn(PROPOSAL_TOOLS, name);

export const PROPOSAL_STATUSES = ['pending', 'applied', 'dismissed', 'invalid'] as const;
export const RUN_STATUSES = ['running', 'done', 'cancelled', 'failed'] as const;

export const aiProposalSchema = z.object({
  id: z.number(),
  runId: z.number(),
  taskId: z.number(),
  /** The tool the model called; an unknown name is kept as `invalid`. */
  tool: z.string(),
  /** As checked (trimmed, dates normalised) when valid; as the model sent them when not. */
  arguments: z.unknown(),
  status: z.enum(PROPOSAL_STATUSES),
  /** Why it is invalid, naming the field. */
  error: z.string().nullable(),
});
export type AiProposal = z.infer<typeof aiProposalSchema>;

export const aiRunSchema = z.object({
  id: z.number(),
  agentId: z.number().nullable(),
  /** The agent's title when the run started (the agent may since have been renamed or deleted). */
  agentTitle: z.string().nullable(),
  model: z.string(),
  startedAt: z.string(),
  durationMs: z.number().nullable(),
  /** Summed over every provider call of the run. */
  inputTokens: z.number(),
  outputTokens: z.number(),
  status: z.enum(RUN_STATUSES),
  error: z.string().nullable(),
  notes: z.array(z.string()),
  proposals: z.array(aiProposalSchema),
});
export type AiRun = z.infer<typeof aiRunSchema>;

export const aiRunsPath = (taskId: number) => `${TASKS_PATH}/${taskId}/ai-runs`;
export const AI_PROPOSALS_PATH = '/api/ai/proposals';

export const proposalIdParamsSchema = z.object({ id: idParam() });

export const PROPOSAL_MESSAGES = {
  notFound: 'Proposal',
  alreadyApplied: 'This proposal has already been applied.',
  dismissed: 'This proposal was dismissed.',
  invalid: (error: string) => `This proposal cannot be applied: ${error}`,
  unknownTool: (tool: string) => `${tool} is not a tool Tasklane offers`,
  badJson: 'The arguments are not valid JSON',
} as const;

/** Tokens a user's runs used in a calendar month (UTC), for the administrator's user list. */
export const aiTokenUsageSchema = z.object({
  /** 'YYYY-MM' */
  month: z.string(),
  input: z.number(),
  output: z.number(),
});
export type AiTokenUsage = z.infer<typeof aiTokenUsageSchema>;

/** The words of the proposals and the run history in the card (issue 14). */
export const AI_RUN_COPY = {
  proposals: 'Proposed changes',
  apply: 'Apply',
  dismiss: 'Dismiss',
  applyAll: 'Apply all',
  activity: 'AI activity',
  showAllRuns: (count: number) => `Show all ${count} runs`,
  applied: 'Change Applied',
  appliedAll: (count: number) => `${count} changes applied`,
  dismissed: 'Change Dismissed',
  notApplied: 'Change Not Applied',
  tokensThisMonth: (count: number) => `${count.toLocaleString('en-US')} tokens this month`,
  statuses: { running: 'running', done: 'done', cancelled: 'cancelled', failed: 'failed' },
} as const;
