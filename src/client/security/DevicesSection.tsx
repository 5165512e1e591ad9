import Bowser from 'bowser';
import { LaptopIcon, LogOutIcon, SmartphoneIcon } from 'lucide-react';
import type { DeviceSession } from '../../common/tokens';
import { errorMessage } from '../lib/api';
import { Badge } from '../ui/badge';
import { Button } from '../ui/button';
import { ConfirmButton } from '../ui/confirm-button';
import { QueryList, Section } from '../ui/section';
import { toast } from '../ui/use-toast';
import {
  deviceSessionsKey,
  endDeviceSession,
  endOtherDeviceSessions,
  useDeviceSessions,
  useSecurityAction,
} from './api';

const dateTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** 'Chrome on Linux' from a User-Agent; the raw string when it tells nothing better. */
function describeDevice(userAgent: string | null): { name: string; mobile: boolean } {
  if (!userAgent) return { name: 'Unknown device', mobile: false };
  const parser = Bowser.getParser(userAgent);
  const browser = parser.getBrowserName();
  const os = parser.getOSName();
  const mobile = ['mobile', 'tablet'].includes(parser.getPlatformType());
  if (!browser && !os) return { name: userAgent, mobile };
  return { name: [browser || 'A browser', os && `on ${os}`].filter(Boolean).join(' '), mobile };
}

function DeviceRow({ session }: { session: DeviceSession }) {
  const end = useSecurityAction(endDeviceSession, deviceSessionsKey);
  const { name, mobile } = describeDevice(session.userAgent);
  const Icon = mobile ? SmartphoneIcon : LaptopIcon;
  return (
    <li
      aria-label={name}
      className="flex flex-col gap-3 rounded-lg border bg-card px-4 py-3 sm:flex-row sm:items-center sm:justify-between"
    >
      <div className="flex min-w-0 items-start gap-3">
        <Icon aria-hidden className="mt-0.5 size-5 shrink-0 text-muted-foreground" />
        <div className="grid min-w-0 gap-1">
          <div className="flex flex-wrap items-center gap-1.5">
            <span className="truncate font-medium" title={session.userAgent ?? undefined}>
              {name}
            </span>
            {session.current && <Badge variant="secondary">This device</Badge>}
          </div>
          <p className="text-sm text-muted-foreground">
            {session.ip && <>{session.ip} · </>}Signed in {dateTime(session.createdAt)} · Last active{' '}
            {dateTime(session.lastSeenAt)}
          </p>
        </div>
      </div>
      {!session.current && (
        <Button
          variant="outline"
          size="sm"
          disabled={end.isPending}
          aria-label={`Sign out ${name}, last active ${dateTime(session.lastSeenAt)}`}
          onClick={() =>
            end.mutateAsync(session.id).then(
              () => toast({ title: 'Signed out that device.' }),
              (error) =>
                toast({
                  title: errorMessage(error, 'Could not sign out that device.'),
                  variant: 'destructive',
                }),
            )
          }
        >
          <LogOutIcon aria-hidden />
          Sign out
        </Button>
      )}
    </li>
  );
}

/** 'Your devices': every signed-in session of the person, with a way to end the others. */
export function DevicesSection() {
  const sessions = useDeviceSessions();
  const endOthers = useSecurityAction(endOtherDeviceSessions, deviceSessionsKey);
  const others = sessions.data?.filter((session) => !session.current).length ?? 0;
  return (
    <Section title="Your devices" count={sessions.data?.length}>
      <p className="text-sm text-muted-foreground">
        Browsers and devices signed in to your account. Sign out any you do not recognise.
      </p>
      <QueryList query={sessions} what="your devices" empty="No other devices are signed in.">
        {(items) =>
          // This device first, then the others as the server orders them (most recently active first).
          [...items]
            .sort((a, b) => Number(b.current) - Number(a.current))
            .map((session) => <DeviceRow key={session.id} session={session} />)
        }
      </QueryList>
      {others > 0 && (
        <div>
          <ConfirmButton
            title="Sign out everywhere else?"
            description="Every other browser and device signed in to your account is signed out. This one stays signed in."
            confirmLabel="Sign out everywhere else"
            onConfirm={() =>
              endOthers.mutateAsync(undefined).then(
                () => toast({ title: 'Signed out everywhere else.' }),
                (error) =>
                  toast({
                    title: errorMessage(error, 'Could not sign out the other devices.'),
                    variant: 'destructive',
                  }),
              )
            }
          >
            <Button variant="outline" size="sm" disabled={endOthers.isPending}>
              <LogOutIcon aria-hidden />
              Sign out everywhere else
            </Button>
          </ConfirmButton>
        </div>
      )}
    </Section>
  );
}
