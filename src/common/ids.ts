import { z } from 'zod';

/** Ids are 32-bit integer columns on PostgreSQL: anything larger cannot exist and must not reach a query. */
export const MAX_ID = 2_147_483_647;

/** An id in a request body, named by its field in the messages. */
export const idSchema = (field: string) =>
  z
    .number()
    .int(`${field} must be a whole number`)
    .positive(`${field} must be a positive number`)
    .max(MAX_ID, `${field} is too large`);

/** An id in a path, where it arrives as text; one that fails answers 404 (the error handler), like an id that names nothing. */
export const idParam = (field = 'id') => z.coerce.number().pipe(idSchema(field));

/**
 * A path id left as text for a route that parses it itself (the task routes, whose handler answers
 * 404 for text that names no task): the document describes it as the id it must be, like idParam.
 */
export const textIdParam = () => z.string().meta({ type: 'integer', exclusiveMinimum: 0, maximum: MAX_ID });
