import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ZodType, z } from 'zod';
import { VALIDATION } from '../../common/spec';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { validatorCompiler } from './zod';

/**
 * A field that is missing is required; a field sent with the wrong type is told the type it must
 * have, whatever message its schema gives for a missing one.
 */
describe('validation messages', () => {
  let t: TestApp;
  let user: TestUser;
  let taskId: number;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    user = await t.signUp();
    taskId = (await user.request('POST', '/api/tasks', { title: 'A task' })).json().id;
  });
  afterAll(async () => t.close());

  const messageFor = async (method: string, url: string, body: unknown) => {
    const response = await user.request(method, url, body);
    expect(response.statusCode, response.body).toBe(400);
    return response.json().message;
  };

  it('names the type a wrongly typed field must have', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', `/api/tasks/${taskId}/checklist`, { title: ['x'] }, 'title must be a string'],
      ['POST', `/api/tasks/${taskId}/checklist`, { title: null }, 'title must be a string'],
      ['POST', '/api/tasks', { title: ['x'] }, 'title must be a string'],
      ['POST', '/api/tasks', { title: { a: 1 } }, 'title must be a string'],
      ['PATCH', `/api/tasks/${taskId}`, { completed: 'yes' }, 'completed must be a boolean'],
      ['POST', '/api/tasks/reorder', { taskIds: 'a,b' }, 'taskIds must be an array'],
      ['POST', '/api/tasks/reorder', { taskIds: ['a'] }, 'taskIds.0 must be a number'],
      ['POST', '/api/tokens', { name: 5 }, 'name must be a string'],
      ['POST', '/api/tokens', { name: 'n', expiresInDays: 'ten' }, 'expiresInDays must be a number'],
      [
        'POST',
        '/api/auth/change-password',
        { currentPassword: 1, newPassword: 'long enough' },
        'currentPassword must be a string',
      ],
      ['POST', '/api/tasks', ['x'], 'Request body must be an object'],
    ];
    for (const [method, url, body, message] of cases) {
      expect(await messageFor(method, url, body), `${method} ${url} ${JSON.stringify(body)}`).toBe(message);
    }
  });

  it('says a missing field is required, in the words its schema gives', async () => {
    expect(await messageFor('POST', `/api/tasks/${taskId}/checklist`, {})).toBe('title is required');
    expect(await messageFor('POST', '/api/tasks', {})).toBe(VALIDATION.taskTitleRequired);
    expect(await messageFor('POST', '/api/tokens', {})).toBe('Name is required');
    expect(await messageFor('POST', '/api/auth/change-password', { newPassword: 'long enough' })).toBe(
      'Current password is required',
    );
  });

  it('keeps a schema’s own words for a value of the right type that does not fit', async () => {
    expect(await messageFor('POST', '/api/tasks/reorder', { taskIds: [1.5] })).toBe(
      'taskIds must be a whole number',
    );
    expect(await messageFor('POST', `/api/tasks/${taskId}/checklist`, { title: ' ' })).toBe(
      'title is required',
    );
  });
});

describe('query strings and path parameters once parsed', () => {
  const compile = (schema: ZodType, httpPart: string) =>
    validatorCompiler({ schema, httpPart, method: 'GET', url: '/x' }) as (data: unknown) => {
      value?: Record<string, unknown>;
      error?: Error;
    };

  it('parses a query string seen before from memory, each request getting an object of its own', () => {
    let parses = 0;
    const schema = z.object({
      n: z.coerce.number().transform((n) => {
        parses += 1;
        return n;
      }),
    });
    const validate = compile(schema, 'querystring');
    const first = validate({ n: '5' });
    const second = validate({ n: '5' });
    expect(first.value).toEqual({ n: 5 });
    expect(second.value).toEqual({ n: 5 });
    expect(second.value).not.toBe(first.value);
    expect(parses).toBe(1);
    (second.value as { n: number }).n = 6;
    expect(validate({ n: '5' }).value).toEqual({ n: 5 });
    expect(validate({ n: '7' }).value).toEqual({ n: 7 });
    expect(parses).toBe(2);
  });

  it('still refuses an invalid one every time, and parses bodies and nested values anew', () => {
    const query = compile(z.object({ n: z.coerce.number().int() }), 'querystring');
    expect(query({ n: 'x' }).error).toBeDefined();
    expect(query({ n: 'x' }).error).toBeDefined();
    let parses = 0;
    const counted = z.string().transform((s) => {
      parses += 1;
      return s;
    });
    const body = compile(z.object({ s: counted }), 'body');
    body({ s: 'a' });
    body({ s: 'a' });
    const nested = compile(z.object({ list: z.array(counted) }), 'querystring');
    nested({ list: ['a'] });
    nested({ list: ['a'] });
    expect(parses).toBe(4);
  });
});
