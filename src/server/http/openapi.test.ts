import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CreatedToken } from '../../common/tokens';
import { createTestApp, type TestApp } from '../testing/app';
import { testDialects } from '../testing/database';
import { DOCS_PATH, OPENAPI_PATH, registerOpenApi } from './openapi';
import { registerSecurityHeaders } from './security';
import { requireSessionAuth, requireUser } from './session';
import { serializerCompiler, validatorCompiler } from './zod';

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<
    string,
    { description?: string; content?: Record<string, { schema: Json }>; $ref?: string }
  >;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Json>;
    securitySchemes: Record<string, Json>;
    responses: Record<string, Operation['responses'][string]>;
  };
}

const ALL_SCHEMES = [{ bearer: [] }, { sessionHeader: [] }, { sessionCookie: [] }];
const SESSION_SCHEMES = [{ sessionHeader: [] }, { sessionCookie: [] }];

/** `/api/tasks/:id` as OpenAPI writes it: `/api/tasks/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

async function fetchDocument(t: TestApp): Promise<Document> {
  const response = await t.app.inject({ method: 'GET', url: OPENAPI_PATH });
  expect(response.statusCode).toBe(200);
  return response.json() as Document;
}

/** A documented schema with its `#/components/schemas/...` references filled in, for a JSON Schema validator. */
function resolved(document: Document, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((s) => resolved(document, s));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (ref?.startsWith('#/components/schemas/')) {
    return resolved(document, document.components.schemas[ref.slice('#/components/schemas/'.length)]);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, resolved(document, v)]));
}

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
    await registerOpenApi(app);
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
    const responses = document.paths[path]?.[method]?.responses ?? {};
    // An exact status, else its range (4XX: the shared error answer).
    let response = responses[String(status)] ?? responses[`${String(status)[0]}XX`];
    if (response?.$ref) response = document.components.responses[response.$ref.split('/').pop()!];
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
