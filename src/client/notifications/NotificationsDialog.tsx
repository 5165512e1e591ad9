import { BellOffIcon, BellRingIcon, Loader2Icon } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '../ui/button';
import {
  type ControlledDialogProps,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';
import { Section } from '../ui/section';
import { Skeleton } from '../ui/skeleton';
import { Switch } from '../ui/switch';
import { errorToast, successToast } from '../ui/toasts';
import {
  CHANNEL_KINDS,
  type NotificationSettings,
  useNotificationSettings,
  useSaveNotificationSettings,
} from './api';
import { KIND_LABELS, NOTIFICATION_COPY } from './copy';
import { type DeviceState, deviceState, disablePush, enablePush, PushPermissionError } from './push';

/** 'Notifications' (issue 22): e-mail and push per kind, and push on this device. */
export function NotificationsDialog({ open, onOpenChange }: ControlledDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="gap-6 sm:max-w-lg">
        <DialogHeader>
          <DialogTitle>{NOTIFICATION_COPY.settingsTitle}</DialogTitle>
          <DialogDescription>{NOTIFICATION_COPY.settingsDescription}</DialogDescription>
        </DialogHeader>
        <DeviceSection />
        <ChannelsSection />
      </DialogContent>
    </Dialog>
  );
}

function DeviceSection() {
  const [state, setState] = useState<DeviceState | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  useEffect(() => {
    void deviceState().then(setState, () => setState('unsupported'));
  }, []);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setMessage(null);
    try {
      await action();
    } catch (error) {
      if (error instanceof PushPermissionError) {
        setMessage(
          error.permission === 'denied' ? NOTIFICATION_COPY.deviceBlocked : NOTIFICATION_COPY.deviceDismissed,
        );
      } else {
        errorToast(NOTIFICATION_COPY.deviceFailed);
      }
    } finally {
      setState(await deviceState().catch((): DeviceState => 'unsupported'));
      setBusy(false);
    }
  };

  const status =
    state === 'unsupported'
      ? NOTIFICATION_COPY.deviceUnsupported
      : state === 'blocked'
        ? NOTIFICATION_COPY.deviceBlocked
        : state === 'on'
          ? NOTIFICATION_COPY.deviceOn
          : state === 'off'
            ? NOTIFICATION_COPY.deviceOff
            : null;

  return (
    <Section title={NOTIFICATION_COPY.deviceHeading}>
      <p role="status" className="text-sm text-muted-foreground">
        {message ?? status}
      </p>
      {state === 'on' ? (
        <Button
          variant="outline"
          className="justify-self-start"
          disabled={busy}
          onClick={() => void run(disablePush)}
        >
          {busy ? <Loader2Icon aria-hidden className="animate-spin" /> : <BellOffIcon aria-hidden />}
          {NOTIFICATION_COPY.disableDevice}
        </Button>
      ) : (
        state !== 'unsupported' &&
        state !== null && (
          <Button className="justify-self-start" disabled={busy} onClick={() => void run(enablePush)}>
            {busy ? <Loader2Icon aria-hidden className="animate-spin" /> : <BellRingIcon aria-hidden />}
            {NOTIFICATION_COPY.enableDevice}
          </Button>
        )
      )}
    </Section>
  );
}

function ChannelsSection() {
  const settings = useNotificationSettings();
  const save = useSaveNotificationSettings();
  const [draft, setDraft] = useState<NotificationSettings | null>(null);
  useEffect(() => {
    if (settings.data) setDraft(settings.data);
  }, [settings.data]);

  if (settings.isError) {
    return (
      <p role="alert" className="rounded-md border border-destructive/40 bg-destructive/10 px-3 py-3 text-sm">
        {NOTIFICATION_COPY.settingsLoadFailed}{' '}
        <Button variant="link" size="sm" className="h-auto px-0" onClick={() => void settings.refetch()}>
          Try again
        </Button>
      </p>
    );
  }
  if (!draft) return <Skeleton className="h-48" />;

  const set = (channel: 'email' | 'push', kind: string, value: boolean) =>
    setDraft((current) => current && { ...current, [channel]: { ...current[channel], [kind]: value } });

  const submit = () =>
    save.mutate(draft, {
      onSuccess: () => successToast(NOTIFICATION_COPY.saved),
      onError: () => errorToast(NOTIFICATION_COPY.saveFailed),
    });

  const rows = [...CHANNEL_KINDS, 'digest' as const];
  return (
    <form
      className="grid gap-4"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <table className="w-full text-sm">
        <caption className="sr-only">{NOTIFICATION_COPY.settingsTitle}</caption>
        <thead>
          <tr className="text-left text-muted-foreground">
            <th scope="col" className="py-1 font-medium">
              <span className="sr-only">Kind</span>
            </th>
            <th scope="col" className="w-16 py-1 text-center font-medium">
              {NOTIFICATION_COPY.email}
            </th>
            <th scope="col" className="w-16 py-1 text-center font-medium">
              {NOTIFICATION_COPY.push}
            </th>
          </tr>
        </thead>
        <tbody className="divide-y">
          {rows.map((kind) => (
            <tr key={kind}>
              <th scope="row" className="py-2 text-left font-normal">
                {KIND_LABELS[kind]}
              </th>
              <td className="py-2 text-center">
                <Switch
                  name={`email.${kind}`}
                  aria-label={`${NOTIFICATION_COPY.email}: ${KIND_LABELS[kind]}`}
                  checked={draft.email[kind]}
                  onCheckedChange={(value) => set('email', kind, value)}
                />
              </td>
              <td className="py-2 text-center">
                {kind !== 'digest' && (
                  <Switch
                    name={`push.${kind}`}
                    aria-label={`${NOTIFICATION_COPY.push}: ${KIND_LABELS[kind]}`}
                    checked={draft.push[kind]}
                    onCheckedChange={(value) => set('push', kind, value)}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Button type="submit" className="justify-self-end" disabled={save.isPending}>
        {save.isPending && <Loader2Icon aria-hidden className="animate-spin" />}
        {NOTIFICATION_COPY.save}
      </Button>
    </form>
  );
}
