import { type Kysely, sql } from 'kysely';
import {
  INBOX_NAME,
  isProjectRole,
  PROJECT_MESSAGES,
  type ProjectRole,
  roleAtLeast,
} from '../../common/projects';
import { TOKEN_MESSAGES } from '../../common/tokens';
import { prepareOnPostgres } from '../db';
import type { Database, ProjectRow, SectionRow, TaskRow, UserRow } from '../db/schema';
import { toBool, toNumber } from '../db/values';
import { conflict, forbidden, notFound } from '../http/errors';
import type { LiveBus } from '../live/bus';
import { createScopeCache } from './scope-cache';
import { projectLimitOf } from './token-limits';

export { assertTokenMayUse, mayWrite, type TokenLimits, withTokenLimits } from './token-limits';

/**
 * Who may do what in a project (issue 21, decision 029): the one place that answers it. Features
 * import this module and nothing else under access/; none decides membership with its own query.
 *
 * How a feature uses it: before reading or changing anything in a project, call
 * `requireProjectRole(user, projectId, needed)` with the least role the action needs (the table in
 * decision 029). It answers the caller's role and the project, or throws: 404 'Project not found'
 * for a non-member (existence is not revealed, the same words as for a project that does not
 * exist), 403 with ACCESS_MESSAGES[needed] for a member whose role is too low. A list that spans
 * projects asks `memberships(userId)` once and filters by it, never once per row.
 *
 * Everything in a task (the task, its files, checklist, comments, activity, AI runs) is asked about
 * through `requireTask(user, taskId, needed)`: one query joins the task to the caller's membership
 * of its project, and it answers or throws like requireProjectRole, with 'Task not found' for a
 * non-member. A write (anything above viewer) to an archived project answers 409.
 *
 * The task lists ask `listScope`, which answers the caller's role and the project's list version
 * in one query, so a cached list costs one round trip.
 *
 * A personal API token may be limited to some projects (issue 24, decision 042): for its owner, in a
 * request made with it, every answer here treats the other projects as ones they are not a member
 * of (404, left out of `memberships`). Features inherit that by asking this module; none looks at
 * tokens itself.
 */

/** 403 answers, by the role the action needs: each names that role. */
export const ACCESS_MESSAGES: Record<Exclude<ProjectRole, 'viewer'>, string> = {
  commenter: 'Commenters can comment in this project',
  editor: 'Editors can change tasks in this project',
  admin: 'Admins can rename, archive and share this project',
  owner: 'Only the owner can manage admins, transfer or delete this project',
};

/** The words of a 404 for a project: the same whether it does not exist or the caller is not in it. */
export const projectNotFound = () => notFound('Project');

const asRole = (value: string): ProjectRole => {
  if (!isProjectRole(value)) throw new Error(`unknown project role in the database: ${value}`);
  return value;
};

/** The words of a 404 for a section: the same whether it does not exist or the caller cannot see it. */
export const sectionNotFound = () => notFound('Section');

/** The words of a 404 for a task: the same whether it does not exist or the caller cannot see it. */
export const taskNotFound = () => notFound('Task');

/** What the caller may do with a task, and the task itself. */
export interface TaskAccess {
  role: ProjectRole;
  task: TaskRow;
  /** The task's project is archived: it is read-only until restored. */
  projectArchived: boolean;
  projectIsInbox: boolean;
}

/** A list's scope: the project, the caller's role in it and its list version (0 before any task). */
export interface ListScope {
  projectId: number;
  role: ProjectRole;
  version: number;
}

export interface ProjectMemberSummary {
  userId: number;
  username: string;
  firstName: string;
  role: ProjectRole;
}

/** Throws the 403 naming the role `needed`, when `role` is below it. */
export function assertRole(role: ProjectRole, needed: ProjectRole): void {
  if (!roleAtLeast(role, needed)) throw forbidden(ACCESS_MESSAGES[needed as keyof typeof ACCESS_MESSAGES]);
}

/** Whether the caller's token (if any) lets them reach this project: see the module's comment. */
const tokenReaches = (userId: number, projectId: number): boolean =>
  projectLimitOf(userId)?.has(projectId) ?? true;

export function createAccess(db: Kysely<Database>, { bus }: { bus?: Pick<LiveBus, 'onInvalidate'> } = {}) {
  /** The lists' scopes, for two seconds at most (./scope-cache.ts); none without a bus to hear changes. */
  const scopes = bus ? createScopeCache(bus) : undefined;
  /**
   * Built once: the hottest read of all (every list request) skips Kysely's query building. The
   * project is named by id, or (the third parameter 1) is the caller's Inbox.
   */
  const scopeQuery = sql<{ project_id: number; role: string; version: number | string }>`select
      project_members.project_id, project_members.role, coalesce(project_versions.version, 0) as version
    from project_members
    join projects on projects.id = project_members.project_id
    left join project_versions on project_versions.project_id = project_members.project_id
    where project_members.user_id = ${0}
      and (projects.id = ${0} or (${0} = 1 and projects.is_inbox and projects.owner_id = project_members.user_id))`.compile(
    db,
  );
  prepareOnPostgres(scopeQuery.sql);
  /** The caller's role and the project, in one query; undefined for a non-member or no project. */
  async function membership(
    userId: number,
    projectId: number,
  ): Promise<{ role: ProjectRole; project: ProjectRow } | undefined> {
    if (!tokenReaches(userId, projectId)) return undefined;
    const row = await db
      .selectFrom('project_members')
      .innerJoin('projects', 'projects.id', 'project_members.project_id')
      .selectAll('projects')
      .select('project_members.role')
      .where('project_members.user_id', '=', userId)
      .where('project_members.project_id', '=', projectId)
      .executeTakeFirst();
    if (!row) return undefined;
    const { role, ...project } = row;
    return { role: asRole(role), project };
  }

  /** The caller's role and the project when the role is at least `needed`; else 404 or 403 (above). */
  async function requireProjectRole(
    user: Pick<UserRow, 'id'>,
    projectId: number,
    needed: ProjectRole,
  ): Promise<{ role: ProjectRole; project: ProjectRow }> {
    const found = await membership(user.id, projectId);
    if (!found) throw projectNotFound();
    assertRole(found.role, needed);
    return found;
  }

  /**
   * A task list's scope: the project named (or, with none, the caller's Inbox), the caller's role
   * and the list version, in one query. Undefined when the caller is not a member.
   */
  async function listScope(userId: number, projectId: number | undefined): Promise<ListScope | undefined> {
    const scope = await memberScope(userId, projectId);
    return scope && tokenReaches(userId, scope.projectId) ? scope : undefined;
  }

  /** listScope before the token's limits. */
  async function memberScope(userId: number, projectId: number | undefined): Promise<ListScope | undefined> {
    const cached = scopes?.get(userId, projectId);
    if (cached) return cached;
    const readAt = scopes?.generation() ?? 0;
    const query: typeof scopeQuery = {
      ...scopeQuery,
      parameters: [userId, projectId ?? 0, projectId === undefined ? 1 : 0],
    };
    const { rows } = await db.executeQuery(query);
    const row = rows[0];
    if (!row) return undefined;
    const scope = { projectId: row.project_id, role: asRole(row.role), version: toNumber(row.version) };
    scopes?.set(userId, projectId, scope, readAt);
    return scope;
  }

  return {
    requireProjectRole,
    listScope,
    /** The user's role in the project; undefined when they are not a member (or there is no such project). */
    async projectRole(userId: number, projectId: number): Promise<ProjectRole | undefined> {
      if (!tokenReaches(userId, projectId)) return undefined;
      const row = await db
        .selectFrom('project_members')
        .select('role')
        .where('user_id', '=', userId)
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return row ? asRole(row.role) : undefined;
    },

    /**
     * The task and what the caller may do with it, when their role is at least `needed`; else 404
     * (not a member, or no such task), 403 naming the role, or 409 for a write to an archived project.
     */
    async requireTask(user: Pick<UserRow, 'id'>, taskId: number, needed: ProjectRole): Promise<TaskAccess> {
      const row = await db
        .selectFrom('tasks')
        .innerJoin('project_members', (join) =>
          join
            .onRef('project_members.project_id', '=', 'tasks.project_id')
            .on('project_members.user_id', '=', user.id),
        )
        .innerJoin('projects', 'projects.id', 'tasks.project_id')
        .selectAll('tasks')
        .select([
          'project_members.role as member_role',
          'projects.archived as project_archived',
          'projects.is_inbox as project_is_inbox',
        ])
        .where('tasks.id', '=', taskId)
        .executeTakeFirst();
      if (!row || !tokenReaches(user.id, row.project_id)) throw taskNotFound();
      const { member_role, project_archived, project_is_inbox, ...task } = row;
      const role = asRole(member_role);
      assertRole(role, needed);
      const projectArchived = toBool(project_archived);
      if (projectArchived && needed !== 'viewer') throw conflict(PROJECT_MESSAGES.archived);
      return { role, task, projectArchived, projectIsInbox: toBool(project_is_inbox) };
    },

    /**
     * A section (issue 23) and the caller's role in its project, when the role is at least `needed`;
     * else 404 (not a member, or no such section), 403 naming the role, or 409 for a write to an
     * archived project.
     */
    async requireSection(
      user: Pick<UserRow, 'id'>,
      sectionId: number,
      needed: ProjectRole,
    ): Promise<{ role: ProjectRole; section: SectionRow }> {
      const row = await db
        .selectFrom('sections')
        .innerJoin('project_members', (join) =>
          join
            .onRef('project_members.project_id', '=', 'sections.project_id')
            .on('project_members.user_id', '=', user.id),
        )
        .innerJoin('projects', 'projects.id', 'sections.project_id')
        .selectAll('sections')
        .select(['project_members.role as member_role', 'projects.archived as project_archived'])
        .where('sections.id', '=', sectionId)
        .executeTakeFirst();
      if (!row || !tokenReaches(user.id, row.project_id)) throw sectionNotFound();
      const { member_role, project_archived, ...section } = row;
      const role = asRole(member_role);
      assertRole(role, needed);
      if (toBool(project_archived) && needed !== 'viewer') throw conflict(PROJECT_MESSAGES.archived);
      return { role, section };
    },

    /**
     * The project a write goes to, when the caller may change tasks there (editor or more) and it is
     * not archived: the one named, or with none the caller's Inbox.
     */
    async requireWritableProject(
      user: Pick<UserRow, 'id'>,
      projectId: number | undefined,
    ): Promise<{ id: number; name: string }> {
      if (projectId === undefined) {
        const inbox = await listScope(user.id, undefined);
        if (!inbox) throw projectNotFound();
        return { id: inbox.projectId, name: INBOX_NAME };
      }
      const { project } = await requireProjectRole(user, projectId, 'editor');
      if (toBool(project.archived)) throw conflict(PROJECT_MESSAGES.archived);
      return { id: project.id, name: project.name };
    },

    /** A project's members with their names and roles, longest-standing first: one query. */
    async projectMembers(projectId: number): Promise<ProjectMemberSummary[]> {
      const rows = await db
        .selectFrom('project_members')
        .innerJoin('users', 'users.id', 'project_members.user_id')
        .select(['project_members.user_id', 'project_members.role', 'users.username', 'users.first_name'])
        .where('project_members.project_id', '=', projectId)
        .orderBy('project_members.added_at')
        .orderBy('project_members.user_id')
        .execute();
      return rows.map((row) => ({
        userId: row.user_id,
        username: row.username,
        firstName: row.first_name,
        role: asRole(row.role),
      }));
    },

    /** Every project the user belongs to, with their role: one query, for lists. */
    async memberships(userId: number): Promise<Map<number, ProjectRole>> {
      const rows = await db
        .selectFrom('project_members')
        .select(['project_id', 'role'])
        .where('user_id', '=', userId)
        .execute();
      return new Map(
        rows
          .filter((row) => tokenReaches(userId, row.project_id))
          .map((row) => [row.project_id, asRole(row.role)]),
      );
    },

    /** Whether the caller may reach this project at all (a token's limits); a list of projects asks it. */
    reaches(userId: number, projectId: number): boolean {
      return tokenReaches(userId, projectId);
    },

    /** The projects the caller's token is limited to; null when it is not (a session, or a token for all). */
    projectLimit(userId: number): ReadonlySet<number> | null {
      return projectLimitOf(userId);
    },

    /**
     * `reaches` for later: the caller's limits as they are now, for what runs outside the request
     * (a live stream's events, which the bus delivers).
     */
    reachesLater(userId: number): (projectId: number) => boolean {
      const limit = projectLimitOf(userId);
      return (projectId) => limit?.has(projectId) ?? true;
    },

    /**
     * Throws 403 when the caller's token is limited to some projects: for what would reach beyond
     * them (creating a project, which the token could not see).
     */
    requireAllProjects(userId: number): void {
      if (projectLimitOf(userId)) throw forbidden(TOKEN_MESSAGES.projectLimited);
    },
  };
}

export type Access = ReturnType<typeof createAccess>;
