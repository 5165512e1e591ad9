import { expect } from 'vitest';

/**
 * Awaits an answer of the app, expects its status (showing the body when it differs) and gives its
 * JSON, or undefined for an empty body (a 204).
 */
export async function expectStatus<T>(
  response: Promise<{ statusCode: number; body: string; json(): unknown }>,
  status = 200,
): Promise<T> {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  return (answer.body ? answer.json() : undefined) as T;
}
