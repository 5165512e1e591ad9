import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import type { LightMyRequestResponse } from 'fastify';
import { sample } from 'openapi-sampler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../common/tokens';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { type FakeProvider, startFakeProvider } from '../testing/fake-provider';
import {
  type Document,
  documentedResponse,
  fetchDocument,
  type Json,
  type Operation,
  resolved,
} from '../testing/openapi-document';

/**
 * Schemathesis-style checks of the OpenAPI document against the API. For every operation, a request
 * made from the document (its path ids name real rows), sent as a signed-in user, an administrator
 * for the admin routes, nobody for a public one: the status must be documented and not a 5xx, the
 * media type documented for that status, a JSON body valid against the documented schema. And for
 * every operation that takes a body, one of the wrong type: 400 with `{message}`.
 *
 * Bodies and parameters come from openapi-sampler (Redocly's, deterministic: an example where the
 * document has one, else the first enum value, a pattern's match, the least a limit allows), and
 * are checked against the document before they are sent.
 */

interface Call {
  path: string;
  method: string;
  operation: Operation;
}

interface Rows {
  task: number;
  checklistItem: number;
  reminder: number;
  file: number;
  agent: number;
  token: number;
  otherUser: number;
  accessRequest: number;
  otherSession: string;
  calendarFile: string;
  project: number;
  /** A member of `project` besides the user, for the paths that name one. */
  projectMember: number;
  section: number;
  webhook: number;
  /** An entry of `webhook`'s delivery log. */
  webhookDelivery: number;
  template: number;
}

/** Not called: an event stream never ends, so there is no answer to check (tasks.test.ts reads one). */
const SKIPPED = new Set(['streamEvents']);

/**
 * The generated requests that cannot succeed, and their answer: each needs a secret, a state or a
 * row that a request made from the document alone cannot have. Every other one must succeed (2xx):
 * a request the document calls valid is one the API accepts.
 */
const REFUSED: Record<string, number> = {
  login: 401, // no such account
  changePassword: 400, // not the current password
  resetPassword: 400, // no such link
  enableTwoFactor: 400, // not the authenticator's code
  disableTwoFactor: 400, // not the password
  loginTwoFactor: 401, // no such sign-in under way
  startOidcSignIn: 404, // single sign-on is not configured
  finishOidcSignIn: 404,
  registerPasskey: 400, // no registration under way
  passkeySignIn: 401, // no passkey sign-in under way
  renamePasskey: 404, // no passkey
  deletePasskey: 404,
  denyAccessRequest: 404, // approved the call before
  moveTask: 400, // after itself: the one task there is
  moveSection: 400, // after a generated id: no section of this project
  applyAiProposal: 404, // no proposal
  dismissAiProposal: 404,
  addProjectMember: 400, // no account has the example's name
  transferProject: 400, // the generated user is not a member of the project
  createTaskRelation: 404, // the example's other task is not there
  deleteTaskRelation: 404, // no relation
};

/** The real row a path names, by the start of the path; other ids are generated (and name nothing). */
const PATH_ROWS: Array<[RegExp, keyof Rows]> = [
  [/^\/api\/tasks\/\{(id|taskId)\}/, 'task'],
  [/^\/api\/checklist\/\{id\}/, 'checklistItem'],
  [/^\/api\/reminders\/\{id\}/, 'reminder'],
  [/^\/api\/files\/\{id\}/, 'file'],
  [/^\/api\/ai-agents\/\{id\}/, 'agent'],
  [/^\/api\/tokens\/\{id\}/, 'token'],
  [/^\/api\/admin\/users\/\{id\}/, 'otherUser'],
  [/^\/api\/admin\/access-requests\/\{id\}/, 'accessRequest'],
  [/^\/api\/auth\/sessions\/\{id\}/, 'otherSession'],
  [/^\/api\/calendar\/\{file\}/, 'calendarFile'],
  [/^\/api\/projects\/\{id\}/, 'project'],
  [/^\/api\/sections\/\{id\}/, 'section'],
  [/^\/api\/webhooks\/\{id\}/, 'webhook'],
  [/^\/api\/templates\/\{id\}/, 'template'],
];
/** Path parameters that name a row of their own, whatever the path. */
const PARAM_ROWS: Record<string, keyof Rows> = { userId: 'projectMember', deliveryId: 'webhookDelivery' };

/** A webhook's receiver: the discard port on loopback (allowed here: WEBHOOKS_ALLOW_PRIVATE). */
const HOOK_URL = 'http://127.0.0.1:9/hook';

/**
 * Sent instead of a generated body: a generated AI connection (no base URL) would send the key to
 * the provider's public address; this one goes to the test's own provider.
 */
const BODIES: Record<string, (fake: FakeProvider) => Json> = {
  putAiConnection: (fake) => ({ apiKey: 'user-key', baseUrl: fake.baseUrl }),
  // Exactly one of two optional fields, which a schema sample cannot choose (issue 22).
  createTaskReminder: () => ({ at: '2030-01-01T09:00:00Z' }),
  markNotificationsRead: () => ({ all: true }),
  // A browser's subscription: a push service's https URL and the browser's real-looking keys.
  createPushSubscription: () => ({
    endpoint: 'https://push.example.com/send/abc',
    keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
  }),
  deletePushSubscription: () => ({ endpoint: 'https://push.example.com/send/abc' }),
  // A sample URL ('string') is no URL; the conformance test's receiver is.
  createWebhook: () => ({ url: HOOK_URL, events: ['task.created'] }),
};

const SAMPLING = { skipReadOnly: true, enablePatterns: true, quiet: true };
/**
 * The least value the schema describes: its required fields, or every field where those are not
 * enough (an update that must name one of its fields).
 */
const generate = (schema: Json, document: Document, everyField = false) =>
  sample(schema as never, { ...SAMPLING, skipNonRequired: !everyField }, document);

/**
 * Reads first, then changes, in the document's order; then deletions, the nested before the whole;
 * signing out last. So the rows the paths name are there when they are asked for.
 */
function callsOf(document: Document): Call[] {
  const all = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );
  const signOut = (call: Call) => call.operation.operationId === 'logout';
  return [
    ...all.filter((call) => call.method === 'get'),
    ...all.filter((call) => !['get', 'delete'].includes(call.method) && !signOut(call)),
    ...all.filter((call) => call.method === 'delete').reverse(),
    ...all.filter(signOut),
  ].filter((call) => !SKIPPED.has(call.operation.operationId ?? ''));
}

/** A multipart body with each required part: a small file where the part is binary, else text. */
async function multipartBody(schema: Json, document: Document) {
  const form = new FormData();
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  for (const name of (schema.required ?? []) as string[]) {
    const part = properties[name] ?? {};
    const binary = part.format === 'binary' || (part.items as Json | undefined)?.format === 'binary';
    if (binary) form.append(name, new Blob(['title\nFrom a file\n'], { type: 'text/csv' }), 'tasks.csv');
    else form.append(name, String(generate(part, document)));
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    contentType: request.headers.get('content-type') ?? '',
    payload: Buffer.from(await request.arrayBuffer()),
  };
}

/** The first of these values that `accepts` refuses: a number for text, text for a number, and so on. */
const wrongType = (accepts: (value: unknown) => boolean): unknown =>
  [12345, 'not the right type', true, []].find((value) => !accepts(value));

describe.each(testDialects)('every documented operation, called as the document says, on %s', (dialect) => {
  let t: TestApp;
  let fake: FakeProvider;
  let document: Document;
  let admin: TestUser;
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const compiled = new Map<unknown, ValidateFunction>();
  const validator = (schema: unknown) => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(resolved(document, schema) as object);
      compiled.set(schema, validate);
    }
    return validate;
  };
  const errors = (schema: unknown, value: unknown) => {
    const validate = validator(schema);
    return validate(value) ? [] : validate.errors;
  };

  beforeAll(async () => {
    fake = await startFakeProvider();
    t = await createTestApp(dialect, {
      env: {
        OPENAI_API_KEY: 'server-key',
        OPENAI_BASE_URL: fake.baseUrl,
        AI_ALLOW_PRIVATE_BASE_URLS: 'true',
        AI_TIMEOUT_MS: '2000',
        WEBHOOKS_ALLOW_PRIVATE: 'true',
      },
    });
    document = await fetchDocument(t);
    admin = await t.signUp({ isAdmin: true });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  /** A user with one of everything a path can name, and a second session; another user for the admin. */
  async function seed(): Promise<{ user: TestUser; rows: Rows }> {
    const user = await t.signUp();
    const other = await t.signUp();
    const login = { username: user.user.username, password: user.password };
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: login })).statusCode).toBe(
      200,
    );

    const created = async (url: string, body?: unknown) => {
      const response = await user.request('POST', url, body);
      expect(response.statusCode, `POST ${url}: ${response.body}`).toBeLessThan(300);
      return response.json() as Json;
    };
    const task = await created('/api/tasks', { title: 'Conformance' });
    const item = await created(`/api/tasks/${task.id}/checklist`, { title: 'Step' });
    const reminder = await created(`/api/tasks/${task.id}/reminders`, { at: '2030-01-01T08:00:00Z' });
    const agent = await created('/api/ai-agents', { title: 'Agent', prompt: 'Help' });
    const token = await created('/api/tokens', { name: 'conformance' });
    const feed = await created('/api/calendar-feed');
    const project = await created('/api/projects', { name: 'Shared' });
    await created(`/api/projects/${project.id}/members`, { user: other.user.username, role: 'editor' });
    const section = await created(`/api/projects/${project.id}/sections`, { name: 'Doing' });
    const webhook = await created('/api/webhooks', { url: HOOK_URL, events: ['task.created'] });
    const template = await created(`/api/projects/${project.id}/template`, {});
    await created(`/api/webhooks/${webhook.id}/test`);
    const [delivery] = (await user.request('GET', `/api/webhooks/${webhook.id}/deliveries`)).json() as Json[];
    const upload = await multipartBody(
      { properties: { files: { format: 'binary' } }, required: ['files'] },
      document,
    );
    const file = await t.app.inject({
      method: 'POST',
      url: `/api/tasks/${task.id}/files`,
      headers: { ...user.headers, 'content-type': upload.contentType },
      payload: upload.payload,
    });
    expect(file.statusCode).toBe(201);
    const access = {
      email: `${user.user.username}-friend@example.com`,
      requestedUsername: `${user.user.username}-friend`,
    };
    const requested = await t.app.inject({ method: 'POST', url: '/api/access-requests', payload: access });
    expect(requested.statusCode).toBe(201);
    const accessRequests = (await admin.request('GET', '/api/admin/access-requests')).json() as Json[];
    const sessions = (await user.request('GET', '/api/auth/sessions')).json() as DeviceSession[];
    const rows: Rows = {
      task: task.id as number,
      checklistItem: item.id as number,
      reminder: reminder.id as number,
      file: (file.json() as Json[])[0]?.id as number,
      agent: agent.id as number,
      token: token.id as number,
      otherUser: other.user.id,
      accessRequest: accessRequests.find((r) => r.email === access.email)?.id as number,
      otherSession: sessions.find((s) => !s.current)?.id ?? '',
      calendarFile: String(feed.url).split('/').pop() ?? '',
      project: project.id as number,
      projectMember: other.user.id,
      section: section.id as number,
      webhook: webhook.id as number,
      webhookDelivery: delivery?.id as number,
      template: template.id as number,
    };
    return { user, rows };
  }

  /** The URL and credentials the document describes for a call; the body is the caller's. */
  function target({ path, operation }: Call, user: TestUser, rows: Rows) {
    let url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const row = PARAM_ROWS[name] ?? PATH_ROWS.find(([pattern]) => pattern.test(path))?.[1];
      const parameter = operation.parameters?.find((p) => p.in === 'path' && p.name === name);
      const value = row ? rows[row] : generate(parameter?.schema ?? {}, document);
      return encodeURIComponent(String(value));
    });
    const query = new URLSearchParams();
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'query' && parameter.required) {
        query.set(parameter.name, String(generate(parameter.schema, document)));
      }
    }
    if (query.size > 0) url += `?${query}`;
    const asAdmin = operation.description?.startsWith('Administrators only.');
    const headers = operation.security?.length === 0 ? {} : asAdmin ? admin.headers : user.headers;
    return { url, headers };
  }

  /** Status, media type and body against what the document says of this status. */
  function expectDocumented({ path, method, operation }: Call, response: LightMyRequestResponse) {
    const label = `${method.toUpperCase()} ${path} answered ${response.statusCode} ${response.body.slice(0, 200)}`;
    expect(response.statusCode, label).toBeLessThan(500);
    const documented = documentedResponse(operation, response.statusCode, document);
    expect(documented, `${label}: status not documented`).toBeDefined();
    const content = documented?.content;
    if (!content) {
      expect(response.body, `${label}: documented without a body`).toBe('');
      return;
    }
    const mediaType =
      String(response.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim() ?? '';
    const media = content[mediaType] ?? content['*/*'];
    expect(media, `${label}: ${mediaType} is not among ${Object.keys(content)}`).toBeDefined();
    if (mediaType === 'application/json') {
      expect(errors(media?.schema, response.json()), label).toEqual([]);
    }
  }

  it('answers a request made from the document with a documented status, media type and body', async () => {
    const { user, rows } = await seed();
    const statuses: Record<string, number | '2xx'> = {};
    const expected: Record<string, number | '2xx'> = {};
    for (const call of callsOf(document)) {
      const { operation } = call;
      const id = operation.operationId ?? `${call.method} ${call.path}`;
      const { url, headers } = target(call, user, rows);
      const [mediaType, body] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
      let request: { headers: Record<string, string>; payload?: string | Buffer } = { headers };
      if (mediaType === 'multipart/form-data' && body) {
        const { contentType, payload } = await multipartBody(body.schema, document);
        request = { headers: { ...headers, 'content-type': contentType }, payload };
      } else if (body) {
        let json = BODIES[id]?.(fake) ?? generate(body.schema, document);
        if (!validator(body.schema)(json)) json = generate(body.schema, document, true);
        expect(errors(body.schema, json), `${id}: the generated body is valid`).toEqual([]);
        request = {
          headers: { ...headers, 'content-type': 'application/json' },
          payload: JSON.stringify(json),
        };
      }
      const response = await t.app.inject({ method: call.method.toUpperCase() as 'GET', url, ...request });
      expectDocumented(call, response);
      statuses[id] = response.statusCode < 300 ? '2xx' : response.statusCode;
      expected[id] = REFUSED[id] ?? '2xx';
    }
    expect(statuses).toEqual(expected);
    expect(Object.keys(statuses).length).toBeGreaterThan(70);
  });

  it('refuses a body of the wrong type with 400 and {message}, for every operation that takes one', async () => {
    const { user, rows } = await seed();
    let checked = 0;
    for (const call of callsOf(document)) {
      const content = call.operation.requestBody?.content;
      if (!content) continue;
      const { url, headers } = target(call, user, rows);
      const [mediaType, { schema }] = Object.entries(content)[0] ?? ['', { schema: {} }];
      let payload: string;
      if (mediaType === 'application/json') {
        // The generated body with its first field of another type.
        const body = generate(schema, document) as Json;
        const [field, fieldSchema] =
          Object.entries((schema.properties ?? {}) as Record<string, Json>)[0] ?? [];
        expect(field, `${call.operation.operationId}: a field to get wrong`).toBeDefined();
        body[field as string] = wrongType((value) => validator(fieldSchema)(value));
        expect(errors(schema, body), `${call.operation.operationId}: the body is wrong`).not.toEqual([]);
        payload = JSON.stringify(body);
      } else {
        // A multipart form sent as JSON: a body of the wrong type altogether (415).
        payload = JSON.stringify({});
      }
      const response = await t.app.inject({
        method: call.method.toUpperCase() as 'POST',
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        payload,
      });
      const label = `${call.method.toUpperCase()} ${call.path} answered ${response.statusCode} ${response.body}`;
      expect(response.statusCode, label).toBe(mediaType === 'application/json' ? 400 : 415);
      expect(response.json(), label).toEqual({ message: expect.stringMatching(/\S/) });
      expectDocumented(call, response);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(20);
  });
});
