import { zodResolver } from '@hookform/resolvers/zod';
import type { FieldValues, Resolver } from 'react-hook-form';
import type { z } from 'zod';

/**
 * zodResolver for a schema loaded on the first validation (forms validate on submit). The login
 * screen's forms use it because Zod is about 20 KB of gzipped JS, a sixth of the signed-out screens'
 * 120 KB budget; by the time someone presses Sign In, the schema module is a quick fetch away.
 */
export function lazyZodResolver<Input extends FieldValues, Output>(
  load: () => Promise<z.ZodType<Output, Input>>,
): Resolver<Input, unknown, Output> {
  let resolver: Promise<Resolver<Input, unknown, Output>> | undefined;
  return async (values, context, options) => {
    resolver ??= load().then(
      (schema) => zodResolver(schema),
      (error: unknown) => {
        resolver = undefined; // a failed download is retried on the next submit
        throw error;
      },
    );
    return (await resolver)(values, context, options);
  };
}
