import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local server speaking the OpenAI chat-completions protocol, for API and browser tests:
 * POST /v1/chat/completions answers plain JSON, or server-sent chunks when the body asks to stream.
 */
export interface FakeProviderRequest {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: { model: string; messages: Array<{ role: string; content: string }>; stream?: boolean };
}

export interface FakeProviderBehaviour {
  /** The answer, sent as these pieces when streaming. */
  chunks: string[];
  /** 'error' answers 500; 'refusal' sends a refusal and no content; 'empty' sends no content. */
  mode: 'ok' | 'error' | 'refusal' | 'empty';
  /** Wait before answering at all. */
  delayMs: number;
  /** Wait between streamed pieces. */
  chunkDelayMs: number;
  /** Answer every request with a redirect here instead. */
  redirectTo?: string;
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
  delayMs: 0,
  chunkDelayMs: 0,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeProvider(host = '127.0.0.1'): Promise<FakeProvider> {
  const requests: FakeProviderRequest[] = [];
  const sockets = new Set<Socket>();
  const behaviour: FakeProviderBehaviour = { ...DEFAULTS };
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
    const { mode, chunks, delayMs, chunkDelayMs } = behaviour;
    if (delayMs) await sleep(delayMs);
    if (res.destroyed) return;
    if (mode === 'error') {
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'The fake provider broke', type: 'server_error' } }));
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
          choices: [{ index: 0, message: { role: 'assistant', content, refusal }, finish_reason: 'stop' }],
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (delta: Record<string, string>, finish: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
      );
    send({ role: 'assistant' });
    const pieces = mode === 'ok' ? chunks : mode === 'refusal' ? [] : [''];
    if (refusal) send({ refusal });
    for (const piece of pieces) {
      if (chunkDelayMs) await sleep(chunkDelayMs);
      if (res.destroyed || res.writableEnded) {
        for (const resolve of abortWaiters) resolve();
        abortWaiters = [];
        return;
      }
      send({ content: piece });
    }
    send({}, 'stop');
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
      Object.assign(behaviour, DEFAULTS, { redirectTo: undefined });
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
