import type OpenAI from 'openai';
import { HttpError } from '../http/errors';
import { onFirstUse } from '../on-first-use';
import { BlockedAddressError, createGuardedFetch, URL_GUARD_MESSAGES } from './url-guard';

/** The SDK, loaded at the first run (decision 027). */
const openAiSdk = onFirstUse(() => import('openai'));

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Whose key a run uses, where it goes, and whether that address is operator-trusted. */
export interface AiProvider {
  source: 'server' | 'user';
  apiKey: string;
  baseUrl: string;
  model: string;
  /** A user-chosen address: every connection is checked against the private ranges. */
  guarded: boolean;
}

export type ChatMessage = { role: 'system' | 'user'; content: string };

export const AI_MESSAGES = {
  timeout: 'The AI provider did not answer in time. Please try again.',
  providerError: (status: number) => `The AI provider answered with an error (${status}).`,
  unreachable: 'Could not reach the AI provider.',
  refused: 'The AI provider declined this task.',
  empty: 'The AI provider returned an empty answer.',
} as const;

/**
 * The person cancelled the run (the request went away): nothing is stored. 499, nginx's "client
 * closed request", only ever reaches a log, since no one is left to read the answer.
 */
export class AiCancelledError extends HttpError {
  constructor() {
    super(499, 'The AI run was cancelled.');
  }
}

/** A function the model may call: what the run offers it (see ai-runs.ts). */
export interface ChatTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One function call the model made, its arguments still the JSON text it wrote. */
export interface ToolCall {
  name: string;
  arguments: string;
}

export interface TokenUsage {
  input: number;
  output: number;
}

export interface ChatResult {
  text: string;
  toolCalls: ToolCall[];
  /** Summed over the provider calls this took (two when the provider refused the tools). */
  usage: TokenUsage;
}

export interface RunOptions {
  provider: AiProvider;
  messages: ChatMessage[];
  timeoutMs: number;
  /** Offered to the model; a provider that refuses tools (HTTP 400) is asked once more without them. */
  tools?: ChatTool[];
  /** Aborts the provider call when the person cancels. */
  signal?: AbortSignal;
  /** Streams the answer, calling this with each piece as it arrives. */
  onDelta?: (delta: string) => void;
}

/**
 * A chat completion through the official SDK. Resolves with the answer's text, the tool calls and
 * the usage; rejects with a 502 HttpError for a provider failure, refusal, empty answer or
 * time-out, or AiCancelledError.
 */
export async function runChat({
  provider,
  messages,
  timeoutMs,
  tools = [],
  signal,
  onDelta,
}: RunOptions): Promise<ChatResult> {
  const sdk = await openAiSdk();
  const client = new sdk.OpenAI({
    apiKey: provider.apiKey,
    baseURL: provider.baseUrl,
    // Explicit nulls: the SDK would otherwise pick these up from the server's environment and send
    // them along, to a user-chosen address too.
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    timeout: timeoutMs,
    ...(provider.guarded ? { fetch: createGuardedFetch() } : {}),
  });
  // The SDK's timeout ends at the response headers; this one bounds the whole run, stream included.
  const deadline = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const usage: TokenUsage = { input: 0, output: 0 };
  const count = (used: OpenAI.CompletionUsage | null | undefined) => {
    usage.input += used?.prompt_tokens ?? 0;
    usage.output += used?.completion_tokens ?? 0;
  };

  const call = async (withTools: boolean) => {
    const request = {
      model: provider.model,
      messages,
      ...(withTools
        ? {
            tools: tools.map(({ name, description, parameters }) => ({
              type: 'function' as const,
              function: { name, description, parameters },
            })),
          }
        : {}),
    };
    let text = '';
    let refusal = '';
    const calls: Array<{ name: string; arguments: string }> = [];
    if (onDelta) {
      const stream = await client.chat.completions.create(
        { ...request, stream: true, stream_options: { include_usage: true } },
        { signal: combined },
      );
      for await (const chunk of stream) {
        if (chunk.usage) count(chunk.usage);
        const delta = chunk.choices[0]?.delta;
        if (delta?.refusal) refusal += delta.refusal;
        // A call arrives in pieces, told apart by index: the name first, then the arguments' text.
        for (const piece of delta?.tool_calls ?? []) {
          calls[piece.index] ??= { name: '', arguments: '' };
          const target = calls[piece.index]!;
          target.name += piece.function?.name ?? '';
          target.arguments += piece.function?.arguments ?? '';
        }
        if (delta?.content) {
          text += delta.content;
          onDelta(delta.content);
        }
      }
    } else {
      const completion = await client.chat.completions.create(request, { signal: combined });
      count(completion.usage);
      const message = completion.choices[0]?.message;
      text = message?.content ?? '';
      refusal = message?.refusal ?? '';
      for (const toolCall of message?.tool_calls ?? []) {
        if (toolCall.type === 'function') calls.push({ ...toolCall.function });
      }
    }
    return { text, refusal, toolCalls: calls.filter(Boolean) };
  };

  try {
    let answer: Awaited<ReturnType<typeof call>>;
    try {
      answer = await call(tools.length > 0);
    } catch (error) {
      // Ollama, for one, answers 400 to tools a model cannot use: the run goes on as a plain draft.
      if (!(tools.length > 0 && error instanceof sdk.APIError && error.status === 400)) throw error;
      answer = await call(false);
    }
    if (signal?.aborted) throw new AiCancelledError();
    if (deadline.aborted) throw new HttpError(502, AI_MESSAGES.timeout);
    if (!answer.text.trim() && answer.toolCalls.length === 0) {
      throw new HttpError(502, answer.refusal ? AI_MESSAGES.refused : AI_MESSAGES.empty);
    }
    return { text: answer.text, toolCalls: answer.toolCalls, usage };
  } catch (error) {
    throw toAiError(sdk, error, signal, deadline);
  }
}

function toAiError(
  sdk: typeof import('openai'),
  error: unknown,
  signal: AbortSignal | undefined,
  deadline: AbortSignal,
): Error {
  if (error instanceof HttpError) return error;
  if (signal?.aborted) return new AiCancelledError();
  if (deadline.aborted || error instanceof sdk.APIConnectionTimeoutError) {
    return failure(AI_MESSAGES.timeout, error);
  }
  if (error instanceof sdk.APIError && typeof error.status === 'number') {
    return failure(AI_MESSAGES.providerError(error.status), error);
  }
  if (blockedAddress(error)) return failure(URL_GUARD_MESSAGES.private, error);
  return failure(AI_MESSAGES.unreachable, error);
}

/** A 502 for the person, keeping the provider's own error as the cause for the log. */
function failure(message: string, cause: unknown): HttpError {
  return Object.assign(new HttpError(502, message), { cause });
}

/** The SDK wraps the guard's refusal in its own connection error. */
function blockedAddress(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = (e as Error).cause) {
    if (e instanceof BlockedAddressError) return true;
  }
  return false;
}
