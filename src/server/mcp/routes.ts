import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TOKEN_MESSAGES } from '../../common/tokens';
import { mayWrite } from '../access';
import { HttpError } from '../http/errors';
import { hijackKeepingHeaders } from '../http/security';
import { BEARER_MESSAGES, type BearerTokenResolver, bearerToken, currentUser } from '../http/session';
import { onFirstUse } from '../on-first-use';
import { createMcpServer, MCP_READ_TOOLS, type McpToolDeps } from './tools';

/** The MCP endpoint (decision 021): Streamable HTTP, stateless, one personal API token per caller. */
export const MCP_PATH = '/mcp';

export const MCP_AUTH_MESSAGES = {
  missing:
    'Send a personal API token as "Authorization: Bearer <token>" (create one in Security → API tokens).',
  invalid: BEARER_MESSAGES.invalid,
} as const;

/** The SDK's transport, loaded at the first MCP request (decision 027). */
const transportSdk = onFirstUse(() => import('@modelcontextprotocol/sdk/server/streamableHttp.js'));

/** RFC 6750: the scheme first, then what went wrong, if anything. */
const challenge = (error?: 'invalid_token') => `Bearer realm="Tasklane"${error ? `, error="${error}"` : ''}`;

export interface McpFeatureDeps extends McpToolDeps {
  tokens: BearerTokenResolver;
}

export async function mcpRoutes(app: FastifyInstance, { tokens, ...toolDeps }: McpFeatureDeps) {
  /**
   * onRequest, so every method is refused before its body is read: the token alone
   * authenticates (no cookie, hence no same-origin check), and a suspended owner's does not hold.
   */
  async function authenticate(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request);
    if (!token) throw new HttpError(401, MCP_AUTH_MESSAGES.missing, { 'WWW-Authenticate': challenge() });
    const resolved = await tokens.resolve(token);
    if (!resolved) {
      throw new HttpError(401, MCP_AUTH_MESSAGES.invalid, {
        'WWW-Authenticate': challenge('invalid_token'),
      });
    }
    request.session = {
      ...resolved,
      via: 'token',
      sessionId: '',
      stillValid: async () => (await tokens.resolve(token)) !== null,
    };
  }

  app.post(MCP_PATH, { onRequest: authenticate }, async (request, reply) => {
    const canWrite = mayWrite(request.session?.limits);
    // A read-only token's server has no write tools; calling one is answered with the reason.
    const refused = canWrite ? undefined : refusedWrites(request.body);
    if (refused) return reply.send(refused);
    const [server, { StreamableHTTPServerTransport }] = await Promise.all([
      createMcpServer(currentUser(request).id, toolDeps, { canWrite }),
      transportSdk(),
    ]);
    // Stateless: no session id, so any instance behind the load balancer can answer any request.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    // The transport writes the answer itself (200, or its own 406 or 415): with the usual headers.
    const res = hijackKeepingHeaders(reply);
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      // Fastify has read and parsed the JSON body; the transport takes it as it is.
      await transport.handleRequest(request.raw, res, request.body);
    } catch (error) {
      request.log.error({ err: error }, 'MCP request failed');
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(jsonRpcError(-32603, 'Internal server error')));
      }
    }
  });

  // Stateless: there is no session to stream from (GET) or end (DELETE), as in the SDK's examples.
  // Every other method is answered here too, so the 405 names POST alone (and HEAD comes with GET).
  app.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'],
    url: MCP_PATH,
    onRequest: authenticate,
    handler: async (_request: FastifyRequest, reply: FastifyReply) =>
      reply.code(405).header('Allow', 'POST').send(jsonRpcError(-32000, 'Method not allowed.')),
  });
}

const jsonRpcError = (code: number, message: string, id: string | number | null = null) => ({
  jsonrpc: '2.0',
  error: { code, message },
  id,
});

type JsonRpcMessage = { method?: unknown; params?: { name?: unknown }; id?: unknown } | null;

/** The tool a JSON-RPC `tools/call` asks for when it is not a read tool; else undefined. */
function writeTool(message: JsonRpcMessage): string | undefined {
  const name = String(message?.params?.name);
  return message?.method === 'tools/call' && !MCP_READ_TOOLS.has(name) ? name : undefined;
}

/**
 * A read-only token's answer to a message (or a batch) that calls a write tool: an error naming
 * the scope the tool needs, for each call in the batch; else undefined (the server answers).
 */
function refusedWrites(body: unknown) {
  const messages = (Array.isArray(body) ? body : [body]) as JsonRpcMessage[];
  if (!messages.some((message) => writeTool(message) !== undefined)) return undefined;
  const errors = messages.map((message) => {
    const id = typeof message?.id === 'string' || typeof message?.id === 'number' ? message.id : null;
    const tool = writeTool(message);
    return tool === undefined
      ? jsonRpcError(-32600, 'A batch calling a write tool is refused whole.', id)
      : jsonRpcError(-32602, TOKEN_MESSAGES.readOnlyTool(tool), id);
  });
  return Array.isArray(body) ? errors : errors[0];
}
