import { zodResolver } from '@hookform/resolvers/zod';
import { CheckCircle2Icon, CircleOffIcon } from 'lucide-react';
import { useForm } from 'react-hook-form';
import { aiConnectionBodySchema } from '../../common/agents';
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
import { useSubmitError } from '../ui/use-submit-error';
import { useAiConnection, useAiStatus, useRemoveAiConnection, useSaveAiConnection } from './api';

const EMPTY = { apiKey: '', baseUrl: '', model: '' };

/**
 * Lets a person use their own API key (OpenAI or any compatible server) instead of, or without, the
 * server's. The key is write-only: the server keeps it encrypted and shows only its last characters.
 */
export function ConnectAiDialog({ open, onOpenChange }: ControlledDialogProps) {
  const status = useAiStatus();
  const connection = useAiConnection();
  const save = useSaveAiConnection();
  const remove = useRemoveAiConnection();
  const failure = useSubmitError();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(aiConnectionBodySchema), defaultValues: EMPTY });

  // A key typed into a closed dialog must not linger in the page.
  const handleOpenChange = (next: boolean) => {
    if (!next) {
      reset(EMPTY);
      failure.clear();
    }
    onOpenChange(next);
  };

  const onSubmit = handleSubmit(async (body) => {
    failure.clear();
    try {
      await save.mutateAsync(body);
    } catch (error) {
      failure.report(errorMessage(error, 'Failed to connect AI'));
      return;
    }
    reset(EMPTY);
  });

  const disconnect = async () => {
    failure.clear();
    try {
      await remove.mutateAsync();
    } catch (error) {
      failure.report(errorMessage(error, 'Failed to remove your API key'));
    }
  };

  const own = connection.data?.connected ? connection.data : null;
  const state = own
    ? `Connected with your key ending ••••${own.keyHint ?? ''}${own.model ? `, model ${own.model}` : ''}${own.baseUrl ? ` at ${own.baseUrl}` : ''}.`
    : status.data?.source === 'server'
      ? `Connected through the server${status.data.model ? `, model ${status.data.model}` : ''}. You can use your own key instead.`
      : 'Not connected. Add an API key to run AI drafts.';
  const connected = status.data?.aiConnected === true;

  return (
    <Dialog open={open} onOpenChange={handleOpenChange}>
      <DialogContent className="sm:max-w-md">
        <DialogHeader>
          <DialogTitle>Connect AI</DialogTitle>
          <DialogDescription>
            Use an OpenAI API key, or any OpenAI-compatible server with its base URL.
          </DialogDescription>
        </DialogHeader>
        <div role="status" className="flex items-start gap-2 rounded-lg border bg-muted/40 px-3 py-2 text-sm">
          {connected ? (
            <CheckCircle2Icon aria-hidden className="mt-0.5 size-4 shrink-0 text-primary" />
          ) : (
            <CircleOffIcon aria-hidden className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
          )}
          <span className="min-w-0 break-words">{status.isPending ? 'Checking…' : state}</span>
        </div>
        <form onSubmit={onSubmit} noValidate className="grid gap-4">
          <FormAlert>{failure.error}</FormAlert>
          <FormField label="API Key" error={errors.apiKey?.message}>
            <Input type="password" autoComplete="off" placeholder="sk-…" {...register('apiKey')} />
          </FormField>
          <FormField label="Base URL (optional)" error={errors.baseUrl?.message}>
            <Input
              type="url"
              autoComplete="off"
              placeholder="https://api.openai.com/v1"
              {...register('baseUrl')}
            />
          </FormField>
          <FormField label="Model (optional)" error={errors.model?.message}>
            <Input
              autoComplete="off"
              placeholder={status.data?.model ?? 'gpt-4o-mini'}
              {...register('model')}
            />
          </FormField>
          <DialogFooter className="pt-2">
            {own && (
              <Button
                variant="outline"
                className="sm:mr-auto"
                disabled={remove.isPending}
                onClick={() => void disconnect()}
              >
                Remove My Key
              </Button>
            )}
            <DialogClose asChild>
              <Button variant="outline">Close</Button>
            </DialogClose>
            <SubmitButton pending={isSubmitting}>Save</SubmitButton>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
