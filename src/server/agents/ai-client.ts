import OpenAI from 'openai';
import { HttpError } from '../http/errors';
import { BlockedAddressError, createGuardedFetch, URL_GUARD_MESSAGES } from './url-guard';

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

export interface RunOptions {
  provider: AiProvider;
  messages: ChatMessage[];
  timeoutMs: number;
  /** Aborts the provider call when the person cancels. */
  signal?: AbortSignal;
  /** Streams the answer, calling this with each piece as it arrives. */
  onDelta?: (delta: string) => void;
}

/**
 * One chat completion through the official SDK. Resolves with the whole answer; rejects with a 502
 * HttpError for a provider failure, refusal, empty answer or time-out, or AiCancelledError.
 */
export async function runChat({
  provider,
  messages,
  timeoutMs,
  signal,
  onDelta,
}: RunOptions): Promise<string> {
  const client = new OpenAI({
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
  const request = { model: provider.model, messages };
  try {
    let text = '';
    let refusal = '';
    if (onDelta) {
      const stream = await client.chat.completions.create({ ...request, stream: true }, { signal: combined });
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        if (delta?.refusal) refusal += delta.refusal;
        if (delta?.content) {
          text += delta.content;
          onDelta(delta.content);
        }
      }
    } else {
      const completion = await client.chat.completions.create(request, { signal: combined });
      const message = completion.choices[0]?.message;
      text = message?.content ?? '';
      refusal = message?.refusal ?? '';
    }
    if (signal?.aborted) throw new AiCancelledError();
    if (deadline.aborted) throw new HttpError(502, AI_MESSAGES.timeout);
    if (!text.trim()) throw new HttpError(502, refusal ? AI_MESSAGES.refused : AI_MESSAGES.empty);
    return text;
  } catch (error) {
    throw toAiError(error, signal, deadline);
  }
}

function toAiError(error: unknown, signal: AbortSignal | undefined, deadline: AbortSignal): Error {
  if (error instanceof HttpError) return error;
  if (signal?.aborted) return new AiCancelledError();
  if (deadline.aborted || error instanceof OpenAI.APIConnectionTimeoutError) {
    return failure(AI_MESSAGES.timeout, error);
  }
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
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
