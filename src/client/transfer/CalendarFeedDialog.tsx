import { useQueryClient } from '@tanstack/react-query';
import { CheckIcon, CopyIcon } from 'lucide-react';
import { useState } from 'react';
import { errorMessage } from '../lib/api';
import { Button } from '../ui/button';
import {
  type ControlledDialogProps,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';
import { Input } from '../ui/input';
import { formatDate } from '../ui/section';
import { toast } from '../ui/use-toast';
import { calendarFeedKey, createCalendarFeed, turnOffCalendarFeed, useCalendarFeed } from './api';

/** 'Calendar feed': a secret address for calendar apps; shown once, since only its hash is kept. */
export function CalendarFeedDialog({ open, onOpenChange }: ControlledDialogProps) {
  const status = useCalendarFeed();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);

  const run = async (action: () => Promise<void>, failure: string) => {
    setBusy(true);
    try {
      await action();
    } catch (error) {
      toast({ title: errorMessage(error, failure), variant: 'destructive' });
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: calendarFeedKey });
    }
  };
  const create = () =>
    run(async () => {
      setUrl((await createCalendarFeed()).url);
      setCopied(false);
    }, 'Could not create the address.');
  const turnOff = () =>
    run(async () => {
      await turnOffCalendarFeed();
      setUrl(null);
      toast({ title: 'Calendar feed turned off.' });
    }, 'Could not turn the feed off.');
  const copy = () =>
    navigator.clipboard.writeText(url ?? '').then(
      () => setCopied(true),
      () =>
        toast({ title: 'Could not copy: select the address and copy it yourself.', variant: 'destructive' }),
    );

  const enabled = status.data?.enabled ?? false;
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="gap-4 sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>Calendar feed</DialogTitle>
          <DialogDescription>
            Subscribe to this address in Google Calendar, Apple Calendar or Thunderbird to see your tasks' due
            dates. Anyone with the address can read them: keep it to yourself.
          </DialogDescription>
        </DialogHeader>
        {url ? (
          <div
            role="status"
            className="grid gap-2 rounded-lg border border-primary/40 bg-primary/5 px-4 py-3"
          >
            <p className="text-sm font-medium">Your new address. Copy it now: it is not shown again.</p>
            <div className="flex gap-2">
              <Input
                readOnly
                aria-label="Calendar feed address"
                value={url}
                className="font-mono text-xs"
                onFocus={(event) => event.currentTarget.select()}
              />
              <Button type="button" variant="outline" onClick={() => void copy()}>
                {copied ? <CheckIcon aria-hidden /> : <CopyIcon aria-hidden />}
                {copied ? 'Copied' : 'Copy'}
              </Button>
            </div>
          </div>
        ) : (
          <p className="text-sm text-muted-foreground">
            {enabled && status.data?.createdAt
              ? `Your feed is on (address made ${formatDate(status.data.createdAt)}). A new address stops the old one.`
              : 'Your feed is off.'}
          </p>
        )}
        <div className="flex flex-wrap gap-2">
          <Button type="button" disabled={busy} onClick={() => void create()}>
            Create new address
          </Button>
          {(enabled || url) && (
            <Button type="button" variant="outline" disabled={busy} onClick={() => void turnOff()}>
              Turn off
            </Button>
          )}
        </div>
      </DialogContent>
    </Dialog>
  );
}
