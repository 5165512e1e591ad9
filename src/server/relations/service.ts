import type { Kysely } from 'kysely';
import { taskActivityPath } from '../../common/activity';
import { PROJECTS_PATH } from '../../common/projects';
import {
  type CreateRelationBody,
  RELATION_MESSAGES,
  type Relation,
  relationsPath,
} from '../../common/relations';
import { ARCHIVED_TASKS_PATH, TASKS_PATH, taskPath } from '../../common/tasks';
import type { Access } from '../access';
import { recordActivity } from '../activity/repository';
import type { Database } from '../db/schema';
import { isUniqueViolation } from '../db/values';
import { badRequest, conflict, HttpError, notFound } from '../http/errors';
import type { ProjectEvents } from '../live/projects';
import { createRelationRepository, relationTransaction, toStored } from './repository';

export interface RelationServiceDeps {
  db: Kysely<Database>;
  access: Access;
  /** The projects' members' streams (../live/projects). */
  projectEvents: ProjectEvents;
}

const relationNotFound = () => notFound('Relation');

/** Who is asking: the session's or the token's user. */
type Caller = number;

/**
 * Dependencies between tasks (issue 29). A relation is one row seen from both sides (./repository's
 * toStored). Who may see or change a task is the access module's answer: adding or removing a
 * relation needs editor on the task in the path and viewer on the other; someone who cannot see the
 * other task does not see the relation at all (it is left out of the list, and is 404 to delete).
 */
export function createRelationService({ db, access, projectEvents }: RelationServiceDeps) {
  const relations = createRelationRepository(db);
  const user = (id: Caller) => ({ id });

  /**
   * Both tasks changed (a blocked task's `blockedBy`): their lists and the tasks refetch, in each
   * project's members' streams, with each side's relations and activity to those who see that side.
   */
  const changed = async (sides: Array<{ taskId: number; projectId: number }>) => {
    const byProject = new Map<number, string[]>();
    for (const { taskId, projectId } of sides) {
      const keys = byProject.get(projectId) ?? [TASKS_PATH, ARCHIVED_TASKS_PATH, PROJECTS_PATH];
      keys.push(taskPath(taskId), relationsPath(taskId), taskActivityPath(taskId));
      byProject.set(projectId, keys);
    }
    await Promise.all([...byProject].map(([projectId, keys]) => projectEvents([projectId], keys)));
  };

  return {
    /** The task's relations the caller can see both sides of, oldest first. */
    async list(userId: Caller, taskId: number): Promise<Relation[]> {
      const { task } = await access.requireTask(user(userId), taskId, 'viewer');
      const rows = await relations.list(task.id);
      if (rows.length === 0) return [];
      const memberships = await access.memberships(userId);
      return rows.filter((row) => memberships.has(row.otherProjectId)).map((row) => row.relation);
    },

    /** This task `kind` task `body.taskId`: 400, 404 or 409 as the contract says, else the relation. */
    async create(userId: Caller, taskId: number, body: CreateRelationBody): Promise<Relation> {
      const { task } = await access.requireTask(user(userId), taskId, 'editor');
      if (body.taskId === task.id) throw badRequest(RELATION_MESSAGES.self);
      const { task: other } = await access.requireTask(user(userId), body.taskId, 'viewer');
      const stored = toStored(task.id, body.kind, other.id);
      let id: number;
      try {
        id = await relationTransaction(db, async (repository, trx) => {
          if (await repository.exists(stored)) throw conflict(RELATION_MESSAGES.duplicate);
          if (
            stored.kind === 'blocks' &&
            (await repository.blocksChainReaches(stored.otherTaskId, stored.taskId))
          ) {
            throw badRequest(RELATION_MESSAGES.loop);
          }
          const inserted = await repository.insert(stored, userId);
          await repository.touch([task.id, other.id]);
          await recordActivity(trx, [
            { taskId: task.id, actorId: userId, kind: 'relation_added' },
            { taskId: other.id, actorId: userId, kind: 'relation_added' },
          ]);
          return inserted;
        });
      } catch (error) {
        // Two people adding the same relation at once: the second finds the pair's key taken.
        if (isUniqueViolation(error)) throw conflict(RELATION_MESSAGES.duplicate);
        throw error;
      }
      await changed([
        { taskId: task.id, projectId: task.project_id },
        { taskId: other.id, projectId: other.project_id },
      ]);
      const created = await relations.find(task.id, id);
      if (!created) throw relationNotFound();
      return created.relation;
    },

    /** Removes the relation, seen from this task; 404 when the caller cannot see its other side. */
    async remove(userId: Caller, taskId: number, relationId: number): Promise<void> {
      const { task } = await access.requireTask(user(userId), taskId, 'editor');
      const found = await relations.find(task.id, relationId);
      if (!found) throw relationNotFound();
      const otherId = found.relation.otherTaskId;
      try {
        await access.requireTask(user(userId), otherId, 'viewer');
      } catch (error) {
        if (error instanceof HttpError && error.statusCode === 404) throw relationNotFound();
        throw error;
      }
      await relationTransaction(db, async (repository, trx) => {
        await repository.delete(found.relation.id);
        await repository.touch([task.id, otherId]);
        await recordActivity(trx, [
          { taskId: task.id, actorId: userId, kind: 'relation_removed' },
          { taskId: otherId, actorId: userId, kind: 'relation_removed' },
        ]);
      });
      await changed([
        { taskId: task.id, projectId: task.project_id },
        { taskId: otherId, projectId: found.otherProjectId },
      ]);
    },
  };
}

export type RelationService = ReturnType<typeof createRelationService>;
