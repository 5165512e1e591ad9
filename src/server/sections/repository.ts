import type { Kysely } from 'kysely';
import type { Section } from '../../common/sections';
import type { Database, SectionRow } from '../db/schema';
import { nowIso, toIso } from '../db/values';
import { versionBump } from '../tasks/version';

export const toSection = (row: SectionRow): Section => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  position: row.position,
  createdAt: toIso(row.created_at),
});

/** Sections' rows (issue 23). Who may read or write them is the access module's answer, not this one's. */
export function createSectionRepository(db: Kysely<Database>) {
  return {
    /** A project's sections, in their order. */
    list: (projectId: number): Promise<SectionRow[]> =>
      db
        .selectFrom('sections')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('position')
        .orderBy('id')
        .execute(),

    /** Whether `sectionId` is a section of `projectId`. */
    async inProject(sectionId: number, projectId: number): Promise<boolean> {
      const row = await db
        .selectFrom('sections')
        .select('id')
        .where('id', '=', sectionId)
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** A new section at the end of the project's. */
    async insert(projectId: number, name: string): Promise<SectionRow> {
      const now = nowIso();
      const last = await db
        .selectFrom('sections')
        .select((eb) => eb.fn.max('position').as('last'))
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return db
        .insertInto('sections')
        .values({
          project_id: projectId,
          name,
          position: last?.last === null || last?.last === undefined ? 0 : Number(last.last) + 1,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    count: async (projectId: number): Promise<number> =>
      Number(
        (
          await db
            .selectFrom('sections')
            .select((eb) => eb.fn.countAll<number | string>().as('count'))
            .where('project_id', '=', projectId)
            .executeTakeFirstOrThrow()
        ).count,
      ),

    rename: (id: number, name: string) =>
      db.updateTable('sections').set({ name, updated_at: nowIso() }).where('id', '=', id).execute(),

    /** Writes `order` (every section id of one project) as positions 0, 1, 2...: a project has at most 200. */
    async setOrder(order: number[]): Promise<void> {
      for (const [position, id] of order.entries()) {
        await db.updateTable('sections').set({ position }).where('id', '=', id).execute();
      }
    },

    /** Its tasks go to no section, then the section goes: call inside a transaction. */
    async remove(id: number): Promise<void> {
      await db
        .updateTable('tasks')
        .set({ section_id: null, ...versionBump })
        .where('section_id', '=', id)
        .execute();
      await db.deleteFrom('sections').where('id', '=', id).execute();
    },
  };
}
