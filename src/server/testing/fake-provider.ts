import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local server speaking the OpenAI chat-completions protocol, for API and browser tests:
 * POST /v1/chat/completions answers plain JSON, or server-sent chunks when the body asks to stream,
 * with tool calls (streamed in pieces, as OpenAI does) and usage figures.
 */
export interface FakeProviderRequest {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    tools?: Array<{ type: 'function'; function: { name: string; parameters: Record<string, unknown> } }>;
  };
}

export interface FakeToolCall {
  name: string;
  /** The arguments' JSON text, as a model writes it (it may be malformed on purpose). */
  arguments: string;
}

export interface FakeProviderBehaviour {
  /** The answer, sent as these pieces when streaming. */
  chunks: string[];
  /** 'error' answers errorStatus; 'refusal' sends a refusal and no content; 'empty' sends no content. */
  mode: 'ok' | 'error' | 'refusal' | 'empty';
  /** The status of an 'error' answer. */
  errorStatus: number;
  /** Its body's `{error: {message}}`, as OpenAI words it; an empty string sends no body at all. */
  errorMessage: string;
  /** Wait before answering at all. */
  delayMs: number;
  /** Wait between streamed pieces. */
  chunkDelayMs: number;
  /** Wait after the last piece (tool calls included) before the stream ends. */
  endDelayMs: number;
  /** Answer every request with a redirect here instead. */
  redirectTo?: string;
  /** Calls the model makes when the request offers tools (after the text). */
  toolCalls: FakeToolCall[];
  /** Answer 400 to a request that carries tools, as Ollama does for a model without tool support. */
  rejectTools: boolean;
  /** Tokens each answer reports (streamed when the request asks for usage). */
  usage: { prompt_tokens: number; completion_tokens: number };
}

export interface FakeProvider {
  /** The base URL to configure: http://host:port/v1 */
  baseUrl: string;
  requests: FakeProviderRequest[];
  behaviour: FakeProviderBehaviour;
  /** Resolves when a streamed answer's client went away before the end. */
  streamAborted(): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

const DEFAULTS: FakeProviderBehaviour = {
  chunks: ['Here is ', 'the draft', '.'],
  mode: 'ok',
  errorStatus: 500,
  errorMessage: 'The fake provider broke',
  delayMs: 0,
  chunkDelayMs: 0,
  endDelayMs: 0,
  toolCalls: [],
  rejectTools: false,
  usage: { prompt_tokens: 42, completion_tokens: 7 },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeProvider(host = '127.0.0.1'): Promise<FakeProvider> {
  const requests: FakeProviderRequest[] = [];
  const sockets = new Set<Socket>();
  const behaviour: FakeProviderBehaviour = structuredClone(DEFAULTS);
  let abortWaiters: Array<() => void> = [];

  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (behaviour.redirectTo) {
      res.writeHead(307, { location: behaviour.redirectTo }).end();
      return;
    }
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(raw) as FakeProviderRequest['body'];
    requests.push({ url: req.url, headers: req.headers, body });
    const { mode, chunks, delayMs, chunkDelayMs, usage } = behaviour;
    const offeredTools = (body.tools?.length ?? 0) > 0;
    if (offeredTools && behaviour.rejectTools) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: { message: 'this model does not support tools', type: 'invalid_request_error' },
        }),
      );
      return;
    }
    const toolCalls = offeredTools ? behaviour.toolCalls : [];
    if (delayMs) await sleep(delayMs);
    if (res.destroyed) return;
    if (mode === 'error') {
      const { errorStatus, errorMessage } = behaviour;
      res
        .writeHead(errorStatus, { 'content-type': 'application/json' })
        .end(errorMessage ? JSON.stringify({ error: { message: errorMessage, type: 'server_error' } }) : '');
      return;
    }
    const content = mode === 'ok' ? chunks.join('') : mode === 'empty' ? '' : null;
    const refusal = mode === 'refusal' ? 'I cannot help with that.' : null;
    const base = { id: 'chatcmpl-fake', created: Math.floor(Date.now() / 1000), model: body.model };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content,
                refusal,
                ...(toolCalls.length > 0
                  ? {
                      tool_calls: toolCalls.map((call, i) => ({
                        id: `call_${i}`,
                        type: 'function',
                        function: { name: call.name, arguments: call.arguments },
                      })),
                    }
                  : {}),
              },
              finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
            },
          ],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (delta: Record<string, unknown>, finish: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
      );
    send({ role: 'assistant' });
    const pieces: Array<Record<string, unknown>> = (
      mode === 'ok' ? chunks : mode === 'refusal' ? [] : ['']
    ).map((content) => ({ content }));
    // Each call in three pieces: its id and name, then the arguments' text in two halves.
    toolCalls.forEach((call, index) => {
      const half = Math.ceil(call.arguments.length / 2);
      pieces.push(
        {
          tool_calls: [
            { index, id: `call_${index}`, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        },
        { tool_calls: [{ index, function: { arguments: call.arguments.slice(0, half) } }] },
        { tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] },
      );
    });
    if (refusal) send({ refusal });
    const clientLeft = () => {
      if (!res.destroyed && !res.writableEnded) return false;
      for (const resolve of abortWaiters) resolve();
      abortWaiters = [];
      return true;
    };
    for (const piece of pieces) {
      if (chunkDelayMs) await sleep(chunkDelayMs);
      if (clientLeft()) return;
      send(piece);
    }
    if (behaviour.endDelayMs) await sleep(behaviour.endDelayMs);
    if (clientLeft()) return;
    send({}, toolCalls.length > 0 ? 'tool_calls' : 'stop');
    if (body.stream_options?.include_usage) {
      res.write(
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`,
      );
    }
    res.end('data: [DONE]\n\n');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://${host}:${port}/v1`,
    requests,
    behaviour,
    streamAborted: () => new Promise((resolve) => abortWaiters.push(resolve)),
    reset() {
      requests.length = 0;
      Object.assign(behaviour, structuredClone(DEFAULTS), { redirectTo: undefined });
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
