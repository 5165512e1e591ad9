import { useCallback, useState } from 'react';
import { ERRORS } from '../../common/spec';
import { toast } from './use-toast';

/**
 * A failed submit shows its message twice: inline in the form (put `error` in a FormAlert) and as a
 * destructive toast, the one path errors take to the screen (spec §8).
 */
export function useSubmitError() {
  const [error, setError] = useState<string>();
  const report = useCallback((message: string) => {
    setError(message);
    toast({ variant: 'destructive', title: ERRORS.genericTitle, description: message });
  }, []);
  const clear = useCallback(() => setError(undefined), []);
  return { error, report, clear };
}
