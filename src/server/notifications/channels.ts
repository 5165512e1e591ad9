import type { Channel, NotificationKind } from '../../common/notifications';

/**
 * The delivery pipeline's one seam (decision 035): each channel is a sender. A notification gets a
 * delivery job per channel its recipient has on for its kind and that `reaches` them; the job calls
 * `send`, retried with backoff when it throws (at most 5 tries).
 */
export interface Delivery {
  /** The job's unique key: the same for every try, so a sender can make a repeat harmless. */
  key: string;
  /** This try, from 1. */
  attempt: number;
  notification: {
    id: number;
    kind: NotificationKind;
    taskId: number | null;
    projectId: number | null;
    actorName: string | null;
    title: string;
    body: string;
    /** Extra fields by kind (the digest's tasks; a share's project name and role). */
    data: Record<string, unknown>;
  };
  recipient: { id: number; email: string | null; firstName: string };
  /** Opens what the notification is about: `${APP_URL}/?task=<id>` (or `?project=<id>`). */
  url: string;
}

export interface ChannelSender {
  channel: Channel;
  /** Whether the person can get anything on this channel (an e-mail address; a subscribed device). */
  reaches(userId: number): Promise<boolean>;
  /** Delivers one notification; throws to be retried. */
  send(delivery: Delivery): Promise<void>;
}

/** What push notifications carry to the service worker (the push helper's `deliver` payload). */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
  /** One notification per tag on a device: a repeat replaces, never doubles. */
  tag: string;
  notificationId: number;
  taskId: number | null;
  kind: NotificationKind;
}

/**
 * Web Push as a channel, from the push service (`createPushService(...)`): integrating it is
 * `notifications.addChannel(createPushChannel(push))`. Without `hasSubscription`, every person
 * gets a push job, which `deliver` finishes at once when they have no device.
 */
export function createPushChannel(push: {
  deliver(userId: number, payload: PushPayload): Promise<unknown>;
  hasSubscription?(userId: number): Promise<boolean>;
}): ChannelSender {
  return {
    channel: 'push',
    reaches: (userId) => (push.hasSubscription ? push.hasSubscription(userId) : Promise.resolve(true)),
    async send({ notification, recipient, url }) {
      await push.deliver(recipient.id, {
        title: notification.title,
        body: notification.body,
        url,
        tag: `notification-${notification.id}`,
        notificationId: notification.id,
        taskId: notification.taskId,
        kind: notification.kind,
      });
    },
  };
}
