import type { Kysely } from 'kysely';
import { PROJECT_MESSAGES } from '../../common/projects';
import {
  type CreateSectionBody,
  projectSectionsPath,
  SECTION_LIMITS,
  SECTION_MESSAGES,
  type Section,
  type UpdateSectionBody,
} from '../../common/sections';
import { ARCHIVED_TASKS_PATH, TASKS_PATH } from '../../common/tasks';
import type { Access } from '../access';
import type { Database } from '../db/schema';
import { toBool } from '../db/values';
import { badRequest, conflict } from '../http/errors';
import type { ProjectEvents } from '../live/projects';
import { createSectionRepository, toSection } from './repository';

export interface SectionServiceDeps {
  db: Kysely<Database>;
  access: Access;
  /** The project's members' streams (../live/projects). */
  projectEvents: ProjectEvents;
}

/**
 * Section rules (issue 23). Anyone who can see a project sees its sections; editors and above
 * add, rename, move and delete them (the access module answers both, 404 for a non-member). An
 * archived project's are read-only (409). Deleting one leaves its tasks in no section.
 */
export function createSectionService({ db, access, projectEvents }: SectionServiceDeps) {
  const sections = createSectionRepository(db);
  const user = (id: number) => ({ id });
  /** Every member's sections, and their lists (a deletion regroups tasks), refetch. */
  const changed = (projectId: number, tasksToo = false) =>
    projectEvents(
      [projectId],
      [projectSectionsPath(projectId), ...(tasksToo ? [TASKS_PATH, ARCHIVED_TASKS_PATH] : [])],
    );

  return {
    async list(userId: number, projectId: number): Promise<Section[]> {
      await access.requireProjectRole(user(userId), projectId, 'viewer');
      return (await sections.list(projectId)).map(toSection);
    },

    async create(userId: number, projectId: number, body: CreateSectionBody): Promise<Section> {
      const { project } = await access.requireProjectRole(user(userId), projectId, 'editor');
      if (toBool(project.archived)) throw conflict(PROJECT_MESSAGES.archived);
      const section = await db.transaction().execute(async (trx) => {
        const repository = createSectionRepository(trx);
        if ((await repository.count(projectId)) >= SECTION_LIMITS.perProject) {
          throw badRequest(SECTION_MESSAGES.tooMany);
        }
        return repository.insert(projectId, body.name);
      });
      await changed(projectId);
      return toSection(section);
    },

    async rename(userId: number, id: number, body: UpdateSectionBody): Promise<Section> {
      const { section } = await access.requireSection(user(userId), id, 'editor');
      await sections.rename(id, body.name);
      await changed(section.project_id);
      return { ...toSection(section), name: body.name };
    },

    /** To just after `afterId` (a section of the same project), or first with null; returns the project's sections. */
    async move(userId: number, id: number, afterId: number | null): Promise<Section[]> {
      if (afterId === id) throw badRequest(SECTION_MESSAGES.moveAfterItself);
      const { section } = await access.requireSection(user(userId), id, 'editor');
      const projectId = section.project_id;
      const rows = await db.transaction().execute(async (trx) => {
        const repository = createSectionRepository(trx);
        const order = (await repository.list(projectId)).map((row) => row.id).filter((other) => other !== id);
        const at = afterId === null ? 0 : order.indexOf(afterId) + 1;
        if (at === 0 && afterId !== null) throw badRequest(SECTION_MESSAGES.afterNotInProject);
        order.splice(at, 0, id);
        await repository.setOrder(order);
        return repository.list(projectId);
      });
      await changed(projectId);
      return rows.map(toSection);
    },

    async remove(userId: number, id: number): Promise<void> {
      const { section } = await access.requireSection(user(userId), id, 'editor');
      await db.transaction().execute((trx) => createSectionRepository(trx).remove(id));
      await changed(section.project_id, true);
    },

    /**
     * For the task service: refuses (400) a `sectionId` that is not a section of `projectId`. The
     * caller has already been allowed to write to that project.
     */
    async assertInProject(sectionId: number | null | undefined, projectId: number): Promise<void> {
      if (sectionId === null || sectionId === undefined) return;
      if (!(await sections.inProject(sectionId, projectId))) throw badRequest(SECTION_MESSAGES.taskSection);
    },
  };
}

export type SectionService = ReturnType<typeof createSectionService>;

/**
 * For an import (issue 23): the project's sections by these names (the same name in any case is
 * the same section), adding the ones it lacks at the end, in the caller's transaction. The caller
 * has been allowed to write to the project. A name past the project's 200 sections gets none.
 */
export async function sectionsNamed(
  trx: Kysely<Database>,
  projectId: number,
  names: string[],
): Promise<Map<string, number>> {
  const repository = createSectionRepository(trx);
  const key = (name: string) => name.toLocaleLowerCase();
  const existing = new Map((await repository.list(projectId)).map((row) => [key(row.name), row.id]));
  const ids = new Map<string, number>();
  for (const name of names) {
    let id = existing.get(key(name));
    if (id === undefined && existing.size < SECTION_LIMITS.perProject) {
      id = (await repository.insert(projectId, name)).id;
      existing.set(key(name), id);
    }
    if (id !== undefined) ids.set(name, id);
  }
  return ids;
}
