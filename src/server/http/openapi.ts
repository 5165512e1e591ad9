import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { type ZodType, z } from 'zod';
import { license, version } from '../../../package.json';
import { errorSchema, MEDIA } from '../../common/api';
import { SESSION_HEADER, SESSION_HEADER_ALT } from '../../common/spec';
import { TOKEN_LIMITS } from '../../common/tokens';
import { IDEMPOTENCY_OPENAPI } from './idempotency';
import { refuseApiTokens, requireAdmin, requireSessionAuth, requireUser, SESSION_COOKIE } from './session';

/**
 * The OpenAPI 3.1 document (docs/decisions/017-openapi-document.md), written from the Zod schemas
 * the routes validate and serialise with, and the reference page that reads it.
 *
 * Nothing is declared twice: a route's security follows from its guards (the hooks below), its
 * shapes from its `schema`. What a route cannot say that way, it is told to say: a route with no
 * guard declares `security: []` to be public, and every route declares its responses, a summary,
 * a tag and an operationId. `apiDocument.problems` lists every route that falls short; the
 * OpenAPI test requires it to be empty, so a new route cannot slip out of the document unnoticed.
 */

export const OPENAPI_PATH = '/api/openapi.json';
export const DOCS_PATH = '/api/docs';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * A request body the handler reads itself (a multipart stream), by media type. For the
     * document only: Fastify never sees it, so it validates nothing.
     */
    streamedBody?: Record<string, ZodType>;
    /**
     * Headers an answer carries, by status, each with its description (a task's `ETag`, issue 31).
     * For the document only: the handler sets them.
     */
    responseHeaders?: Record<number, Record<string, string>>;
  }
  interface FastifyInstance {
    apiDocument: ApiDocument;
  }
}

export interface ApiDocument {
  /** The document as served, written at its first request and kept. */
  readonly json: string;
  /** Routes under /api the document cannot describe truthfully; empty in a correct app. */
  readonly problems: string[];
}

/** Who may call a route, and with which credentials (spec of issue 12). */
type Access = 'public' | 'user' | 'session';

/** The guards in ./session and what each means for the caller. */
const GUARDS = new Map<unknown, { access: Access; admin?: true }>([
  [requireUser, { access: 'user' }],
  [requireAdmin, { access: 'user', admin: true }],
  // Account security: a session only; an API token is refused.
  [requireSessionAuth, { access: 'session' }],
  [refuseApiTokens, { access: 'session' }],
]);

const SECURITY: Record<Access, Array<Record<string, string[]>>> = {
  public: [],
  user: [{ bearer: [] }, { sessionHeader: [] }, { sessionCookie: [] }],
  session: [{ sessionHeader: [] }, { sessionCookie: [] }],
};

const TAGS: Array<{ name: string; description: string }> = [
  { name: 'Auth', description: 'Signing in and out, passwords, access requests.' },
  {
    name: 'Passkeys',
    description: 'Passkeys (WebAuthn): add and manage them from a session; sign in with one.',
  },
  { name: 'Sessions', description: 'Your devices: the signed-in sessions of your account.' },
  { name: 'Tokens', description: 'Personal API tokens. Managed from a signed-in session only.' },
  { name: 'Tasks', description: 'Your tasks: the active list, the archive, order, search and filters.' },
  {
    name: 'Projects',
    description: 'Your Inbox and the projects you share, their members and roles.',
  },
  {
    name: 'Sections',
    description: "A project's named, ordered groups of tasks; tasks in none are 'No section'.",
  },
  {
    name: 'Templates',
    description: 'Your project templates: a project’s open tasks and sections, to start new projects from.',
  },
  { name: 'Checklists', description: 'The steps of a task.' },
  { name: 'Labels', description: 'Your labels (on tasks, seen by all who see the task) and saved filters.' },
  {
    name: 'Comments',
    description: 'The conversation on a task: Markdown, with mentions of project members.',
  },
  {
    name: 'Dependencies',
    description:
      'Relations between tasks (blocks, blocked by, relates to, duplicate of), seen from both sides.',
  },
  { name: 'Files', description: 'Files attached to tasks.' },
  {
    name: 'Reminders',
    description: "A task's reminders: at a moment, or minutes before each due date-time.",
  },
  {
    name: 'Notifications',
    description:
      'What happened that concerns you (reminders, assignments, mentions, comments, shares, the daily digest), and by which channels it reaches you.',
  },
  {
    name: 'Calendar',
    description:
      'Your due dates as a calendar feed (iCalendar), at a secret address calendar apps subscribe to.',
  },
  {
    name: 'Import and export',
    description: 'Your data out as JSON or CSV; tasks in from Tasklane or Todoist.',
  },
  { name: 'Agents', description: 'Your AI agents (contexts).' },
  { name: 'AI', description: 'AI drafts and the AI provider connection.' },
  { name: 'Admin', description: 'User accounts, access requests and the audit log. Administrators only.' },
  { name: 'Live', description: 'Server-sent events naming the data that changed.' },
  {
    name: 'Webhooks',
    description:
      'Your webhooks: signed POSTs (Standard Webhooks) when tasks, comments, checklists or members change, with a delivery log.',
  },
  {
    name: 'Push',
    description: "Web Push: the server's VAPID public key and this browser's push subscription.",
  },
  { name: 'Documentation', description: 'This document.' },
];

const STATUS_TEXT: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No content',
  206: 'Partial content (a Range request)',
  302: 'Redirect',
  303: 'Redirect',
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

type JsonSchema = Record<string, unknown>;

/** Fastify keeps a scope's own hooks (`scope.addHook`) under this symbol; routes get them at ready. */
function scopeHooks(instance: object, name: string): unknown[] {
  for (let scope: object | null = instance; scope; scope = Object.getPrototypeOf(scope)) {
    const symbol = Object.getOwnPropertySymbols(scope).find((s) => s.description === 'fastify.hooks');
    if (symbol) return ((scope as Record<symbol, Record<string, unknown[]>>)[symbol]?.[name] ?? []).slice();
  }
  return [];
}

/** The guards that run before a route's handler: its own hooks and its scope's. */
function guardsOf(route: RouteOptions, instance: object) {
  const hooks: unknown[] = [];
  for (const name of ['onRequest', 'preParsing', 'preValidation', 'preHandler'] as const) {
    hooks.push(...scopeHooks(instance, name), ...[route[name] ?? []].flat());
  }
  return hooks.flatMap((hook) => GUARDS.get(hook) ?? []);
}

const isZod = (value: unknown): value is ZodType =>
  typeof value === 'object' && value !== null && '_zod' in value;

/** `{content: {mediaType: {schema}}}`: a response Fastify serialises by media type. */
function contentMap(value: unknown): Record<string, { schema: unknown }> | undefined {
  if (isZod(value) || typeof value !== 'object' || value === null || !('content' in value)) return undefined;
  return (value as { content: Record<string, { schema: unknown }> }).content;
}

type Checks = Array<{ _zod: { def: { check: string; tx?: (value: string) => string } } }>;

/** Whether a string schema trims what it is sent (`.trim()`, an overwrite that drops the spaces around). */
const trims = (schema: { _zod: { def: unknown } }) =>
  ((schema._zod.def as { checks?: Checks }).checks ?? []).some(
    ({ _zod: { def } }) => def.check === 'overwrite' && def.tx?.(' x ') === 'x',
  );

/**
 * Zod 4's own JSON Schema (draft 2020-12, which OpenAPI 3.1 uses): what a request may send
 * (`input`), what an answer holds (`output`). Anything it cannot say is a problem, not a guess.
 */
function toJsonSchema(schema: unknown, io: 'input' | 'output', where: string, problems: string[]) {
  if (!isZod(schema)) {
    problems.push(`${where}: not a Zod schema`);
    return {};
  }
  // No body (noContentSchema): JSON Schema has no `undefined`; @fastify/swagger writes `null` as no content.
  if (schema._zod.def.type === 'undefined') return { ...z.globalRegistry.get(schema), type: 'null' };
  try {
    const { $schema: _, ...json } = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'throw',
      override: ({ zodSchema, jsonSchema }) => {
        const def = zodSchema._zod.def as { type: string; in?: ZodType; out?: ZodType };
        // Text trimmed before its length is checked: `minLength` counts the spaces, so a blank
        // value must be refused by one non-space character (a pattern of its own says more).
        const text = jsonSchema as { minLength?: number; pattern?: string; allOf?: unknown };
        if (io === 'input' && def.type === 'string' && trims(zodSchema) && (text.minLength ?? 0) > 0) {
          if (text.pattern === undefined && text.allOf === undefined) text.pattern = '\\S';
        }
        // A path id arrives as text and is coerced: what it must be is what it coerces to.
        if (io === 'input' && def.type === 'pipe' && def.in && def.out) {
          const coerced = (def.in._zod.def as { coerce?: boolean }).coerce === true;
          if (!coerced) return;
          const { $schema: __, ...out } = z.toJSONSchema(def.out, { io: 'output' });
          for (const key of Object.keys(jsonSchema)) delete (jsonSchema as JsonSchema)[key];
          Object.assign(jsonSchema, out);
        }
      },
    }) as JsonSchema;
    return json;
  } catch (error) {
    problems.push(`${where}: ${(error as Error).message}`);
    return {};
  }
}

/** A server-sent event stream is text; the JSON each event's `data` carries is named beside it. */
function mediaSchema(mediaType: string, schema: unknown, where: string, problems: string[]) {
  const json = toJsonSchema(schema, 'output', where, problems);
  if (mediaType !== MEDIA.eventStream) return json;
  return {
    type: 'string',
    description:
      'A stream of server-sent events. The `data` of each event is one JSON object, as `x-event-data` describes.',
    'x-event-data': json,
  };
}

interface Route {
  route: RouteOptions;
  instance: FastifyInstance;
}

/** The operation a route becomes: a JSON Schema version of its Zod schema, plus its security. */
function describeRoute({ route, instance }: Route, problems: string[]): FastifySchema {
  const schema: FastifySchema = route.schema ?? {};
  const methods = [route.method].flat();
  const name = `${methods.join(',')} ${route.url}`;
  const problem = (text: string) => problems.push(`${name}: ${text}`);

  const guards = guardsOf(route, instance);
  let access: Access | undefined;
  if (guards.length > 0) {
    access = guards.some((g) => g.access === 'session') ? 'session' : 'user';
    if (schema.security) problem('declares security, but its guards decide it: remove `security`');
  } else if (Array.isArray(schema.security) && schema.security.length === 0) {
    access = 'public';
  } else {
    problem(
      'no auth classification: guard it (requireUser, requireAdmin, requireSessionAuth) or declare `security: []` if it is public',
    );
  }
  const admin = guards.some((g) => g.admin);

  for (const key of ['summary', 'operationId'] as const) if (!schema[key]) problem(`no ${key}`);
  if (!schema.tags?.length) problem('no tags (its feature)');
  const statuses = Object.keys(schema.response ?? {});
  // A redirect (an OpenID Connect callback) answers 3xx only.
  if (!statuses.some((code) => /^[23]/.test(code))) problem('no response schema for its 2xx/3xx answer');
  if (route.url.includes(':') && !schema.params) problem('no params schema for its path');
  if (schema.body && schema.streamedBody) problem('declares both body and streamedBody');

  const out: FastifySchema = {
    summary: schema.summary,
    description: admin
      ? ['Administrators only.', schema.description].filter(Boolean).join(' ')
      : schema.description,
    tags: schema.tags,
    operationId: schema.operationId,
    ...(access ? { security: SECURITY[access] } : {}),
  };
  if (schema.params) out.params = toJsonSchema(schema.params, 'input', `${name} params`, problems);
  if (schema.querystring)
    out.querystring = toJsonSchema(schema.querystring, 'input', `${name} querystring`, problems);
  if (schema.headers) {
    out.headers = headerNames(toJsonSchema(schema.headers, 'input', `${name} headers`, problems));
  }
  if (schema.body) {
    out.body = toJsonSchema(schema.body, 'input', `${name} body`, problems);
  } else if (schema.streamedBody) {
    const content: Record<string, { schema: JsonSchema }> = {};
    for (const [mediaType, body] of Object.entries(schema.streamedBody)) {
      content[mediaType] = { schema: toJsonSchema(body, 'input', `${name} ${mediaType} body`, problems) };
    }
    out.body = { content };
  } else if (methods.some((m) => BODY_METHODS.has(m)) && schema.consumes === undefined) {
    // A POST that reads no body is fine; say so, so a client sends none.
    out.description = [out.description, 'No request body.'].filter(Boolean).join(' ');
  }

  const response: Record<string, JsonSchema> = {};
  for (const [code, value] of Object.entries((schema.response ?? {}) as Record<string, unknown>)) {
    const where = `${name} response ${code}`;
    const content = contentMap(value);
    if (content) {
      const media: Record<string, { schema: unknown }> = {};
      for (const [mediaType, { schema: body }] of Object.entries(content)) {
        media[mediaType] = { schema: mediaSchema(mediaType, body, `${where} ${mediaType}`, problems) };
      }
      const { description } = value as { description?: string };
      response[code] = { description: description ?? STATUS_TEXT[code] ?? 'Answer', content: media };
    } else {
      const json = toJsonSchema(value, 'output', where, problems);
      // @fastify/swagger's key for a response's own description (not the schema's).
      response[code] = {
        ...json,
        'x-response-description': json.description ?? STATUS_TEXT[code] ?? 'Answer',
      };
    }
  }
  for (const [code, headers] of Object.entries(schema.responseHeaders ?? {})) {
    const documented = response[code];
    if (!documented) {
      problem(`declares headers for ${code}, which it does not answer`);
      continue;
    }
    // @fastify/swagger's key for a response's headers, each `{schema, description}` in the document.
    documented.headers = Object.fromEntries(
      Object.entries(headers).map(([name, description]) => [name, { type: 'string', description }]),
    );
  }
  out.response = response;
  return out;
}

/**
 * Request headers as HTTP writes them (`If-Match`): Fastify validates them by their lower-case names,
 * which is how a route's schema must spell them, but the document speaks to people.
 */
function headerNames(json: JsonSchema): JsonSchema {
  const cased = (header: string) =>
    header.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
  const properties = (json.properties ?? {}) as Record<string, unknown>;
  return {
    ...json,
    properties: Object.fromEntries(
      Object.entries(properties).map(([header, value]) => [cased(header), value]),
    ),
    ...(Array.isArray(json.required)
      ? { required: json.required.map((header: string) => cased(header)) }
      : {}),
  };
}

/** `/api/...` routes, but not the reference page's own files. */
const isDocumented = (url: string) =>
  url.startsWith('/api/') && url !== DOCS_PATH && !url.startsWith(`${DOCS_PATH}/`);

/**
 * Registers the document and the reference page. Call it before any /api route is added: both
 * learn the routes as they are added (onRoute). The document is written once, when first asked
 * for: writing it at start-up cost every server 8-15 MB at its start for a page few open.
 * `appUrl` (APP_URL) is the document's one server: its paths all start with /api.
 */
export async function registerOpenApi(app: FastifyInstance, { appUrl }: { appUrl: string }): Promise<void> {
  const routes: Route[] = [];
  const described = new WeakMap<RouteOptions, FastifySchema>();
  const problems: string[] = [];
  let routesDescribed = false;
  /** Each route's OpenAPI schema, from its own; before @fastify/swagger first reads them. */
  const describeRoutes = () => {
    if (routesDescribed) return;
    routesDescribed = true;
    for (const route of routes) described.set(route.route, describeRoute(route, problems));
    const operationIds = new Map<string, string>();
    for (const { route } of routes) {
      const id = route.schema?.operationId;
      const name = `${route.method} ${route.url}`;
      if (id && operationIds.has(id))
        problems.push(`${name}: operationId ${id} is also ${operationIds.get(id)}'s`);
      if (id) operationIds.set(id, name);
    }
    if (problems.length > 0) app.log.warn({ problems }, 'some API routes are not described truthfully');
  };
  let json: string | undefined;
  const apiDocument: ApiDocument = {
    get json() {
      describeRoutes();
      json ??= JSON.stringify(app.swagger());
      return json;
    },
    get problems() {
      describeRoutes();
      return problems;
    },
  };
  app.decorate('apiDocument', apiDocument);

  app.addHook('onRoute', function (this: FastifyInstance, route) {
    // Fastify adds a HEAD beside each GET; the GET is the one documented.
    if (route.method === 'HEAD' || !isDocumented(route.url)) return;
    routes.push({ route, instance: this });
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tasklane API',
        version,
        description: [
          'Everything the Tasklane app does, over HTTP and JSON. Every error is `{message}` in plain words.',
          '',
          `Authenticate with a personal API token: create one with \`POST /api/tokens\` from a signed-in session, then send \`Authorization: Bearer ${TOKEN_LIMITS.prefix}...\`. Passwords, tokens and sessions are managed from a session only.`,
        ].join('\n'),
        license: { name: license, identifier: license },
      },
      servers: [{ url: appUrl }],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: `A personal API token (\`${TOKEN_LIMITS.prefix}...\`), from \`POST /api/tokens\`.`,
          },
          sessionHeader: {
            type: 'apiKey',
            in: 'header',
            name: SESSION_HEADER,
            description: `The \`sessionId\` of \`POST /api/auth/login\` (also accepted as \`${SESSION_HEADER_ALT}\`).`,
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description:
              'The httpOnly cookie set at sign-in. A request that changes something with the cookie alone must come from the app’s own origin.',
          },
        },
        schemas: { Error: toJsonSchema(errorSchema, 'output', 'Error', problems) },
        parameters: IDEMPOTENCY_OPENAPI.parameters,
        responses: {
          Error: {
            description: 'An error: `{message}` with the status that fits (DESIGN.md §4).',
            content: { [MEDIA.json]: { schema: { $ref: '#/components/schemas/Error' } } },
          },
          ...IDEMPOTENCY_OPENAPI.responses,
        },
      },
      tags: TAGS,
    },
    // Swagger UI's own JSON route asks @fastify/swagger directly: the routes are described first.
    transform: ({ url, route }) => {
      describeRoutes();
      return { url, schema: described.get(route) ?? { hide: true } };
    },
    transformObject: (document) =>
      withErrorsAndTags((document as { openapiObject: OpenApiObject }).openapiObject),
  });

  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    // Its own page and initializer script are files: they run under the app's CSP (decision 006).
    // No deep links: they make each operation's path a link inside its toggle button (axe).
    uiConfig: { layout: 'BaseLayout', deepLinking: false, displayOperationId: true, docExpansion: 'list' },
    theme: {
      title: 'Tasklane API',
      css: [{ filename: 'contrast.css', content: CONTRAST_CSS }],
      js: [{ filename: 'accessibility.js', content: ACCESSIBILITY_JS }],
    },
    // No badge from validator.swagger.io: the page loads nothing from elsewhere.
    validatorUrl: false,
  });

  app.get(
    OPENAPI_PATH,
    {
      schema: {
        summary: 'This OpenAPI 3.1 document',
        tags: ['Documentation'],
        operationId: 'getOpenApiDocument',
        security: [],
        response: {
          200: z.looseObject({ openapi: z.string() }).meta({ description: 'The OpenAPI document' }),
        },
      },
    },
    (_request, reply) => reply.type('application/json; charset=utf-8').send(apiDocument.json),
  );
}

/** Swagger UI's own colours, darkened where white text on them fails WCAG AA contrast. */
const CONTRAST_CSS = `
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #0b5cad; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #137547; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #006d5b; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b00020; }
.swagger-ui .info .title small { background: #4a5160; }
.swagger-ui .info .title small.version-stamp { background: #3b6e00; }
.swagger-ui .info .url, .swagger-ui .info a { color: #1f5fa8; }
.swagger-ui .btn.authorize { color: #137547; border-color: #137547; }
.swagger-ui .btn.authorize span { color: #137547; }
.swagger-ui .btn.authorize svg { fill: #137547; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #4a5160; }
.swagger-ui .parameter__in { color: #4a5160; }
`;

/**
 * Two of Swagger UI's own accessibility gaps, mended whenever it renders (a file, so the CSP stands):
 * its server picker (the document's `servers`) is a select with no accessible name (axe: select-name),
 * and a code example wider or taller than its box scrolls but cannot be reached by keyboard (axe:
 * scrollable-region-focusable), so it joins the tab order.
 */
const ACCESSIBILITY_JS = `
new MutationObserver(function () {
  var select = document.getElementById('servers');
  if (select && !select.hasAttribute('aria-label')) select.setAttribute('aria-label', 'Server');
  document.querySelectorAll('.swagger-ui pre:not([tabindex])').forEach(function (pre) {
    if (pre.scrollWidth > pre.clientWidth || pre.scrollHeight > pre.clientHeight) pre.tabIndex = 0;
  });
}).observe(document.getElementById('swagger-ui'), { childList: true, subtree: true });
`;

interface OpenApiObject {
  tags?: Array<{ name: string }>;
  paths?: Record<
    string,
    Record<string, { tags?: string[]; parameters?: unknown[]; responses?: Record<string, unknown> }>
  >;
}

/**
 * Every operation answers errors as `{message}`; every write takes an Idempotency-Key (with its 409
 * and 422); every tag an operation uses is listed.
 */
function withErrorsAndTags(document: OpenApiObject): OpenApiObject {
  const tags = new Set<string>();
  for (const operations of Object.values(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const tag of operation.tags ?? []) tags.add(tag);
      if (IDEMPOTENCY_OPENAPI.methods.has(method)) {
        operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_OPENAPI.parameter];
        operation.responses ??= {};
        for (const [code, ref] of Object.entries(IDEMPOTENCY_OPENAPI.operationResponses)) {
          operation.responses[code] ??= ref;
        }
      }
      operation.responses ??= {};
      operation.responses['4XX'] ??= { $ref: '#/components/responses/Error' };
      operation.responses['5XX'] ??= { $ref: '#/components/responses/Error' };
    }
  }
  const listed = (document.tags ?? []).filter((tag) => tags.has(tag.name));
  const unlisted = [...tags].filter((name) => !listed.some((tag) => tag.name === name)).sort();
  return { ...document, tags: [...listed, ...unlisted.map((name) => ({ name }))] };
}
