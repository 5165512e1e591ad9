import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type Notification as AppNotification,
  NOTIFICATION_LIMITS,
  NOTIFICATION_SETTINGS_PATH,
  NOTIFICATIONS_PATH,
  NOTIFICATIONS_READ_PATH,
  type NotificationSettings,
  PUSH_SETTINGS,
  REMINDERS_PATH,
  type Reminder,
  taskRemindersPath,
} from '../../common/notifications';
import { apiRequest } from '../lib/api';

export type { NotificationKind } from '../../common/notifications';
/** Notifications, their settings and reminders (issue 22): fetchers, query keys and hooks. */
export type { AppNotification, NotificationSettings, Reminder };

/** How many notifications the panel lists (the newest). */
export const NOTIFICATION_LIMIT = NOTIFICATION_LIMITS.listDefault;

/** The kinds a person chooses both channels for; e-mail also has the daily digest. */
export const CHANNEL_KINDS = PUSH_SETTINGS;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

// Query keys are the URL the default query GETs, then its parameters. A live event naming
// '/api/notifications' refetches both lists.
export const notificationsKey = [NOTIFICATIONS_PATH] as const;
const listKey = [NOTIFICATIONS_PATH, { limit: String(NOTIFICATION_LIMIT) }] as const;
const unreadKey = [NOTIFICATIONS_PATH, { unread: '1', limit: String(NOTIFICATION_LIMIT) }] as const;
export const notificationSettingsKey = [NOTIFICATION_SETTINGS_PATH] as const;
export const remindersKey = (taskId: number) => [taskRemindersPath(taskId)] as const;

/** The newest notifications, read or not: the panel's list. */
export const useNotifications = (enabled: boolean) =>
  useQuery<AppNotification[]>({ queryKey: listKey, enabled });

/** The unread ones (at most NOTIFICATION_LIMIT): the bell's count. */
export const useUnreadNotifications = () => useQuery<AppNotification[]>({ queryKey: unreadKey });

/** Marks notifications read, at once in the lists shown, then as the server says. */
export function useMarkRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (which: { ids: number[] } | { all: true }) => {
      await apiRequest('POST', NOTIFICATIONS_READ_PATH, which);
    },
    onMutate: async (which) => {
      await queryClient.cancelQueries({ queryKey: notificationsKey });
      const now = new Date().toISOString();
      const read = (n: AppNotification) =>
        n.readAt === null && ('all' in which || which.ids.includes(n.id)) ? { ...n, readAt: now } : n;
      queryClient.setQueryData<AppNotification[]>(listKey, (list) => list?.map(read));
      queryClient.setQueryData<AppNotification[]>(unreadKey, (list) =>
        list?.filter((n) => read(n).readAt === null),
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: notificationsKey }),
  });
}

export const useNotificationSettings = () =>
  useQuery<NotificationSettings>({ queryKey: notificationSettingsKey, refetchOnMount: 'always' });

export function useSaveNotificationSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (settings: NotificationSettings) =>
      (await (await apiRequest('PUT', NOTIFICATION_SETTINGS_PATH, settings)).json()) as NotificationSettings,
    onSuccess: (saved) => queryClient.setQueryData(notificationSettingsKey, saved),
  });
}

export const useReminders = (taskId: number) => useQuery<Reminder[]>({ queryKey: remindersKey(taskId) });

export function useAddReminder(taskId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { at: string } | { relativeMinutes: number }) => {
      await apiRequest('POST', taskRemindersPath(taskId), body);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: remindersKey(taskId) }),
  });
}

export function useDeleteReminder(taskId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) => {
      await apiRequest('DELETE', `${REMINDERS_PATH}/${id}`);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: remindersKey(taskId) }),
  });
}
