import { useQueryClient } from '@tanstack/react-query';
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
import { formatDate } from '../ui/section';
import { ShownOnce } from '../ui/shown-once';
import { toast } from '../ui/use-toast';
import { calendarFeedKey, createCalendarFeed, turnOffCalendarFeed, useCalendarFeed } from './api';

/** 'Calendar feed': a secret address for calendar apps; shown once, since only its hash is kept. */
export function CalendarFeedDialog({ open, onOpenChange }: ControlledDialogProps) {
  const status = useCalendarFeed();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState<string | null>(null);
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
    }, 'Could not create the address.');
  const turnOff = () =>
    run(async () => {
      await turnOffCalendarFeed();
      setUrl(null);
      toast({ title: 'Calendar feed turned off.' });
    }, 'Could not turn the feed off.');
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
          <ShownOnce
            key={url}
            label="Calendar feed address"
            message="Your new address. Copy it now: it is not shown again."
            value={url}
          />
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
