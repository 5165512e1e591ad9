import { ERRORS } from '../../common/spec';
import { toast } from '../ui/use-toast';

/** Spec §8: every failure shows as a destructive toast, titled 'Error' unless the catalogue names another title. */
export function errorToast(description: string, title: string = ERRORS.genericTitle): void {
  toast({ variant: 'destructive', title, description });
}

/** Success toasts come from spec.ts as a title, or as [title, description]. */
export function successToast(copy: string | readonly [string, string]): void {
  if (typeof copy === 'string') toast({ title: copy });
  else toast({ title: copy[0], description: copy[1] });
}
