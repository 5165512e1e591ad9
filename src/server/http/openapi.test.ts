import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import packageJson from '../../../package.json';
import { UPLOAD_LIMITS } from '../../common/files';
import { MAX_ID } from '../../common/ids';
import type { CreatedToken } from '../../common/tokens';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import {
  type Document,
  documentedResponse,
  fetchDocument,
  type Json,
  resolved,
} from '../testing/openapi-document';
import { DOCS_PATH, OPENAPI_PATH, registerOpenApi } from './openapi';
import { registerSecurityHeaders } from './security';
import { requireSessionAuth, requireUser } from './session';
import { serializerCompiler, validatorCompiler } from './zod';

const ALL_SCHEMES = [{ bearer: [] }, { sessionHeader: [] }, { sessionCookie: [] }];
const SESSION_SCHEMES = [{ sessionHeader: [] }, { sessionCookie: [] }];

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The Redocly CLI issue 20 names, pinned in package.json. */
const REDOCLY_VERSION = packageJson.devDependencies['@redocly/cli'];

interface LintReport {
  version: string;
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{
    ruleId: string;
    severity: string;
    message: string;
    location: Array<{ pointer: string }>;
  }>;
}

/**
 * `redocly lint` with the project's redocly.yaml, as a child process: @redocly/cli 2.x is one
 * bundle with no programmatic API (its lint engine, @redocly/openapi-core, is bundled in, and the
 * last one published on its own is older than the CLI), and this is the very check issue 20 names.
 */
async function redoclyLint(file: string): Promise<LintReport> {
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
  const args = [cli, 'lint', '--format=json', `--config=${path.join(ROOT, 'redocly.yaml')}`, file];
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_TELEMETRY: 'off' },
    });
    return JSON.parse(stdout) as LintReport;
  } catch (error) {
    // It exits 1 when it finds an error; the report is on stdout all the same.
    const { stdout } = error as { stdout?: string };
    if (!stdout) throw error;
    return JSON.parse(stdout) as LintReport;
  }
}

/** `/api/tasks/:id` as OpenAPI writes it: `/api/tasks/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('the OpenAPI document', () => {
  let t: TestApp;
  let document: Document;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    document = await fetchDocument(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('is a valid OpenAPI 3.1 document, served without a session', async () => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(document) as unknown as Parameters<Validator['validate']>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(document.openapi).toBe('3.1.0');
  });

  it('describes every route truthfully: no route lacks schemas, a summary, a tag or its auth', () => {
    // Each entry names a route and what it lacks (see registerOpenApi).
    expect(t.app.apiDocument.problems).toEqual([]);
  });

  it('has every /api route with its method, each with a summary, a tag and a unique operationId', () => {
    const apiRoutes = t.routes.filter(
      (r) => r.url.startsWith('/api/') && r.method !== 'HEAD' && !r.url.startsWith(`${DOCS_PATH}`),
    );
    expect(apiRoutes.length).toBeGreaterThan(30);
    const missing = apiRoutes.filter((r) => !document.paths[openApiPath(r.url)]?.[r.method.toLowerCase()]);
    expect(missing).toEqual([]);

    const operations = Object.values(document.paths).flatMap((p) => Object.values(p));
    expect(operations.length).toBe(apiRoutes.length);
    for (const op of operations) {
      expect(op.summary, op.operationId).toBeTruthy();
      expect(op.tags?.length, op.operationId).toBeGreaterThan(0);
      expect(op.security, op.operationId).toBeDefined();
    }
    const ids = operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('classifies each route: public, any credential, or a session only', () => {
    const security = (path: string, method: string) => document.paths[path]?.[method]?.security;
    expect(security('/api/auth/login', 'post')).toEqual([]);
    expect(security('/api/auth/send-password', 'post')).toEqual([]);
    expect(security(OPENAPI_PATH, 'get')).toEqual([]);
    expect(security('/api/tasks', 'get')).toEqual(ALL_SCHEMES);
    expect(security('/api/tasks/{id}', 'patch')).toEqual(ALL_SCHEMES);
    // Guarded for the whole admin scope (scope.addHook), not per route.
    expect(security('/api/admin/users', 'get')).toEqual(ALL_SCHEMES);
    expect(security('/api/tokens', 'get')).toEqual(SESSION_SCHEMES);
    expect(security('/api/tokens', 'post')).toEqual(SESSION_SCHEMES);
    expect(security('/api/tokens/{id}', 'delete')).toEqual(SESSION_SCHEMES);
    expect(security('/api/auth/change-password', 'post')).toEqual(SESSION_SCHEMES);
    expect(security('/api/auth/sessions', 'get')).toEqual(SESSION_SCHEMES);
    expect(security('/api/auth/sessions/{id}', 'delete')).toEqual(SESSION_SCHEMES);

    const schemes = document.components.securitySchemes;
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.sessionHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'user-session' });
    expect(schemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'tasklane_session' });
  });

  it('describes errors, empty answers, uploads, downloads and streams as they are', () => {
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        expect(op.responses['4XX'], `${method} ${path}`).toEqual({ $ref: '#/components/responses/Error' });
        expect(op.responses['5XX'], `${method} ${path}`).toEqual({ $ref: '#/components/responses/Error' });
      }
    }
    expect(document.components.schemas.Error).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });

    const noContent = document.paths['/api/tasks/{id}']?.delete?.responses['204'];
    expect(noContent).toEqual({ description: 'No content' });
    expect(document.paths['/api/auth/logout']?.post?.responses['204']).toEqual({ description: 'No content' });

    const upload = document.paths['/api/tasks/{taskId}/files']?.post?.requestBody?.content;
    expect(Object.keys(upload ?? {})).toEqual(['multipart/form-data']);
    expect(upload?.['multipart/form-data']?.schema).toMatchObject({
      properties: { files: { type: 'array', items: { type: 'string', format: 'binary' } } },
    });

    const download = document.paths['/api/files/{id}/download']?.get?.responses;
    expect(download?.['200']?.content?.['*/*']?.schema).toMatchObject({ type: 'string', format: 'binary' });
    expect(download?.['206']).toBeDefined();

    const events = document.paths['/api/events']?.get?.responses['200']?.content;
    expect(Object.keys(events ?? {})).toEqual(['text/event-stream']);
    expect(events?.['text/event-stream']?.schema).toMatchObject({ type: 'string' });

    const execute = document.paths['/api/ai/execute']?.post?.responses['200']?.content;
    expect(Object.keys(execute ?? {}).sort()).toEqual(['application/json', 'text/event-stream']);
  });

  it('is written once: every request gets the same cached text', async () => {
    const first = await t.app.inject({ method: 'GET', url: OPENAPI_PATH });
    const second = await t.app.inject({ method: 'GET', url: OPENAPI_PATH });
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.body).toBe(t.app.apiDocument.json);
    expect(second.body).toBe(first.body);
  });

  it('serves the reference page without a session, under the app’s own CSP', async () => {
    const page = await t.app.inject({ method: 'GET', url: DOCS_PATH });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).not.toMatch(/<script>|<script[^>]*>\s*[^<\s]/); // no inline script
    const app = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(page.headers['content-security-policy']).toBe(app.headers['content-security-policy']);
    expect(page.headers['content-security-policy']).toContain("script-src 'self';");

    const initializer = await t.app.inject({
      method: 'GET',
      url: `${DOCS_PATH}/static/swagger-initializer.js`,
    });
    expect(initializer.statusCode).toBe(200);
    expect(initializer.headers['content-type']).toContain('javascript');
  });
});

describe('the contract tools rely on', () => {
  let t: TestApp;
  let document: Document;
  let user: TestUser;
  const body = (path: string, method: string, media = 'application/json') => {
    const schema = document.paths[path]?.[method]?.requestBody?.content[media]?.schema;
    expect(schema, `${method} ${path} ${media}`).toBeDefined();
    return schema as Json & { properties: Record<string, Json> };
  };

  beforeAll(async () => {
    // A deployment's address: Redocly rightly warns of a document whose server is localhost.
    t = await createTestApp('sqlite', { env: { APP_URL: 'https://tasks.example.org' } });
    document = await fetchDocument(t);
    user = await t.signUp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('names the server at APP_URL and the project’s licence (MIT, as package.json and LICENSE say)', async () => {
    expect(document.servers).toEqual([{ url: t.ctx.config.appUrl }]);
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(packageJson.license).toBe('MIT');
    const licence = await fs.readFile(path.join(ROOT, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^MIT License/);
  });

  it('marks every e-mail field a request sends as `format: email`', () => {
    const emails: string[] = [];
    for (const [route, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const { schema } of Object.values(operation.requestBody?.content ?? {})) {
          for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
            // The notification settings' `email` is a channel's switches (issue 22), not an address.
            if (!/email/i.test(name) || property.type === 'object') continue;
            emails.push(`${method} ${route}`);
            expect(property, `${method} ${route} ${name}`).toMatchObject({ type: 'string', format: 'email' });
          }
        }
      }
    }
    expect(emails).toEqual([
      'post /api/auth/send-password',
      'post /api/access-requests',
      'post /api/admin/users',
    ]);
  });

  it('gives dueDate the pattern the API checks, and says in words the rule a pattern cannot (a real date)', async () => {
    const created = await user.request('POST', '/api/tasks', { title: 'Due dates' });
    const url = `/api/tasks/${(created.json() as { id: number }).id}`;
    for (const [route, method] of [
      ['/api/tasks', 'post'],
      ['/api/tasks/{id}', 'patch'],
    ] as const) {
      const dueDate = body(route, method).properties.dueDate as Json & { anyOf: Json[] };
      const text = dueDate.anyOf.find((s) => s.type === 'string') as { pattern: string; maxLength: number };
      expect(JSON.stringify(dueDate)).toMatch(/calendar/);
      const pattern = new RegExp(text.pattern, 'u');
      // Each value: what the pattern says, what the API does with it.
      const cases: Array<[string, boolean]> = [
        ['', true],
        ['2026-12-01', true],
        ['2026-12-01T09:30:00Z', true],
        ['2026-12-01T09:30:00.000+02:00', true],
        ['2026-1-5', false],
        ['01/12/2026', false],
        ['tomorrow', false],
        ['2026-12-01 09:30', false],
        ['x2026-12-01', false],
      ];
      for (const [value, valid] of cases) {
        expect(pattern.test(value), `pattern on ${JSON.stringify(value)}`).toBe(valid);
        const answer = await user.request('PATCH', url, { dueDate: value });
        expect(answer.statusCode, `PATCH dueDate ${JSON.stringify(value)}`).toBe(valid ? 200 : 400);
      }
      // The rule only the description carries: the date must exist.
      expect(pattern.test('2026-02-30')).toBe(true);
      expect((await user.request('PATCH', url, { dueDate: '2026-02-30' })).statusCode).toBe(400);
    }
  });

  it('says the reorder lists hold each id once, as the API requires', async () => {
    expect(body('/api/tasks/reorder', 'post').properties.taskIds).toMatchObject({ uniqueItems: true });
    expect(body('/api/tasks/{id}/checklist/reorder', 'post').properties.itemIds).toMatchObject({
      uniqueItems: true,
    });
    const task = (await user.request('POST', '/api/tasks', { title: 'Twice' })).json() as { id: number };
    const twice = await user.request('POST', '/api/tasks/reorder', { taskIds: [task.id, task.id] });
    expect(twice.statusCode).toBe(400);
  });

  it('has `minProperties: 1` exactly where an empty update is refused', async () => {
    const agent = await user.request('POST', '/api/ai-agents', { title: 'Agent', prompt: 'Help' });
    const task = await user.request('POST', '/api/tasks', { title: 'Empty update' });
    const item = await user.request('POST', `/api/tasks/${(task.json() as { id: number }).id}/checklist`, {
      title: 'Step',
    });
    const updates: Array<[string, string, string]> = [
      ['/api/ai-agents/{id}', 'PUT', `/api/ai-agents/${(agent.json() as { id: number }).id}`],
      ['/api/tasks/{id}', 'PATCH', `/api/tasks/${(task.json() as { id: number }).id}`],
      ['/api/checklist/{id}', 'PATCH', `/api/checklist/${(item.json() as { id: number }).id}`],
    ];
    for (const [route, method, url] of updates) {
      const refused = (await user.request(method, url, {})).statusCode === 400;
      const schema = body(route, method.toLowerCase());
      expect(schema.minProperties === 1, `${method} ${route}: {} ${refused ? 'refused' : 'accepted'}`).toBe(
        refused,
      );
    }
    // The agent's fields are not closed (an unknown one is dropped), so the schema also names the ones that count.
    expect(body('/api/ai-agents/{id}', 'put').anyOf).toEqual([
      { required: ['title'] },
      { required: ['prompt'] },
      { required: ['model'] },
    ]);
  });

  it('refuses blank text in the document where the API does (it trims before it counts)', async () => {
    const admin = await t.signUp({ isAdmin: true });
    const task = (await user.request('POST', '/api/tasks', { title: 'Blank' })).json() as { id: number };
    const blank = '   ';
    const fields: Array<[string, string, string, Json]> = [
      ['/api/tasks', 'post', '/api/tasks', { title: blank }],
      ['/api/tasks/{id}', 'patch', `/api/tasks/${task.id}`, { title: blank }],
      ['/api/tasks/{id}/checklist', 'post', `/api/tasks/${task.id}/checklist`, { title: blank }],
      ['/api/ai-agents', 'post', '/api/ai-agents', { title: blank, prompt: 'Help' }],
      ['/api/ai/connection', 'put', '/api/ai/connection', { apiKey: blank }],
      ['/api/tokens', 'post', '/api/tokens', { name: blank }],
      ['/api/admin/users', 'post', '/api/admin/users', { firstName: blank, email: 'new@example.com' }],
      ['/api/auth/login', 'post', '/api/auth/login', { username: blank, password: 'secret' }],
      ['/api/auth/2fa/enable', 'post', '/api/auth/2fa/enable', { code: blank }],
    ];
    const ajv = new Ajv2020({ strict: false });
    for (const [route, method, url, payload] of fields) {
      const validate = ajv.compile(body(route, method));
      expect(validate(payload), `${method} ${route} ${JSON.stringify(payload)} in the document`).toBe(false);
      const as = route.startsWith('/api/admin/') ? admin : user;
      const answer = await as.request(method.toUpperCase(), url, payload);
      expect(answer.statusCode, `${method} ${route}: ${answer.body}`).toBe(400);
    }
  });

  it('describes the upload’s one file field, and the import’s', () => {
    const upload = body('/api/tasks/{taskId}/files', 'post', 'multipart/form-data');
    expect(upload).toMatchObject({
      properties: {
        files: {
          type: 'array',
          minItems: 1,
          maxItems: UPLOAD_LIMITS.files,
          items: { type: 'string', format: 'binary' },
        },
      },
      required: ['files'],
      // Other parts may only be text (ignored); a file in any other field is refused.
      additionalProperties: { type: 'string' },
    });
    expect(JSON.stringify(upload)).toMatch(/refused/);
    const imported = body('/api/import', 'post', 'multipart/form-data');
    expect(imported).toMatchObject({
      properties: { file: { type: 'string', format: 'binary' } },
      required: ['file'],
    });
  });

  it('describes a task’s path id as the whole number it must be, like every other id', () => {
    for (const [route, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'path' || !/^(id|taskId)$/.test(parameter.name)) continue;
          if (route.startsWith('/api/auth/sessions/')) continue; // a session id is a random string
          expect(parameter.schema, `${method} ${route}`).toEqual({
            type: 'integer',
            exclusiveMinimum: 0,
            maximum: MAX_ID,
          });
        }
      }
    }
  });

  it("documents the task list's assignee filter from its schema: me, or me_or_unassigned (issue 28)", () => {
    const assignee = document.paths['/api/tasks']?.get?.parameters?.find((p) => p.name === 'assignee');
    expect(assignee?.schema).toMatchObject({ type: 'string', enum: ['me', 'me_or_unassigned'] });
  });

  it('passes Redocly’s recommended rules with no error and no warning (redocly.yaml says what is off, and why)', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tasklane-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      await fs.writeFile(file, t.app.apiDocument.json);
      const report = await redoclyLint(file);
      expect(report.version).toBe(REDOCLY_VERSION);
      const problems = report.problems.map(
        (p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`,
      );
      expect(problems).toEqual([]);
      expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the document, written when first asked for', () => {
  it('is the same whether the reference page or /api/openapi.json asks first', async () => {
    const t = await createTestApp('sqlite');
    try {
      // The reference page reads @fastify/swagger's own JSON route, not OPENAPI_PATH.
      const fromPage = await t.app.inject({ method: 'GET', url: `${DOCS_PATH}/json` });
      expect(fromPage.statusCode).toBe(200);
      const document = JSON.parse(fromPage.body) as Document;
      expect(document.paths['/api/tasks']?.get?.operationId).toBe('listTasks');
      expect(document).toEqual(JSON.parse(t.app.apiDocument.json));
      expect(t.app.apiDocument.problems).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('a route the document cannot describe', () => {
  it('is named in the problems, and guards are read from the route and from its scope', async () => {
    const app = Fastify({ logger: false });
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await registerSecurityHeaders(app);
    await registerOpenApi(app, { appUrl: 'http://localhost:3000' });
    const response = { 200: z.object({ ok: z.boolean() }) };
    const described = { summary: 'Described', tags: ['Test'] };
    app.get('/api/forgotten', async () => ({ ok: true }));
    app.get('/api/unclassified', { schema: { ...described, operationId: 'a', response } }, async () => ({
      ok: true,
    }));
    app.get(
      '/api/contradicts',
      { onRequest: requireUser, schema: { ...described, operationId: 'b', security: [], response } },
      async () => ({ ok: true }),
    );
    app.get(
      '/api/things/:id',
      { preHandler: requireUser, schema: { ...described, operationId: 'c', response } },
      async () => ({ ok: true }),
    );
    await app.register(async (scope) => {
      scope.addHook('onRequest', requireSessionAuth);
      scope.get('/api/scoped', { schema: { ...described, operationId: 'd', response } }, async () => ({
        ok: true,
      }));
    });
    await app.ready();

    const problems = app.apiDocument.problems.join('\n');
    expect(problems).toContain('GET /api/forgotten: no auth classification');
    expect(problems).toMatch(/GET \/api\/forgotten: .*no summary/);
    expect(problems).toMatch(/GET \/api\/forgotten: .*no response schema/);
    expect(problems).toContain('GET /api/unclassified: no auth classification');
    expect(problems).toContain('GET /api/contradicts: declares security');
    expect(problems).toContain('GET /api/things/:id: no params schema');
    expect(problems).not.toContain('/api/scoped');

    const doc = JSON.parse(app.apiDocument.json) as Document;
    expect(doc.paths['/api/scoped']?.get?.security).toEqual(SESSION_SCHEMES);
    await app.close();
  });
});

describe.each(testDialects)('the documented API with a bearer token on %s', (dialect) => {
  let t: TestApp;
  let document: Document;
  let bearer: { authorization: string };
  const ajv = new Ajv2020({ strict: false, validateFormats: false });

  /** Checks an answer against the schema the document gives for it. */
  function expectDocumented(path: string, method: string, status: number, body: unknown) {
    const operation = document.paths[path]?.[method];
    const response = operation && documentedResponse(operation, status, document);
    const schema = response?.content?.['application/json']?.schema;
    expect(schema, `${method} ${path} ${status} is documented`).toBeDefined();
    const validate = ajv.compile(resolved(document, schema) as object);
    expect(validate(body) ? [] : validate.errors, `${method} ${path} ${status}`).toEqual([]);
  }

  beforeAll(async () => {
    t = await createTestApp(dialect);
    document = await fetchDocument(t);
    const user = await t.signUp();
    // The document says tokens are made from a session.
    const created = await user.request('POST', '/api/tokens', { name: 'openapi test' });
    expect(created.statusCode).toBe(201);
    expectDocumented('/api/tokens', 'post', 201, created.json());
    bearer = { authorization: `Bearer ${(created.json() as CreatedToken).token}` };
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates, lists, reads and changes tasks as the document describes them', async () => {
    const create = document.paths['/api/tasks']?.post;
    expect(create?.security).toContainEqual({ bearer: [] });
    const example = create?.requestBody?.content['application/json']?.schema.example as Json;
    expect(example).toMatchObject({ title: expect.any(String) });

    const created = await t.app.inject({
      method: 'POST',
      url: '/api/tasks',
      headers: bearer,
      payload: example,
    });
    expect(created.statusCode).toBe(201);
    expectDocumented('/api/tasks', 'post', 201, created.json());
    const task = created.json() as { id: number; title: string };
    expect(task.title).toBe(example.title);

    const list = await t.app.inject({ method: 'GET', url: '/api/tasks', headers: bearer });
    expect(list.statusCode).toBe(200);
    expectDocumented('/api/tasks', 'get', 200, list.json());
    expect(list.json()).toEqual([expect.objectContaining({ id: task.id })]);

    const url = '/api/tasks/{id}'.replace('{id}', String(task.id));
    const one = await t.app.inject({ method: 'GET', url, headers: bearer });
    expectDocumented('/api/tasks/{id}', 'get', 200, one.json());

    const patched = await t.app.inject({
      method: 'PATCH',
      url,
      headers: bearer,
      payload: { notes: 'Called finance' },
    });
    expect(patched.statusCode).toBe(200);
    expectDocumented('/api/tasks/{id}', 'patch', 200, patched.json());

    const missing = await t.app.inject({ method: 'GET', url: '/api/tasks/999999', headers: bearer });
    expect(missing.statusCode).toBe(404);
    expectDocumented('/api/tasks/{id}', 'get', 404, missing.json());
  });

  it('uploads and downloads a file as multipart/form-data and bytes', async () => {
    const task = await t.app.inject({
      method: 'POST',
      url: '/api/tasks',
      headers: bearer,
      payload: { title: 'With a file' },
    });
    const taskId = (task.json() as { id: number }).id;
    const form = new FormData();
    form.append('files', new Blob(['hello, API'], { type: 'text/plain' }), 'hello.txt');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const upload = await t.app.inject({
      method: 'POST',
      url: `/api/tasks/${taskId}/files`,
      headers: { ...bearer, 'content-type': request.headers.get('content-type')! },
      payload: Buffer.from(await request.arrayBuffer()),
    });
    expect(upload.statusCode).toBe(201);
    expectDocumented('/api/tasks/{taskId}/files', 'post', 201, upload.json());

    const [file] = upload.json() as Array<{ id: number }>;
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/files/${file!.id}/download`,
      headers: bearer,
    });
    expect(download.statusCode).toBe(200);
    expect(download.body).toBe('hello, API');
  });

  it('is refused, with the documented error, where the document lists session schemes only', async () => {
    expect(document.paths['/api/tokens']?.get?.security).not.toContainEqual({ bearer: [] });
    const refused = await t.app.inject({ method: 'GET', url: '/api/tokens', headers: bearer });
    expect(refused.statusCode).toBe(403);
    expectDocumented('/api/tokens', 'get', 403, refused.json());
  });
});
