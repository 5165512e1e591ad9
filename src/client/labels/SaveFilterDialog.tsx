import { type FormEvent, useState } from 'react';
import { LABEL_LIMITS } from '../../common/labels';
import { errorMessage } from '../lib/api';
import { Button } from '../ui/button';
import {
  type ControlledDialogProps,
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { successToast } from '../ui/toasts';
import { useCreateSavedFilter } from './api';
import { LABEL_COPY } from './copy';

/** 'Save filter' (issue 23): a name for the list's filter as the address holds it. */
export function SaveFilterDialog({ open, onOpenChange, query }: ControlledDialogProps & { query: string }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const create = useCreateSavedFilter();
  const close = (next: boolean) => {
    if (!next) {
      setName('');
      setError(null);
    }
    onOpenChange(next);
  };
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) {
      setError('Name is required');
      return;
    }
    try {
      await create.mutateAsync({ name, query });
    } catch (failure) {
      setError(errorMessage(failure, LABEL_COPY.saveFilterFailed));
      return;
    }
    successToast(LABEL_COPY.filterSaved);
    close(false);
  };
  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent className="sm:max-w-md">
        <DialogHeader>
          <DialogTitle>{LABEL_COPY.saveFilter}</DialogTitle>
          <DialogDescription>{LABEL_COPY.saveFilterDescription}</DialogDescription>
        </DialogHeader>
        <form onSubmit={(event) => void onSubmit(event)} noValidate className="grid gap-4">
          <FormAlert>{error}</FormAlert>
          <FormField label={LABEL_COPY.name}>
            <Input
              name="name"
              autoComplete="off"
              maxLength={LABEL_LIMITS.filterNameMax}
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
          </FormField>
          <DialogFooter className="pt-2">
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <SubmitButton pending={create.isPending}>{LABEL_COPY.saveFilter}</SubmitButton>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
