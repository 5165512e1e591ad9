import { type Kysely, sql } from 'kysely';
import { DEFAULT_PROJECT_COLOR, INBOX_NAME, type ProjectRole } from '../../common/projects';
import type { Database, ProjectRow, UserRow } from '../db/schema';
import { nowIso } from '../db/values';
import { nextVersion } from '../tasks/version';

/**
 * A new user's Inbox and their owner row: called wherever a user is inserted (auth/repository.ts),
 * in the same transaction, and by an import of an archive older than projects.
 */
export async function insertInbox(db: Kysely<Database>, userId: number, at: string): Promise<void> {
  const inbox = await db
    .insertInto('projects')
    .values({
      name: INBOX_NAME,
      color: DEFAULT_PROJECT_COLOR,
      owner_id: userId,
      is_inbox: true,
      archived: false,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('project_members')
    .values({ project_id: inbox.id, user_id: userId, role: 'owner', added_at: at })
    .execute();
}

export interface ProjectListRow extends ProjectRow {
  role: string;
  member_count: number | string;
  task_count: number | string;
}

export interface MemberRow {
  user_id: number;
  username: string;
  first_name: string;
  role: string;
  added_at: Date | string;
}

/** Queries only; the rules live in ./service and ../access. Works on the database or on a transaction. */
export function createProjectRepository(db: Kysely<Database>) {
  return {
    /** The user's projects (or the one named) with their role and counts: the Inbox first, then by name. */
    listFor: (userId: number, projectId?: number): Promise<ProjectListRow[]> =>
      db
        .selectFrom('project_members as me')
        .innerJoin('projects', 'projects.id', 'me.project_id')
        .selectAll('projects')
        .select((eb) => [
          'me.role',
          eb
            .selectFrom('project_members as m')
            .select(eb.fn.countAll().as('n'))
            .whereRef('m.project_id', '=', 'projects.id')
            .as('member_count'),
          // Its active tasks (tasks_project_position_idx).
          eb
            .selectFrom('tasks')
            .select(eb.fn.countAll().as('n'))
            .whereRef('tasks.project_id', '=', 'projects.id')
            .where('tasks.archived', '=', false)
            .as('task_count'),
        ])
        .where('me.user_id', '=', userId)
        .$if(projectId !== undefined, (qb) => qb.where('projects.id', '=', projectId!))
        .orderBy('projects.is_inbox', 'desc')
        .orderBy(sql`lower(projects.name)`)
        .orderBy('projects.id')
        .execute() as Promise<ProjectListRow[]>,

    /** A shared project, its creator its owner; one transaction with the owner's row. */
    insert: async (ownerId: number, name: string, color: string): Promise<ProjectRow> => {
      const now = nowIso();
      const project = await db
        .insertInto('projects')
        .values({
          name,
          color,
          owner_id: ownerId,
          is_inbox: false,
          archived: false,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await db
        .insertInto('project_members')
        .values({ project_id: project.id, user_id: ownerId, role: 'owner', added_at: now })
        .execute();
      return project;
    },

    update: (
      id: number,
      changes: { name?: string; color?: string; archived?: boolean },
    ): Promise<ProjectRow> =>
      db
        .updateTable('projects')
        .set({ ...changes, updated_at: nowIso() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow(),

    /** Members go with it (ON DELETE CASCADE). */
    /**
     * Deletes the project; its tasks go with it, and with them (by foreign key) their files' rows,
     * checklists, assignees, comments, activity and AI runs. Answers the stored files' keys, for
     * their bytes to be removed once the transaction has committed.
     */
    remove: async (id: number): Promise<string[]> => {
      const files = await db
        .selectFrom('files')
        .innerJoin('tasks', 'tasks.id', 'files.task_id')
        .select('files.storage_key')
        .where('tasks.project_id', '=', id)
        .execute();
      await db.deleteFrom('projects').where('id', '=', id).execute();
      return files.map((file) => file.storage_key);
    },

    /**
     * What a leaving user made in projects that stay (tasks, checklist items, files, AI runs and
     * proposals) passes to each project's owner, so deleting the user does not take it along.
     */
    keepWorkOf: async (userId: number): Promise<void> => {
      const staying = (table: 'tasks' | 'checklist_items' | 'files' | 'ai_runs' | 'ai_proposals') =>
        table === 'tasks'
          ? sql`update tasks set user_id = (select owner_id from projects where projects.id = tasks.project_id),
                version = ${nextVersion}
              where user_id = ${userId}
                and project_id in (select id from projects where owner_id <> ${userId})`
          : sql`update ${sql.table(table)} set user_id = (select projects.owner_id from tasks
                join projects on projects.id = tasks.project_id where tasks.id = ${sql.ref(`${table}.task_id`)})
              where user_id = ${userId}
                and task_id in (select tasks.id from tasks join projects on projects.id = tasks.project_id
                  where projects.owner_id <> ${userId})`;
      for (const table of ['tasks', 'checklist_items', 'files', 'ai_runs', 'ai_proposals'] as const) {
        await staying(table).execute(db);
      }
    },

    /** Oldest member first. */
    members: (projectId: number): Promise<MemberRow[]> =>
      db
        .selectFrom('project_members')
        .innerJoin('users', 'users.id', 'project_members.user_id')
        .select([
          'project_members.user_id',
          'users.username',
          'users.first_name',
          'project_members.role',
          'project_members.added_at',
        ])
        .where('project_members.project_id', '=', projectId)
        .orderBy('project_members.added_at')
        .orderBy('project_members.user_id')
        .execute(),

    memberIds: async (projectId: number): Promise<number[]> =>
      (
        await db.selectFrom('project_members').select('user_id').where('project_id', '=', projectId).execute()
      ).map((row) => row.user_id),

    /** False when the user was a member already. */
    addMember: async (projectId: number, userId: number, role: ProjectRole): Promise<boolean> => {
      const added = await db
        .insertInto('project_members')
        .values({ project_id: projectId, user_id: userId, role, added_at: nowIso() })
        .onConflict((oc) => oc.columns(['project_id', 'user_id']).doNothing())
        .returning('user_id')
        .executeTakeFirst();
      return added !== undefined;
    },

    setRole: async (projectId: number, userId: number, role: ProjectRole): Promise<void> => {
      await db
        .updateTable('project_members')
        .set({ role })
        .where('project_id', '=', projectId)
        .where('user_id', '=', userId)
        .execute();
    },

    setOwner: async (projectId: number, ownerId: number): Promise<void> => {
      await db
        .updateTable('projects')
        .set({ owner_id: ownerId, updated_at: nowIso() })
        .where('id', '=', projectId)
        .execute();
    },

    removeMember: async (projectId: number, userId: number): Promise<void> => {
      await db
        .deleteFrom('project_members')
        .where('project_id', '=', projectId)
        .where('user_id', '=', userId)
        .execute();
    },

    /** An active account by username or e-mail, either regardless of case. */
    findActiveUser: (nameOrEmail: string): Promise<UserRow | undefined> =>
      db
        .selectFrom('users')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb(sql`lower(username)`, '=', nameOrEmail.toLowerCase()),
            eb(sql`lower(email)`, '=', nameOrEmail.toLowerCase()),
          ]),
        )
        .where('is_suspended', '=', false)
        .executeTakeFirst(),

    /** The shared projects the user owns (not their Inbox). */
    sharedOwnedBy: (userId: number): Promise<ProjectRow[]> =>
      db
        .selectFrom('projects')
        .selectAll()
        .where('owner_id', '=', userId)
        .where('is_inbox', '=', false)
        .orderBy('id')
        .execute(),

    /**
     * Who takes a project over from its owner: the longest-standing admin, else editor, else any
     * other member; undefined when the owner is alone.
     */
    successor: async (projectId: number, ownerId: number): Promise<number | undefined> =>
      (
        await db
          .selectFrom('project_members')
          .select('user_id')
          .where('project_id', '=', projectId)
          .where('user_id', '<>', ownerId)
          .orderBy((eb) =>
            eb.case().when('role', '=', 'admin').then(0).when('role', '=', 'editor').then(1).else(2).end(),
          )
          .orderBy('added_at')
          .orderBy('user_id')
          .limit(1)
          .executeTakeFirst()
      )?.user_id,
  };
}

export type ProjectRepository = ReturnType<typeof createProjectRepository>;
