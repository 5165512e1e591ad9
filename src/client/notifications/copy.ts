import type { ChannelKind, NotificationKind } from './api';

/** The words of the bell, its panel, the Notifications dialog and the card's reminders (issue 22). */
export const NOTIFICATION_COPY = {
  bell: (unread: number, capped: boolean) =>
    unread === 0 ? 'Notifications' : `Notifications, ${unread}${capped ? '+' : ''} unread`,
  panelTitle: 'Notifications',
  markAllRead: 'Mark all as read',
  markRead: (title: string) => `Mark as read: ${title}`,
  empty: 'No notifications yet',
  loadFailed: 'Could not load notifications.',
  unreadLabel: 'Unread',
  openFailed: 'That task is no longer there, or you can no longer see it.',
  settingsMenuItem: 'Notifications',
  settingsTitle: 'Notifications',
  settingsDescription: 'What Tasklane tells you about, by e-mail and as push notifications on your devices.',
  email: 'E-mail',
  push: 'Push',
  save: 'Save',
  saved: 'Notification settings saved',
  saveFailed: 'Could not save notification settings',
  settingsLoadFailed: 'Could not load notification settings.',
  deviceHeading: 'This device',
  enableDevice: 'Enable notifications on this device',
  disableDevice: 'Turn off notifications on this device',
  deviceOn: 'Push notifications are on for this device.',
  deviceOff: 'Push notifications are off for this device.',
  deviceBlocked:
    "Notifications are blocked for Tasklane in this browser. Allow them in the site's settings, then try again.",
  deviceDismissed: 'Notifications were not allowed. Try again when you are ready.',
  deviceUnsupported:
    'This browser cannot receive push notifications from Tasklane here (they need HTTPS, or localhost, and a browser with Web Push).',
  deviceFailed: 'Could not turn on notifications on this device',
  remindersHeading: 'Reminders',
  remindersEmpty: 'No reminders',
  addReminder: 'Add reminder',
  reminderAt: 'Remind me at',
  reminderBefore: 'Minutes before due',
  reminderMode: 'When',
  modeAt: 'At a date and time',
  modeBefore: 'Before the due time',
  deleteReminder: (when: string) => `Delete reminder ${when}`,
  reminderFired: 'sent',
  reminderAddFailed: 'Could not add the reminder',
  reminderDeleteFailed: 'Could not delete the reminder',
  reminderNeedsTime: 'Pick a date and time',
  minutesBefore: (minutes: number) =>
    minutes % 60 === 0 && minutes > 0
      ? `${minutes / 60} hour${minutes === 60 ? '' : 's'} before due`
      : `${minutes} min before due`,
} as const;

/** What each kind of notification is called in the settings. */
export const KIND_LABELS: Record<ChannelKind | 'digest', string> = {
  reminder: 'Reminders',
  assigned: 'Assigned to me',
  mentioned: 'Mentions',
  commented: 'Comments on my tasks',
  shared: 'Projects shared with me',
  digest: 'Daily digest at 08:00',
};

/** A short word for each kind, shown beside a notification in the panel. */
export const KIND_WORDS: Record<NotificationKind, string> = {
  reminder: 'Reminder',
  assigned: 'Assigned',
  mentioned: 'Mentioned',
  commented: 'Comment',
  shared: 'Shared',
  due_today: 'Due today',
};
