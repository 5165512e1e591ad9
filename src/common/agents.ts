import { z } from 'zod';
import { idParam, idSchema } from './ids';
import { VALIDATION } from './spec';

/** Field limits shared by the agent form and the routes. */
export const AGENT_LIMITS = {
  titleMax: 200,
  promptMax: 20_000,
  apiKeyMax: 500,
  baseUrlMax: 500,
  modelMax: 200,
  taskTextMax: 100_000,
} as const;

/** An AI agent (spec §3: a context), as the API returns it. */
export const agentSchema = z.object({
  id: z.number(),
  title: z.string(),
  prompt: z.string(),
  /** The model this agent runs on; null: the connection's (or the server's AI_MODEL). */
  model: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Agent = z.infer<typeof agentSchema>;

/** GET /api/ai-contexts: what the agent pickers need. */
export const aiContextSchema = agentSchema.pick({ id: true, title: true });
export type AiContext = z.infer<typeof aiContextSchema>;

const required = (message: string, max: number, field: string) =>
  z.string({ error: message }).trim().min(1, message).max(max, `${field} must be at most ${max} characters`);

export const agentBodySchema = z.object({
  title: required(VALIDATION.agentTitleRequired, AGENT_LIMITS.titleMax, 'Title'),
  prompt: required(VALIDATION.agentPromptRequired, AGENT_LIMITS.promptMax, 'Prompt'),
  /** Optional; empty or null means the connection's model. */
  model: z
    .string()
    .trim()
    .max(AGENT_LIMITS.modelMax, `Model must be at most ${AGENT_LIMITS.modelMax} characters`)
    .nullable()
    .optional()
    .transform((v) => (v === undefined ? undefined : v || null)),
});
export type AgentBody = z.infer<typeof agentBodySchema>;

const AGENT_FIELDS = Object.keys(agentBodySchema.shape);

/**
 * PUT takes any of the fields; a field that is sent must still be valid, and one must be sent.
 * Unknown fields are dropped, so `{}` and `{"other": 1}` are both refused: the document names the
 * fields that count, as well as `minProperties`.
 */
export const agentUpdateSchema = agentBodySchema
  .partial()
  .refine((v) => Object.values(v).some((value) => value !== undefined), 'Title, prompt or model is required')
  .meta({ minProperties: 1, anyOf: AGENT_FIELDS.map((field) => ({ required: [field] })) });
export type AgentUpdate = z.infer<typeof agentUpdateSchema>;

export const agentIdParamsSchema = z.object({ id: idParam() });

/**
 * Spec §3's AI execute payload. The server reads the title and description from the stored task
 * (the body's copies are accepted for compatibility, never trusted).
 */
export const aiExecuteBodySchema = z.object({
  taskId: idSchema('taskId'),
  taskTitle: z.string().max(AGENT_LIMITS.taskTextMax).optional(),
  taskDescription: z.string().max(AGENT_LIMITS.taskTextMax).nullable().optional(),
  /** The agent to run; null or absent: the task's own agent. */
  contextId: idSchema('contextId').nullable().optional(),
});
export type AiExecuteBody = z.infer<typeof aiExecuteBodySchema>;

/** The stored draft (empty when the run only proposed changes) and the run in GET /api/tasks/{id}/ai-runs. */
export const aiExecuteResponseSchema = z.object({ result: z.string(), runId: z.number() });

/** One server-sent event of a streamed run: a piece of the draft, the stored whole, or the failure. */
export const aiStreamEventSchema = z.union([
  z.object({ delta: z.string() }),
  aiExecuteResponseSchema,
  z.object({ error: z.string() }),
]);
export type AiStreamEvent = z.infer<typeof aiStreamEventSchema>;

/** `?stream=1` (or `Accept: text/event-stream`) answers as server-sent events instead of one JSON. */
export const aiExecuteQuerySchema = z.object({ stream: z.enum(['0', '1', 'true', 'false']).optional() });

export const aiStatusSchema = z.object({
  aiConnected: z.boolean(),
  model: z.string().nullable(),
  /** Whose key a run would use: the server's, the user's own, or none. */
  source: z.enum(['server', 'user']).nullable(),
});
export type AiStatus = z.infer<typeof aiStatusSchema>;

const optionalText = (max: number, field: string) =>
  z
    .string()
    .trim()
    .max(max, `${field} must be at most ${max} characters`)
    .nullable()
    .optional()
    .transform((v) => v || null);

export const aiConnectionBodySchema = z.object({
  apiKey: required('API key is required', AGENT_LIMITS.apiKeyMax, 'API key'),
  baseUrl: optionalText(AGENT_LIMITS.baseUrlMax, 'Base URL'),
  model: optionalText(AGENT_LIMITS.modelMax, 'Model'),
});
export type AiConnectionBody = z.input<typeof aiConnectionBodySchema>;
/** After parsing: the key trimmed, an empty base URL or model as null. */
export type AiConnectionValues = z.output<typeof aiConnectionBodySchema>;

/** The user's own connection; the key never leaves the server, only its last characters. */
export const aiConnectionSchema = z.object({
  connected: z.boolean(),
  baseUrl: z.string().nullable(),
  model: z.string().nullable(),
  keyHint: z.string().nullable(),
});
export type AiConnection = z.infer<typeof aiConnectionSchema>;
