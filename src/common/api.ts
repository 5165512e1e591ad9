import { z } from 'zod';

/**
 * Shapes every part of the API shares (the OpenAPI document names them once): the error answer,
 * the empty answer and raw bytes.
 */

/** Every non-2xx answer (DESIGN.md §4): a message in plain words. */
export const errorSchema = z.object({ message: z.string() }).meta({
  description: 'What went wrong, in plain words.',
  examples: [{ message: 'Please sign in to continue.' }],
});
export type ApiError = z.infer<typeof errorSchema>;

/** A 204: no body at all (`reply.code(204).send()`); the document shows it as no content. */
export const noContentSchema = z.undefined().meta({ description: 'No content' });

/** A 302 to another page (its `Location`), as a browser follows during single sign-on. */
export const redirectSchema = z.undefined().meta({ description: 'Redirect: the browser follows Location.' });

/** A file's bytes, uploaded in a multipart part or downloaded as they were stored. */
export const binarySchema = z.file();

/** The media types the document uses beyond JSON. */
export const MEDIA = {
  json: 'application/json',
  multipart: 'multipart/form-data',
  eventStream: 'text/event-stream',
  anyFile: '*/*',
  calendar: 'text/calendar',
  csv: 'text/csv',
} as const;
