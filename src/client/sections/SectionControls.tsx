import { PencilIcon, PlusIcon, Trash2Icon } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import type { Section } from '../../common/sections';
import { createSectionBodySchema } from '../../common/sections';
import { errorMessage } from '../lib/api';
import { Button } from '../ui/button';
import { ConfirmButton } from '../ui/confirm-button';
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogHeader, DialogTitle } from '../ui/dialog';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { errorToast, successToast } from '../ui/toasts';
import { useSectionActions } from './api';
import { SECTION_COPY } from './copy';

type NameDialogProps = {
  title: string;
  initial: string;
  submitLabel: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onSave: (name: string) => Promise<unknown>;
};

/** A section's name, asked for adding or renaming; the server's refusal shows in the dialog. */
function SectionNameDialog({ title, initial, submitLabel, open, onOpenChange, onSave }: NameDialogProps) {
  const [name, setName] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const change = (next: boolean) => {
    setName(initial);
    setError(null);
    onOpenChange(next);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = createSectionBodySchema.safeParse({ name });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? SECTION_COPY.saveFailed);
      return;
    }
    setPending(true);
    try {
      await onSave(parsed.data.name);
      change(false);
    } catch (failure) {
      setError(errorMessage(failure, SECTION_COPY.saveFailed));
    } finally {
      setPending(false);
    }
  };
  return (
    <Dialog open={open} onOpenChange={change}>
      <DialogContent className="sm:max-w-md">
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
        </DialogHeader>
        <form onSubmit={(event) => void submit(event)} noValidate className="grid gap-4">
          <FormAlert>{error}</FormAlert>
          <FormField label={SECTION_COPY.sectionName}>
            <Input autoComplete="off" value={name} onChange={(event) => setName(event.target.value)} />
          </FormField>
          <DialogFooter className="pt-2">
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <SubmitButton pending={pending}>{submitLabel}</SubmitButton>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** 'Add section' (editors and above), beside the List | Board switch. */
export function AddSectionButton({ projectId }: { projectId: number }) {
  const [open, setOpen] = useState(false);
  const { create } = useSectionActions(projectId);
  return (
    <>
      <Button variant="outline" size="sm" onClick={() => setOpen(true)}>
        <PlusIcon aria-hidden />
        {SECTION_COPY.addSection}
      </Button>
      <SectionNameDialog
        title={SECTION_COPY.addSection}
        initial=""
        submitLabel={SECTION_COPY.addSection}
        open={open}
        onOpenChange={setOpen}
        onSave={async (name) => {
          await create.mutateAsync(name);
          successToast(SECTION_COPY.sectionAdded);
        }}
      />
    </>
  );
}

/** A section's Rename and Delete (asks first: its tasks go to 'No section'), for editors and above. */
export function SectionActions({ section }: { section: Section }) {
  const [renaming, setRenaming] = useState(false);
  const { rename, remove } = useSectionActions(section.projectId);
  return (
    <span className="flex shrink-0 items-center">
      <Button
        variant="ghost"
        size="icon"
        className="size-8 text-muted-foreground"
        aria-label={SECTION_COPY.renameOf(section.name)}
        onClick={() => setRenaming(true)}
      >
        <PencilIcon aria-hidden />
      </Button>
      <ConfirmButton
        title={SECTION_COPY.deleteTitle(section.name)}
        description={SECTION_COPY.deleteDescription}
        confirmLabel={SECTION_COPY.delete}
        onConfirm={() =>
          remove.mutate(section.id, {
            onSuccess: () => successToast(SECTION_COPY.sectionDeleted),
            onError: (error) => errorToast(errorMessage(error, SECTION_COPY.deleteFailed)),
          })
        }
      >
        <Button
          variant="ghost"
          size="icon"
          className="size-8 text-muted-foreground hover:text-destructive"
          aria-label={SECTION_COPY.deleteOf(section.name)}
        >
          <Trash2Icon aria-hidden />
        </Button>
      </ConfirmButton>
      <SectionNameDialog
        key={section.name}
        title={SECTION_COPY.rename}
        initial={section.name}
        submitLabel={SECTION_COPY.save}
        open={renaming}
        onOpenChange={setRenaming}
        onSave={(name) => rename.mutateAsync({ id: section.id, name })}
      />
    </span>
  );
}
