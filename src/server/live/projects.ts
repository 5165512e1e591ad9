import type { FastifyBaseLogger } from 'fastify';
import { type Task, taskSummarySchema } from '../../common/tasks';
import type { WebhookEventType } from '../../common/webhooks';
import type { Access } from '../access';
import type { LiveBus } from './bus';

/**
 * What happened, for those outside the app (webhooks, issue 24): the task (summary shape), the
 * comment or the member, as the API answers it. `taskId` and `assigneeIds` say whose assigned work
 * it is (a webhook without a project gets its owner's Inbox and the tasks assigned to them).
 */
export interface ChangeEvent {
  type: Exclude<WebhookEventType, 'ping'>;
  projectId: number;
  assigneeIds?: readonly number[];
  data: unknown;
}

/** A task's change event: the task as summary lists answer it (without its notes and AI draft). */
export const taskChange = (type: ChangeEvent['type'], task: Task): ChangeEvent => ({
  type,
  projectId: task.projectId,
  assigneeIds: task.assigneeIds,
  data: taskSummarySchema.parse(task),
});

/** Hears every change event once its change has committed (the webhooks' queue). */
export type ChangeListener = (events: ChangeEvent[]) => Promise<void>;

/**
 * Live events addressed to projects (issue 21): a change in a project reaches every member's open
 * streams, on every instance (one bus message names them all), and its change events, when given,
 * reach the listener (webhooks). Fire and forget, like the bus.
 */
export type ProjectEvents = (
  projectIds: number[],
  queryKeys: string[],
  events?: ChangeEvent[],
) => Promise<void>;

export function createProjectEvents(
  access: Access,
  live: LiveBus,
  logger: FastifyBaseLogger,
  onChange?: ChangeListener,
): ProjectEvents {
  return async (projectIds, queryKeys, events = []) => {
    try {
      const members = new Set<number>();
      for (const projectId of new Set(projectIds)) {
        for (const member of await access.projectMembers(projectId)) members.add(member.userId);
      }
      // Forgotten first, on the same channel: an instance that hears the event serves the new list.
      await live.invalidate({ projects: [...new Set(projectIds)] });
      live.publish([...members], queryKeys, [...new Set(projectIds)]);
    } catch (error) {
      logger.warn({ err: error }, 'live update not published');
    }
    if (events.length > 0 && onChange) {
      try {
        await onChange(events);
      } catch (error) {
        logger.error({ err: error, types: events.map((event) => event.type) }, 'change events not queued');
      }
    }
  };
}
