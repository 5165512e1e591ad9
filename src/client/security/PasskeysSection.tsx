import { zodResolver } from '@hookform/resolvers/zod';
import { FingerprintPatternIcon, PencilIcon, Trash2Icon } from 'lucide-react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { PASSKEY_MESSAGES, type Passkey, passkeyNameSchema } from '../../common/passkeys';
import { errorMessage } from '../lib/api';
import { browserHasPasskeys, pageAtHostName, passkeyPromptMessage } from '../lib/webauthn';
import { Button } from '../ui/button';
import { ConfirmButton } from '../ui/confirm-button';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { formatDate, QueryList, Section } from '../ui/section';
import { useSubmitError } from '../ui/use-submit-error';
import { toast } from '../ui/use-toast';
import { useSecurityAction } from './api';
import {
  addPasskey,
  passkeysKey,
  removePasskey,
  renamePasskey,
  useAuthProviders,
  usePasskeys,
} from './passkeys-api';

const nameFormSchema = z.object({ name: passkeyNameSchema });
type NameForm = z.infer<typeof nameFormSchema>;

/** A passkey's name, edited in place. */
function RenameForm({ passkey, onDone }: { passkey: Passkey; onDone: () => void }) {
  const rename = useSecurityAction(renamePasskey, passkeysKey);
  const failure = useSubmitError({ inlineOnly: true });
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<NameForm>({ resolver: zodResolver(nameFormSchema), defaultValues: { name: passkey.name } });
  const onSubmit = handleSubmit(async ({ name }) => {
    failure.clear();
    try {
      await rename.mutateAsync({ id: passkey.id, name });
      onDone();
    } catch (error) {
      failure.report(errorMessage(error, 'Could not rename the passkey.'));
    }
  });
  return (
    <form
      onSubmit={onSubmit}
      noValidate
      className="grid flex-1 gap-2 sm:grid-cols-[1fr_auto_auto] sm:items-end"
    >
      <FormAlert className="sm:col-span-3">{failure.error}</FormAlert>
      <FormField label={`New name for ${passkey.name}`} error={errors.name?.message}>
        <Input autoComplete="off" autoFocus {...register('name')} />
      </FormField>
      <SubmitButton pending={isSubmitting} size="sm">
        Save
      </SubmitButton>
      <Button type="button" variant="ghost" size="sm" onClick={onDone}>
        Cancel
      </Button>
    </form>
  );
}

function PasskeyRow({ passkey }: { passkey: Passkey }) {
  const remove = useSecurityAction(removePasskey, passkeysKey);
  const [renaming, setRenaming] = useState(false);
  return (
    <li
      aria-label={passkey.name}
      className="flex flex-col gap-3 rounded-lg border bg-card px-4 py-3 sm:flex-row sm:items-center sm:justify-between"
    >
      <div className="flex min-w-0 flex-1 items-start gap-3">
        <FingerprintPatternIcon aria-hidden className="mt-0.5 size-5 shrink-0 text-muted-foreground" />
        {renaming ? (
          <RenameForm passkey={passkey} onDone={() => setRenaming(false)} />
        ) : (
          <div className="grid min-w-0 gap-1">
            <span className="truncate font-medium">{passkey.name}</span>
            <p className="text-sm text-muted-foreground">
              Added {formatDate(passkey.createdAt)} ·{' '}
              {passkey.lastUsedAt ? `Last used ${formatDate(passkey.lastUsedAt)}` : 'Never used'}
            </p>
          </div>
        )}
      </div>
      {!renaming && (
        <div className="flex gap-2">
          <Button
            variant="ghost"
            size="sm"
            aria-label={`Rename ${passkey.name}`}
            onClick={() => setRenaming(true)}
          >
            <PencilIcon aria-hidden />
            Rename
          </Button>
          <ConfirmButton
            title={`Remove '${passkey.name}'?`}
            description="You can no longer sign in with this passkey. Your device may still list it: remove it there too."
            confirmLabel="Remove"
            onConfirm={() =>
              remove.mutateAsync(passkey.id).then(
                () => toast({ title: `Passkey '${passkey.name}' removed.` }),
                (error) =>
                  toast({
                    title: errorMessage(error, 'Could not remove the passkey.'),
                    variant: 'destructive',
                  }),
              )
            }
          >
            <Button
              variant="outline"
              size="sm"
              disabled={remove.isPending}
              aria-label={`Remove ${passkey.name}`}
            >
              <Trash2Icon aria-hidden />
              Remove
            </Button>
          </ConfirmButton>
        </div>
      )}
    </li>
  );
}

/** Passkeys: sign in with the device's fingerprint, face or PIN instead of a password. */
export function PasskeysSection() {
  const passkeys = usePasskeys();
  const providers = useAuthProviders();
  const add = useSecurityAction(addPasskey, passkeysKey);
  const failure = useSubmitError({ inlineOnly: true });
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<NameForm>({ resolver: zodResolver(nameFormSchema), defaultValues: { name: '' } });

  const onSubmit = handleSubmit(async ({ name }) => {
    failure.clear();
    try {
      const passkey = await add.mutateAsync(name);
      reset({ name: '' });
      toast({ title: `Passkey '${passkey.name}' added.` });
    } catch (error) {
      failure.report(passkeyPromptMessage(error) ?? errorMessage(error, 'Could not add the passkey.'));
    }
  });

  const unavailable =
    providers.data?.passkeys === false
      ? PASSKEY_MESSAGES.unavailable
      : !browserHasPasskeys()
        ? 'This browser cannot create passkeys here.'
        : !pageAtHostName()
          ? 'Passkeys need Tasklane to be opened at its host name, not at an IP address.'
          : undefined;

  return (
    <Section title="Passkeys" count={passkeys.data?.length}>
      <p className="text-sm text-muted-foreground">
        Sign in with your fingerprint, face or device PIN instead of a password. A passkey is enough on its
        own: no second step is asked.
      </p>
      {unavailable ? (
        <p className="rounded-md border border-dashed px-3 py-3 text-sm text-muted-foreground">
          {unavailable}
        </p>
      ) : (
        <form onSubmit={onSubmit} noValidate className="grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
          <FormAlert className="sm:col-span-2">{failure.error}</FormAlert>
          <FormField label="Passkey name" error={errors.name?.message}>
            <Input placeholder="e.g. Work laptop" autoComplete="off" {...register('name')} />
          </FormField>
          <SubmitButton pending={isSubmitting} disabled={isSubmitting || providers.isPending}>
            {!isSubmitting && <FingerprintPatternIcon aria-hidden />}
            Add a passkey
          </SubmitButton>
        </form>
      )}
      <QueryList query={passkeys} what="your passkeys" empty="You have no passkeys.">
        {(items) => items.map((passkey) => <PasskeyRow key={passkey.id} passkey={passkey} />)}
      </QueryList>
    </Section>
  );
}
