import { BellIcon, CheckIcon } from 'lucide-react';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { projectHref, SCREEN_PATHS } from '../app/screens';
import { cn } from '../lib/cn';
import { useProjects } from '../projects/api';
import { Button } from '../ui/button';
import { Popover, PopoverContent, PopoverTrigger } from '../ui/popover';
import { errorToast } from '../ui/toasts';
import {
  type AppNotification,
  NOTIFICATION_LIMIT,
  useMarkRead,
  useNotifications,
  useUnreadNotifications,
} from './api';
import { KIND_WORDS, NOTIFICATION_COPY } from './copy';
import { taskHref } from './open-task';

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** '5 minutes ago', 'yesterday', 'now'. */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  for (const [unit, size] of STEPS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return relative.format(0, 'second');
}

/**
 * The header's bell (issue 22): the unread count, live (the event stream refetches it), and a panel
 * of the newest notifications. A click on one marks it read and opens its task (its project's
 * screen, the card expanded); each unread one can be marked read alone, or all at once.
 */
export function NotificationBell() {
  const [open, setOpen] = useState(false);
  const unread = useUnreadNotifications();
  const count = unread.data?.length ?? 0;
  const capped = count >= NOTIFICATION_LIMIT;
  const label = NOTIFICATION_COPY.bell(count, capped);

  return (
    <Popover open={open} onOpenChange={setOpen}>
      <PopoverTrigger asChild>
        <Button variant="ghost" size="icon" aria-label={label} className="relative">
          <BellIcon aria-hidden />
          {count > 0 && (
            <span
              aria-hidden
              className="absolute top-0.5 right-0.5 min-w-4 rounded-full bg-primary px-1 text-center text-[0.625rem] leading-4 font-semibold text-primary-foreground tabular-nums"
            >
              {capped ? `${NOTIFICATION_LIMIT}+` : count}
            </span>
          )}
        </Button>
      </PopoverTrigger>
      <PopoverContent
        align="end"
        aria-label={NOTIFICATION_COPY.panelTitle}
        className="w-[min(24rem,calc(100vw-2rem))] p-0"
      >
        <NotificationPanel unreadCount={count} onOpened={() => setOpen(false)} />
      </PopoverContent>
    </Popover>
  );
}

function NotificationPanel({ unreadCount, onOpened }: { unreadCount: number; onOpened: () => void }) {
  const list = useNotifications(true);
  const markRead = useMarkRead();
  const projects = useProjects();
  const [, navigate] = useLocation();

  const markAll = () =>
    markRead.mutate({ all: true }, { onError: () => errorToast(NOTIFICATION_COPY.loadFailed) });

  const openNotification = (notification: AppNotification) => {
    if (notification.readAt === null) markRead.mutate({ ids: [notification.id] });
    const inbox =
      notification.projectId === null ||
      (projects.data?.some((project) => project.id === notification.projectId && project.inbox) ?? false);
    if (notification.taskId !== null) {
      onOpened();
      navigate(taskHref(notification.projectId, notification.taskId, inbox));
    } else if (notification.projectId !== null) {
      // A project shared with you: its screen.
      onOpened();
      navigate(inbox ? SCREEN_PATHS.inbox : projectHref(notification.projectId));
    }
  };

  return (
    <section aria-labelledby="notifications-heading" className="grid">
      <div className="flex items-center justify-between gap-2 border-b px-4 py-2">
        <h2 id="notifications-heading" className="text-sm font-semibold">
          {NOTIFICATION_COPY.panelTitle}
        </h2>
        <Button
          variant="ghost"
          size="sm"
          disabled={unreadCount === 0}
          onClick={markAll}
          className="text-muted-foreground"
        >
          <CheckIcon aria-hidden />
          {NOTIFICATION_COPY.markAllRead}
        </Button>
      </div>
      {list.isPending ? (
        <p className="px-4 py-6 text-center text-sm text-muted-foreground">Loading…</p>
      ) : list.isError ? (
        <p role="alert" className="px-4 py-6 text-center text-sm">
          {NOTIFICATION_COPY.loadFailed}{' '}
          <Button variant="link" size="sm" className="h-auto px-0" onClick={() => void list.refetch()}>
            Try again
          </Button>
        </p>
      ) : list.data.length === 0 ? (
        <p className="px-4 py-6 text-center text-sm text-muted-foreground">{NOTIFICATION_COPY.empty}</p>
      ) : (
        <ul className="max-h-[min(28rem,70vh)] divide-y overflow-y-auto">
          {list.data.map((notification) => (
            <NotificationItem
              key={notification.id}
              notification={notification}
              onOpen={() => openNotification(notification)}
              onMarkRead={() => markRead.mutate({ ids: [notification.id] })}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function NotificationItem({
  notification,
  onOpen,
  onMarkRead,
}: {
  notification: AppNotification;
  onOpen: () => void;
  onMarkRead: () => void;
}) {
  const unread = notification.readAt === null;
  return (
    <li className={cn('relative flex items-start gap-1', unread && 'bg-accent/40')}>
      <button
        type="button"
        onClick={onOpen}
        className="grid min-w-0 flex-1 gap-0.5 px-4 py-3 text-left text-sm outline-none hover:bg-accent focus-visible:bg-accent focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-inset"
      >
        <span className="flex items-center gap-2">
          {unread && (
            <span className="size-2 shrink-0 rounded-full bg-primary">
              <span className="sr-only">{NOTIFICATION_COPY.unreadLabel}: </span>
            </span>
          )}
          <span className={cn('truncate', unread ? 'font-semibold' : 'font-medium')}>
            {notification.title}
          </span>
        </span>
        {notification.body && <span className="line-clamp-2 text-muted-foreground">{notification.body}</span>}
        <span className="text-xs text-muted-foreground">
          {KIND_WORDS[notification.kind] ?? notification.kind}
          {notification.actorName ? ` · ${notification.actorName}` : ''} ·{' '}
          <time dateTime={notification.createdAt} title={new Date(notification.createdAt).toLocaleString()}>
            {relativeTime(notification.createdAt)}
          </time>
        </span>
      </button>
      {unread && (
        <Button
          variant="ghost"
          size="icon"
          aria-label={NOTIFICATION_COPY.markRead(notification.title)}
          onClick={onMarkRead}
          className="mt-2 mr-2 size-8 shrink-0 text-muted-foreground"
        >
          <CheckIcon aria-hidden />
        </Button>
      )}
    </li>
  );
}
