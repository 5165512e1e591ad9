import type OpenAI from 'openai';
import { HttpError } from '../http/errors';
import { BlockedAddressError, createGuardedFetch, URL_GUARD_MESSAGES } from '../http/url-guard';
import { onFirstUse } from '../on-first-use';

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
  /** With the provider's own words: they are what tells a wrong model name from a spent quota. */
  providerError: (status: number, words: string) =>
    words ? `The AI provider answered ${status}: ${words}` : `The AI provider answered ${status}.`,
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
  /** Keys besides the provider's own never to show in a failure (the server's, on a user's run). */
  keysToMask?: ReadonlyArray<string | undefined>;
}

/** The longest failure a run stores and the person is shown. */
export const AI_ERROR_MAX_CHARS = 500;

/**
 * A provider's words about a failure, fit to store and show: a provider may quote the key it
 * refused, a gateway the header it was sent. The keys in use are masked wherever they appear, and
 * anything shaped like an OpenAI-style key or a bearer token; whitespace (an HTML error page's
 * lines) is folded, and the whole is cut to AI_ERROR_MAX_CHARS.
 */
export function providerFailure(
  status: number,
  words: string,
  keys: ReadonlyArray<string | undefined>,
): string {
  let masked = words;
  // A key of a few characters would mask ordinary words; no provider issues one that short.
  for (const key of keys) if (key && key.length >= 8) masked = masked.split(key).join('***');
  masked = masked
    .replace(/\b(Bearer|Basic)\s+[^\s"',;]+/gi, '$1 ***')
    .replace(/\bsk-[\w*-]{4,}/g, 'sk-***')
    .replace(/\s+/g, ' ')
    .trim();
  const line = AI_MESSAGES.providerError(status, masked);
  if (line.length <= AI_ERROR_MAX_CHARS) return line;
  // Not between the halves of a surrogate pair.
  return `${line.slice(0, AI_ERROR_MAX_CHARS - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
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
  keysToMask = [],
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
    throw toAiError(sdk, error, signal, deadline, [provider.apiKey, ...keysToMask]);
  }
}

function toAiError(
  sdk: typeof import('openai'),
  error: unknown,
  signal: AbortSignal | undefined,
  deadline: AbortSignal,
  keys: ReadonlyArray<string | undefined>,
): Error {
  if (error instanceof HttpError) return error;
  if (signal?.aborted) return new AiCancelledError();
  if (deadline.aborted || error instanceof sdk.APIConnectionTimeoutError) {
    return failure(AI_MESSAGES.timeout, error);
  }
  if (error instanceof sdk.APIError && typeof error.status === 'number') {
    return failure(providerFailure(error.status, providerWords(error), keys), error);
  }
  if (blockedAddress(error)) return failure(URL_GUARD_MESSAGES.private, error);
  return failure(AI_MESSAGES.unreachable, error);
}

/**
 * The SDK words its message '<status> <the body's error.message>' (else the body's JSON, else its
 * text), or '<status> status code (no body)': the provider's part of it, or '' when it said nothing.
 */
function providerWords(error: { status: number; message: string }): string {
  const prefix = `${error.status} `;
  const words = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return words === 'status code (no body)' ? '' : words;
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
