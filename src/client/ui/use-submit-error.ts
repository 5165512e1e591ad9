import { useCallback, useState } from 'react';
import { ERRORS } from '../../common/spec';
import { toast } from './use-toast';

/**
 * A failed submit shows its message inline in the form (put `error` in a FormAlert, which is
 * announced) and, unless `inlineOnly`, as a destructive toast too, the path spec §8 gives errors.
 * The sign-in form says it once: the person is looking at the form (issue 10).
 */
export function useSubmitError({ inlineOnly = false }: { inlineOnly?: boolean } = {}) {
  const [error, setError] = useState<string>();
  const report = useCallback(
    (message: string) => {
      setError(message);
      if (!inlineOnly) toast({ variant: 'destructive', title: ERRORS.genericTitle, description: message });
    },
    [inlineOnly],
  );
  const clear = useCallback(() => setError(undefined), []);
  return { error, report, clear };
}
