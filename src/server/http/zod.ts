import type { FastifySchemaCompiler, FastifyTypeProvider } from 'fastify';
import { type ZodType, z } from 'zod';

/**
 * Routes declare Zod schemas (from src/common) for params, query, body and response.
 * A dozen lines instead of a plugin: this is all the provider has to do.
 */
export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends ZodType ? z.output<this['schema']> : unknown;
  serializer: this['schema'] extends ZodType ? z.input<this['schema']> : unknown;
}

export const validatorCompiler: FastifySchemaCompiler<ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data);
    return result.success ? { value: result.data } : { error: result.error };
  };

/** Response schemas strip what must not leave (hashes, tokens): parse, then stringify. */
export const serializerCompiler =
  ({ schema }: { schema: ZodType }) =>
  (data: unknown) =>
    JSON.stringify(schema.parse(data));

const describeType = (input: unknown) =>
  input === null ? 'null' : Array.isArray(input) ? 'array' : Number.isNaN(input) ? 'NaN' : typeof input;

/**
 * Messages for the issues our schemas leave generic, each naming the field.
 * Messages written on a schema (the spec's own) take precedence over these.
 */
z.config({
  customError: (issue) => {
    const field = issue.path?.length ? issue.path.join('.') : 'Request body';
    switch (issue.code) {
      case 'invalid_type':
        return issue.input === undefined
          ? `${field} is required`
          : `${field} must be ${issue.expected === 'array' ? 'an array' : `a ${issue.expected}`}, not ${describeType(issue.input)}`;
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
