import { type FormEvent, useEffect, useState } from 'react';
import { LABEL_LIMITS, type Label } from '../../common/labels';
import type { ProjectColor } from '../../common/projects';
import { errorMessage } from '../lib/api';
import { ColorPicker } from '../projects/ColorPicker';
import { Button } from '../ui/button';
import {
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
import { useUpdateLabel } from './api';
import { LABEL_COPY } from './copy';

/** Rename or recolour one of your labels (issue 23): every task carrying it shows the change. */
export function EditLabelDialog({ label, onClose }: { label: Label | null; onClose: () => void }) {
  const [name, setName] = useState('');
  const [color, setColor] = useState<ProjectColor>('grey');
  const [error, setError] = useState<string | null>(null);
  const update = useUpdateLabel();
  useEffect(() => {
    if (!label) return;
    setName(label.name);
    setColor(label.color);
    setError(null);
  }, [label]);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!label) return;
    try {
      await update.mutateAsync({ id: label.id, body: { name, color } });
    } catch (failure) {
      setError(errorMessage(failure, LABEL_COPY.updateLabelFailed));
      return;
    }
    successToast(LABEL_COPY.labelSaved);
    onClose();
  };
  return (
    <Dialog open={label !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="sm:max-w-md">
        <DialogHeader>
          <DialogTitle>{LABEL_COPY.editLabelTitle}</DialogTitle>
          <DialogDescription>{LABEL_COPY.editLabelDescription}</DialogDescription>
        </DialogHeader>
        <form onSubmit={(event) => void onSubmit(event)} noValidate className="grid gap-4">
          <FormAlert>{error}</FormAlert>
          <FormField label={LABEL_COPY.name}>
            <Input
              name="name"
              autoComplete="off"
              maxLength={LABEL_LIMITS.nameMax}
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
          </FormField>
          <ColorPicker name="color" value={color} onChange={setColor} />
          <DialogFooter className="pt-2">
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <SubmitButton pending={update.isPending}>Save</SubmitButton>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
