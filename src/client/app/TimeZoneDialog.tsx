import { useMemo, useState } from 'react';
import { ianaTimeZone, ianaTimeZones } from '../../common/time-zone-names';
import { browserTimeZone, setTimeZone } from '../auth/api';
import { errorMessage } from '../lib/api';
import { useSession } from '../lib/session';
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
import { toast } from '../ui/use-toast';

export const TIME_ZONE_COPY = {
  title: 'Time zone',
  menuItem: 'Time zone',
  search: 'Search time zones',
  list: 'Time zones',
  save: 'Save',
  saved: (zone: string) => `Time zone set to ${zone}.`,
  failed: 'Could not change the time zone.',
  deviceZone: (zone: string) => `Use this device's (${zone})`,
} as const;

/**
 * 'Time zone' (issue 22): the zone due times you set are read in, and your digest's 08:00. A search
 * field narrows the list of zones this browser knows, under their IANA names ('Asia/Kolkata', not
 * ICU's 'Asia/Calcutta': issue 28); Save sends it (PATCH /api/auth/me) as the person's choice.
 */
export function TimeZoneDialog({ open, onOpenChange }: ControlledDialogProps) {
  const session = useSession();
  const device = useMemo(() => ianaTimeZone(browserTimeZone()), []);
  const current = session?.user.timeZone ?? device;
  const zones = useMemo(ianaTimeZones, []);
  const [query, setQuery] = useState('');
  const [chosen, setChosen] = useState<string>(current);
  const [busy, setBusy] = useState(false);
  const words = query.trim().toLowerCase().replace(/\s+/g, '_');
  const shown = words ? zones.filter((zone) => zone.toLowerCase().includes(words)) : zones;
  // The chosen zone stays in the list, searched away or a link the list does not name ('US/Eastern').
  const options = shown.includes(chosen) ? shown : [chosen, ...shown];

  const save = async (zone: string) => {
    setBusy(true);
    try {
      await setTimeZone(zone);
      toast({ title: TIME_ZONE_COPY.saved(zone) });
      onOpenChange(false);
    } catch (error) {
      toast({ title: errorMessage(error, TIME_ZONE_COPY.failed), variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="gap-4 sm:max-w-md">
        <DialogHeader>
          <DialogTitle>{TIME_ZONE_COPY.title}</DialogTitle>
          <DialogDescription>
            Due times you set are read in this zone and keep it: a task due at 09:00 stays due at 09:00 there.
            {` Now: ${current}.`}
          </DialogDescription>
        </DialogHeader>
        <form
          className="grid gap-3"
          onSubmit={(event) => {
            event.preventDefault();
            void save(chosen);
          }}
        >
          <Input
            type="search"
            name="timeZoneSearch"
            aria-label={TIME_ZONE_COPY.search}
            placeholder={TIME_ZONE_COPY.search}
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
          <select
            name="timeZone"
            aria-label={TIME_ZONE_COPY.list}
            size={8}
            value={chosen}
            onChange={(event) => setChosen(event.currentTarget.value)}
            className="w-full rounded-md border border-input bg-background p-1 text-sm outline-none focus-visible:ring-2 focus-visible:ring-ring"
          >
            {options.map((zone) => (
              <option key={zone} value={zone}>
                {zone.replaceAll('_', ' ')}
              </option>
            ))}
          </select>
          <div className="flex flex-wrap justify-end gap-2">
            {device !== chosen && (
              <Button type="button" variant="outline" disabled={busy} onClick={() => setChosen(device)}>
                {TIME_ZONE_COPY.deviceZone(device)}
              </Button>
            )}
            <Button type="submit" disabled={busy}>
              {TIME_ZONE_COPY.save}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}
