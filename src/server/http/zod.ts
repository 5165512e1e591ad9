import type { FastifySchemaCompiler, FastifyTypeProvider } from 'fastify';
import { ZodRealError, type ZodType, z } from 'zod';

/**
 * Routes declare Zod schemas (from src/common) for params, query, body and response.
 * A dozen lines instead of a plugin: this is all the provider has to do.
 */
export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends ZodType ? z.output<this['schema']> : unknown;
  serializer: this['schema'] extends ZodType ? z.input<this['schema']> : unknown;
}

/** Query strings and path parameters remembered per route, once valid (decision 047). */
export const PARSED_CACHE_SIZE = 256;

/** A parsed value that a shallow copy copies whole: an object of strings, numbers, booleans. */
const isFlat = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((v) => v === null || typeof v !== 'object');

export const validatorCompiler: FastifySchemaCompiler<ZodType> = ({ schema, httpPart }) => {
  // A list GET's query string parsed anew cost a tenth of its time (the same few come again and
  // again): a valid one is kept, by its text, and each request gets a copy of its own. Parsing is
  // a pure function of the text (no schema of a query or params reads the clock or the database).
  const parsed = httpPart === 'querystring' || httpPart === 'params' ? new Map<string, unknown>() : null;
  return (data) => {
    const key = parsed ? JSON.stringify(data) : '';
    const known = parsed?.get(key);
    if (known) return { value: { ...known } };
    const result = schema.safeParse(data, { reportInput: true });
    if (result.success) {
      if (parsed && isFlat(result.data)) {
        if (parsed.size >= PARSED_CACHE_SIZE) parsed.clear();
        parsed.set(key, result.data);
        return { value: { ...result.data } };
      }
      return { value: result.data };
    }
    // A schema's message for its field ('title is required') takes precedence over z.config's,
    // but a value sent with the wrong type is not missing: the message names the type it must have.
    const issues = result.error.issues.map(({ input, ...issue }) =>
      issue.code === 'invalid_type' && isWrongType(input, issue.expected)
        ? { ...issue, message: wrongTypeMessage(fieldOf(issue.path), issue.expected) }
        : issue,
    );
    return { error: new ZodRealError(issues) };
  };
};

/** Response schemas strip what must not leave (hashes, tokens): parse, then stringify. */
export const serializerCompiler =
  ({ schema }: { schema: ZodType }) =>
  (data: unknown) =>
    JSON.stringify(schema.parse(data));

const describeType = (input: unknown) =>
  input === null ? 'null' : Array.isArray(input) ? 'array' : Number.isNaN(input) ? 'NaN' : typeof input;

/** Sent, but not of the type expected; 1.5 for a whole number is of the right type, and not whole. */
const isWrongType = (input: unknown, expected: string) =>
  input !== undefined && describeType(input) !== (expected === 'int' ? 'number' : expected);

const TYPE_NAMES: Record<string, string> = { int: 'a whole number', array: 'an array', object: 'an object' };

const wrongTypeMessage = (field: string, expected: string) =>
  `${field} must be ${TYPE_NAMES[expected] ?? `a ${expected}`}`;

const fieldOf = (path: readonly PropertyKey[] | undefined) =>
  path?.length ? path.map(String).join('.') : 'Request body';

/**
 * Messages for the issues our schemas leave generic, each naming the field.
 * Messages written on a schema (the spec's own) take precedence over these.
 */
z.config({
  customError: (issue) => {
    const field = fieldOf(issue.path);
    switch (issue.code) {
      case 'invalid_type':
        return issue.input === undefined ? `${field} is required` : wrongTypeMessage(field, issue.expected);
      case 'too_big':
        return issue.origin === 'string'
          ? `${field} must be at most ${issue.maximum} characters`
          : `${field} is too large (at most ${issue.maximum})`;
      case 'too_small':
        return issue.origin === 'string'
          ? `${field} must be at least ${issue.minimum} characters`
          : `${field} is too small (at least ${issue.minimum})`;
      case 'unrecognized_keys':
        return `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
      case 'invalid_format':
        return `${field} is not a valid ${issue.format}`;
      case 'invalid_value':
        return `${field} has an invalid value`;
      default:
        return `${field} is invalid`;
    }
  },
});
