import type { FastifyBaseLogger } from 'fastify';
import type { Access } from '../access';
import type { LiveBus } from './bus';

/**
 * Live events addressed to projects (issue 21): a change in a project reaches every member's open
 * streams, on every instance (one bus message names them all). Fire and forget, like the bus.
 */
export type ProjectEvents = (projectIds: number[], queryKeys: string[]) => Promise<void>;

export function createProjectEvents(access: Access, live: LiveBus, logger: FastifyBaseLogger): ProjectEvents {
  return async (projectIds, queryKeys) => {
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
  };
}
