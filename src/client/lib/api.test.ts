import { describe, expect, it } from 'vitest';
import { errorMessage, errorStatus, serverMessage } from './api';

// Errors in the shape apiRequest throws (spec §8): "<status>: <body or status text>".
const failed = (status: number, body: string) => new Error(`${status}: ${body}`);

describe('errorStatus', () => {
  it('reads the status of a failed response', () => {
    expect(errorStatus(failed(404, '{"message":"Not found"}'))).toBe(404);
  });

  it('is undefined for other errors', () => {
    expect(errorStatus(new TypeError('Failed to fetch'))).toBeUndefined();
    expect(errorStatus('401: no')).toBeUndefined();
  });
});

describe('serverMessage', () => {
  it("returns the server's message", () => {
    expect(serverMessage(failed(401, '{"message":"Invalid username or password."}'))).toBe(
      'Invalid username or password.',
    );
  });

  it('keeps a message spanning lines', () => {
    expect(serverMessage(failed(400, '{\n"message": "Title is required"\n}'))).toBe('Title is required');
  });

  it('is undefined when the body is not JSON with a message', () => {
    expect(serverMessage(failed(502, 'Bad Gateway'))).toBeUndefined();
    expect(serverMessage(failed(500, '{"error":"x"}'))).toBeUndefined();
    expect(serverMessage(failed(500, '{"message":""}'))).toBeUndefined();
    expect(serverMessage(new Error('boom'))).toBeUndefined();
  });
});

describe('errorMessage', () => {
  it("prefers the server's message", () => {
    expect(errorMessage(failed(409, '{"message":"Username taken"}'), 'Failed.')).toBe('Username taken');
  });

  it('falls back to the given copy', () => {
    expect(errorMessage(failed(500, 'Internal Server Error'), 'Failed.')).toBe('Failed.');
  });

  it('uses the network copy when fetch itself failed', () => {
    expect(errorMessage(new TypeError('Failed to fetch'), 'Failed.', 'Offline.')).toBe('Offline.');
    expect(errorMessage(new TypeError('Failed to fetch'), 'Failed.')).toBe('Failed.');
  });
});
