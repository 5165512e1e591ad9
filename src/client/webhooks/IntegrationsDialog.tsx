import { zodResolver } from '@hookform/resolvers/zod';
import { RotateCcwIcon, SendIcon, Trash2Icon, WebhookIcon } from 'lucide-react';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import {
  type CreatedWebhook,
  createWebhookBodySchema,
  WEBHOOK_COPY,
  WEBHOOK_EVENT_LABELS,
  WEBHOOK_EVENT_TYPES,
  type Webhook,
  type WebhookDelivery,
} from '../../common/webhooks';
import { errorMessage } from '../lib/api';
import { cn } from '../lib/cn';
import { useProjects } from '../projects/api';
import { Badge } from '../ui/badge';
import { Button } from '../ui/button';
import { ConfirmButton } from '../ui/confirm-button';
import {
  type ControlledDialogProps,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { fieldClasses, Input } from '../ui/input';
import { formatDate, QueryList, Section } from '../ui/section';
import { ShownOnce } from '../ui/shown-once';
import { Switch } from '../ui/switch';
import { useSubmitError } from '../ui/use-submit-error';
import { toast } from '../ui/use-toast';
import {
  createWebhook,
  deleteWebhook,
  deliveriesKey,
  redeliver,
  testWebhook,
  updateWebhook,
  useDeliveries,
  useWebhookAction,
  useWebhooks,
} from './api';

const formSchema = z.object({
  url: createWebhookBodySchema.shape.url,
  /** '' : the Inbox and assigned tasks; else a project's id. */
  projectId: z.string(),
  events: createWebhookBodySchema.shape.events,
});
type WebhookForm = z.input<typeof formSchema>;
const EMPTY: WebhookForm = { url: '', projectId: '', events: ['task.created', 'task.completed'] };

const STATUS_VARIANT = { succeeded: 'secondary', failed: 'destructive', pending: 'outline' } as const;

function DeliveryLog({ hook }: { hook: Webhook }) {
  const deliveries = useDeliveries(hook.id);
  const again = useWebhookAction(redeliver, deliveriesKey(hook.id));
  return (
    <QueryList query={deliveries} what="the deliveries" empty={WEBHOOK_COPY.noDeliveries}>
      {(items) =>
        items.map((delivery: WebhookDelivery) => (
          <li
            key={delivery.id}
            aria-label={`${delivery.type}, attempt ${delivery.attempt}: ${delivery.status}`}
            className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border px-3 py-2 text-sm"
          >
            <Badge variant={STATUS_VARIANT[delivery.status]}>{delivery.status}</Badge>
            <code className="text-xs">{delivery.type}</code>
            <span className="text-muted-foreground">
              Attempt {delivery.attempt}
              {delivery.responseStatus !== null && ` · HTTP ${delivery.responseStatus}`}
              {delivery.durationMs !== null && ` · ${delivery.durationMs} ms`}
              {' · '}
              {new Date(delivery.at).toLocaleString()}
            </span>
            {delivery.error && <span className="w-full break-words text-destructive">{delivery.error}</span>}
            {delivery.status !== 'pending' && (
              <Button
                type="button"
                variant="outline"
                size="sm"
                className="ml-auto"
                disabled={again.isPending}
                aria-label={`${WEBHOOK_COPY.redeliver} ${delivery.type}, attempt ${delivery.attempt}`}
                onClick={() =>
                  again.mutateAsync({ id: hook.id, deliveryId: delivery.id }).then(
                    () => toast({ title: WEBHOOK_COPY.redelivered }),
                    (error) =>
                      toast({
                        title: errorMessage(error, 'Could not send it again.'),
                        variant: 'destructive',
                      }),
                  )
                }
              >
                <RotateCcwIcon aria-hidden />
                {WEBHOOK_COPY.redeliver}
              </Button>
            )}
          </li>
        ))
      }
    </QueryList>
  );
}

function WebhookRow({ hook, projectName }: { hook: Webhook; projectName: string }) {
  const [showLog, setShowLog] = useState(false);
  const change = useWebhookAction(updateWebhook);
  const remove = useWebhookAction(deleteWebhook);
  const test = useWebhookAction(testWebhook, deliveriesKey(hook.id));
  const logId = useId();
  return (
    <li aria-label={hook.url} className="grid gap-3 rounded-lg border bg-card px-4 py-3">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="flex min-w-0 items-start gap-3">
          <WebhookIcon aria-hidden className="mt-0.5 size-5 shrink-0 text-muted-foreground" />
          <div className="grid min-w-0 gap-1">
            <span className="font-medium break-all">{hook.url}</span>
            <p className="text-sm text-muted-foreground">
              {projectName} · {hook.events.map((event) => WEBHOOK_EVENT_LABELS[event]).join(', ')} · Created{' '}
              {formatDate(hook.createdAt)}
              {hook.failuresInARow > 0 && ` · ${hook.failuresInARow} failed in a row`}
            </p>
          </div>
        </div>
        <div className="flex items-center gap-2">
          <Switch
            checked={hook.active}
            aria-label={`Active: ${hook.url}`}
            disabled={change.isPending}
            onCheckedChange={(active) =>
              change.mutateAsync({ id: hook.id, active }).catch((error) =>
                toast({
                  title: errorMessage(error, 'Could not change the webhook.'),
                  variant: 'destructive',
                }),
              )
            }
          />
          {!hook.active && <Badge variant="outline">{WEBHOOK_COPY.off}</Badge>}
        </div>
      </div>
      <div className="flex flex-wrap gap-2">
        <Button
          type="button"
          variant="outline"
          size="sm"
          disabled={test.isPending}
          onClick={() =>
            test.mutateAsync(hook.id).then(
              () => {
                setShowLog(true);
                toast({ title: WEBHOOK_COPY.testQueued });
              },
              (error) =>
                toast({ title: errorMessage(error, 'Could not send a test.'), variant: 'destructive' }),
            )
          }
        >
          <SendIcon aria-hidden />
          {WEBHOOK_COPY.sendTest}
        </Button>
        <Button
          type="button"
          variant="outline"
          size="sm"
          aria-expanded={showLog}
          aria-controls={logId}
          onClick={() => setShowLog((shown) => !shown)}
        >
          {showLog ? WEBHOOK_COPY.hideDeliveries : WEBHOOK_COPY.deliveries}
        </Button>
        <ConfirmButton
          title={WEBHOOK_COPY.deleteTitle}
          description={WEBHOOK_COPY.deleteDescription}
          confirmLabel="Delete"
          onConfirm={() =>
            remove.mutateAsync(hook.id).then(
              () => toast({ title: 'Webhook deleted.' }),
              (error) =>
                toast({
                  title: errorMessage(error, 'Could not delete the webhook.'),
                  variant: 'destructive',
                }),
            )
          }
        >
          <Button variant="outline" size="sm" disabled={remove.isPending} aria-label={`Delete ${hook.url}`}>
            <Trash2Icon aria-hidden />
            Delete
          </Button>
        </ConfirmButton>
      </div>
      {showLog && (
        <section id={logId} aria-label={`${WEBHOOK_COPY.deliveries}: ${hook.url}`} className="grid gap-2">
          <DeliveryLog hook={hook} />
        </section>
      )}
    </li>
  );
}

/** Account menu → 'Integrations' (issue 24): the person's webhooks, their events and delivery logs. */
export function IntegrationsDialog({ open, onOpenChange }: ControlledDialogProps) {
  const hooks = useWebhooks();
  const projects = useProjects();
  const create = useWebhookAction(createWebhook);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const failure = useSubmitError();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<WebhookForm>({ resolver: zodResolver(formSchema), defaultValues: EMPTY });
  // A project's webhook needs admin or more there; the Inbox is the other choice.
  const choices = (projects.data ?? []).filter(
    (project) =>
      !project.inbox && !project.archived && (project.role === 'admin' || project.role === 'owner'),
  );
  const nameOf = (hook: Webhook) =>
    hook.projectId === null
      ? WEBHOOK_COPY.inboxAndAssigned
      : ((projects.data ?? []).find((project) => project.id === hook.projectId)?.name ?? 'A project');

  const onSubmit = handleSubmit(async ({ url, projectId, events }) => {
    failure.clear();
    try {
      const hook = await create.mutateAsync({
        url,
        events,
        projectId: projectId ? Number(projectId) : null,
      });
      setCreated(hook);
      reset(EMPTY);
    } catch (error) {
      failure.report(errorMessage(error, 'Could not add the webhook.'));
    }
  });

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="gap-6 sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>{WEBHOOK_COPY.title}</DialogTitle>
          <DialogDescription>{WEBHOOK_COPY.description}</DialogDescription>
        </DialogHeader>
        <Section title={WEBHOOK_COPY.section} count={hooks.data?.length}>
          <p className="text-sm text-muted-foreground">{WEBHOOK_COPY.intro}</p>
          {created && (
            <ShownOnce
              label={`Signing secret for ${created.url}`}
              message={WEBHOOK_COPY.secretShown}
              value={created.secret}
              onDone={() => setCreated(null)}
            />
          )}
          <form onSubmit={onSubmit} noValidate className="grid gap-3">
            <FormAlert>{failure.error}</FormAlert>
            <div className="grid gap-3 sm:grid-cols-2">
              <FormField label={WEBHOOK_COPY.urlLabel} error={errors.url?.message}>
                <Input
                  type="url"
                  inputMode="url"
                  placeholder="https://example.com/hooks/tasklane"
                  autoComplete="off"
                  {...register('url')}
                />
              </FormField>
              <FormField label={WEBHOOK_COPY.projectLabel}>
                <select className={cn(fieldClasses, 'h-9')} {...register('projectId')}>
                  <option value="">{WEBHOOK_COPY.inboxAndAssigned}</option>
                  {choices.map((project) => (
                    <option key={project.id} value={String(project.id)}>
                      {project.name}
                    </option>
                  ))}
                </select>
              </FormField>
            </div>
            <fieldset
              className="grid gap-2"
              aria-describedby={errors.events ? 'webhook-events-message' : undefined}
            >
              <legend className="mb-2 text-sm font-medium">{WEBHOOK_COPY.eventsLegend}</legend>
              <div className="grid gap-2 sm:grid-cols-2">
                {WEBHOOK_EVENT_TYPES.map((event) => (
                  <label key={event} className="flex cursor-pointer items-center gap-2 text-sm">
                    <input
                      type="checkbox"
                      value={event}
                      className="size-4 accent-primary"
                      {...register('events')}
                    />
                    {WEBHOOK_EVENT_LABELS[event]}
                  </label>
                ))}
              </div>
              {errors.events && (
                <p id="webhook-events-message" className="text-sm text-destructive">
                  {errors.events.message}
                </p>
              )}
            </fieldset>
            <div>
              <SubmitButton pending={isSubmitting}>{WEBHOOK_COPY.create}</SubmitButton>
            </div>
          </form>
          <QueryList query={hooks} what="your webhooks" empty={WEBHOOK_COPY.empty}>
            {(items) =>
              items.map((hook) => <WebhookRow key={hook.id} hook={hook} projectName={nameOf(hook)} />)
            }
          </QueryList>
        </Section>
      </DialogContent>
    </Dialog>
  );
}
