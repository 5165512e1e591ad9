import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import {
  type AddProjectMemberBody,
  type CreateProjectBody,
  DEFAULT_PROJECT_COLOR,
  PROJECT_MESSAGES,
  PROJECTS_PATH,
  type Project,
  type ProjectColor,
  type ProjectMember,
  type ProjectRole,
  roleToManage,
  roleWithArticle,
  type TransferProjectBody,
  type UpdateProjectBody,
  type UpdateProjectMemberBody,
} from '../../common/projects';
import { ARCHIVED_TASKS_PATH, TASKS_PATH } from '../../common/tasks';
import { type Access, assertRole, projectNotFound } from '../access';
import type { Database, ProjectRow, UserRow } from '../db/schema';
import { toBool, toIso, toNumber } from '../db/values';
import type { FileStore } from '../files/store';
import { badRequest, conflict, notFound } from '../http/errors';
import type { LiveBus } from '../live/bus';
import type { ChangeListener } from '../live/projects';
import type { NotificationService } from '../notifications/service';
import type { TaskService } from '../tasks/service';
import { createProjectRepository, type MemberRow, type ProjectListRow } from './repository';

const toProject = (row: ProjectListRow): Project => ({
  id: row.id,
  name: row.name,
  // Written only through the palette's schema.
  color: row.color as ProjectColor,
  inbox: toBool(row.is_inbox),
  archived: toBool(row.archived),
  role: row.role as ProjectRole,
  ownerId: row.owner_id,
  memberCount: toNumber(row.member_count),
  taskCount: toNumber(row.task_count),
  createdAt: toIso(row.created_at),
});

const toMember = (row: MemberRow): ProjectMember => ({
  userId: row.user_id,
  username: row.username,
  firstName: row.first_name,
  role: row.role as ProjectRole,
  addedAt: toIso(row.added_at),
});

/** A read-only project refuses every write but its own restoring. */
function refuseIfArchived(project: ProjectRow): void {
  if (toBool(project.archived)) throw conflict(PROJECT_MESSAGES.archived);
}

/**
 * Deletes a project in the caller's transaction, its tasks with their files' rows, checklists,
 * assignees, comments, activity and AI runs. Answers the stored files' keys: the caller removes
 * their bytes after the commit (removeStoredFiles).
 */
async function deleteProjectRows(db: Kysely<Database>, projectId: number): Promise<string[]> {
  return createProjectRepository(db).remove(projectId);
}

/** Removes stored files after their rows are gone; one already gone, or failing, is logged. */
export async function removeStoredFiles(
  fileStore: FileStore,
  keys: string[],
  logger: FastifyBaseLogger,
): Promise<void> {
  for (const key of keys) {
    try {
      await fileStore.remove(key);
    } catch (error) {
      logger.error({ err: error, key }, 'could not remove a stored file');
    }
  }
}

/**
 * Before a user is deleted, in the same transaction: each shared project they own passes to its
 * longest-standing admin, else editor, else member; one nobody else is in is deleted. Their Inbox
 * goes with them (ON DELETE CASCADE). Answers whose project lists changed.
 */
export async function handOverProjectsOf(
  db: Kysely<Database>,
  userId: number,
): Promise<{ affected: number[]; storageKeys: string[] }> {
  const repo = createProjectRepository(db);
  const affected = new Set<number>();
  const storageKeys: string[] = [];
  for (const project of await repo.sharedOwnedBy(userId)) {
    const successor = await repo.successor(project.id, userId);
    if (successor === undefined) {
      storageKeys.push(...(await deleteProjectRows(db, project.id)));
      continue;
    }
    await repo.setOwner(project.id, successor);
    await repo.setRole(project.id, successor, 'owner');
    for (const id of await repo.memberIds(project.id)) if (id !== userId) affected.add(id);
  }
  // Tasks they made in projects that stay, and what they added to any task there, stay too.
  await repo.keepWorkOf(userId);
  return { affected: [...affected], storageKeys };
}

export interface ProjectServiceDeps {
  db: Kysely<Database>;
  fileStore: FileStore;
  access: Access;
  live: LiveBus;
  /** The person added is told (`shared`): in the app, and by e-mail unless they turned it off. */
  notifications: Pick<NotificationService, 'notify'>;
  logger: FastifyBaseLogger;
  /** project.member_added and project.member_removed, after the change (webhooks, ../live/projects). */
  changes?: ChangeListener;
  /** A member who is removed or leaves comes off the project's tasks. */
  tasks: Pick<TaskService, 'unassignLeaver'>;
}

export function createProjectService({
  db,
  fileStore,
  access,
  live,
  notifications,
  logger,
  changes,
  tasks,
}: ProjectServiceDeps) {
  const repo = createProjectRepository(db);
  /**
   * These users' open browsers refetch their projects (and, when named, more); every instance first
   * forgets the project's cached list scopes (access/scope-cache.ts), on the same channel.
   */
  const tell = async (projectId: number | undefined, userIds: Iterable<number>, more: string[] = []) => {
    if (projectId !== undefined) await live.invalidate({ projects: [projectId] });
    live.publish(
      [...new Set(userIds)],
      [PROJECTS_PATH, ...more],
      projectId === undefined ? undefined : [projectId],
    );
  };
  /** A member joined or left: `data` is `{projectId, member}`, the member as the members list shows them. */
  const memberEvent = async (
    type: 'project.member_added' | 'project.member_removed',
    projectId: number,
    member: ProjectMember,
  ) => {
    try {
      await changes?.([{ type, projectId, data: { projectId, member } }]);
    } catch (error) {
      logger.error({ err: error, type }, 'change events not queued');
    }
  };
  const one = async (userId: number, projectId: number): Promise<Project> => {
    const row = (await repo.listFor(userId, projectId))[0];
    if (!row || !access.reaches(userId, projectId)) throw projectNotFound();
    return toProject(row);
  };
  /** The member a route names, or 404. */
  const memberRole = async (projectId: number, userId: number): Promise<ProjectRole> => {
    const role = await access.projectRole(userId, projectId);
    if (!role) throw notFound('Member');
    return role;
  };

  return {
    /** The user's projects; with an API token limited to some, those (the access module's limits). */
    list: async (user: Pick<UserRow, 'id'>): Promise<Project[]> =>
      (await repo.listFor(user.id)).filter((row) => access.reaches(user.id, row.id)).map(toProject),

    async create(user: UserRow, body: CreateProjectBody): Promise<Project> {
      access.requireAllProjects(user.id);
      const project = await db
        .transaction()
        .execute((trx) =>
          createProjectRepository(trx).insert(user.id, body.name.trim(), body.color ?? DEFAULT_PROJECT_COLOR),
        );
      await tell(undefined, [user.id]);
      return one(user.id, project.id);
    },

    async update(user: UserRow, id: number, body: UpdateProjectBody): Promise<Project> {
      const { project } = await access.requireProjectRole(user, id, 'admin');
      if (toBool(project.is_inbox)) {
        if (body.name !== undefined) throw badRequest(PROJECT_MESSAGES.inboxRenamed);
        if (body.archived) throw badRequest(PROJECT_MESSAGES.inboxArchived);
      }
      if (toBool(project.archived) && body.archived !== false) refuseIfArchived(project);
      await repo.update(id, {
        ...(body.name !== undefined ? { name: body.name.trim() } : {}),
        ...(body.color !== undefined ? { color: body.color } : {}),
        ...(body.archived !== undefined ? { archived: body.archived } : {}),
      });
      await tell(id, await repo.memberIds(id));
      return one(user.id, id);
    },

    async remove(user: UserRow, id: number): Promise<void> {
      const { project } = await access.requireProjectRole(user, id, 'owner');
      if (toBool(project.is_inbox)) throw badRequest(PROJECT_MESSAGES.inboxDeleted);
      refuseIfArchived(project);
      const members = await repo.memberIds(id);
      const keys = await db.transaction().execute((trx) => deleteProjectRows(trx, id));
      await tell(id, members, [TASKS_PATH, ARCHIVED_TASKS_PATH]);
      await removeStoredFiles(fileStore, keys, logger);
    },

    async members(user: UserRow, id: number): Promise<ProjectMember[]> {
      await access.requireProjectRole(user, id, 'viewer');
      return (await repo.members(id)).map(toMember);
    },

    async addMember(user: UserRow, id: number, body: AddProjectMemberBody): Promise<ProjectMember> {
      const { project } = await access.requireProjectRole(user, id, roleToManage(body.role));
      if (toBool(project.is_inbox)) throw badRequest(PROJECT_MESSAGES.inboxShared);
      refuseIfArchived(project);
      const person = await repo.findActiveUser(body.user.trim());
      if (!person) throw badRequest(PROJECT_MESSAGES.noSuchUser);
      if (!(await repo.addMember(id, person.id, body.role))) throw conflict(PROJECT_MESSAGES.alreadyMember);
      await tell(id, await repo.memberIds(id));
      // The e-mail (projectSharedMail, issue 21's words) is this notification's, sent by a job.
      await notifications.notify([
        {
          userId: person.id,
          kind: 'shared',
          projectId: id,
          actorId: user.id,
          title: `${user.first_name} shared "${project.name}" with you`,
          body: `${user.first_name} added you to the project "${project.name}" as ${roleWithArticle(body.role)}.`,
          data: { projectName: project.name, role: body.role },
        },
      ]);
      const added = toMember((await repo.members(id)).find((member) => member.user_id === person.id)!);
      await memberEvent('project.member_added', id, added);
      return added;
    },

    async updateMember(
      user: UserRow,
      id: number,
      userId: number,
      body: UpdateProjectMemberBody,
    ): Promise<ProjectMember> {
      // Every member sees the members (so a 404 for a missing one reveals nothing); the 403 names
      // the role that manages both the member's role and the new one.
      const { role, project } = await access.requireProjectRole(user, id, 'viewer');
      const current = await memberRole(id, userId);
      assertRole(role, roleToManage(current, body.role));
      refuseIfArchived(project);
      if (current === 'owner') throw badRequest(PROJECT_MESSAGES.ownerRole);
      await repo.setRole(id, userId, body.role);
      await tell(id, await repo.memberIds(id));
      return toMember((await repo.members(id)).find((member) => member.user_id === userId)!);
    },

    /** An admin or the owner removes a member; anyone may leave (not the owner: they transfer first). */
    async removeMember(user: UserRow, id: number, userId: number): Promise<void> {
      if (userId === user.id) {
        const { role } = await access.requireProjectRole(user, id, 'viewer');
        // Leaving is allowed from an archived project too: a viewer could not restore it to leave.
        if (role === 'owner') throw badRequest(PROJECT_MESSAGES.ownerLeaves);
      } else {
        const { role, project } = await access.requireProjectRole(user, id, 'viewer');
        const current = await memberRole(id, userId);
        assertRole(role, roleToManage(current));
        refuseIfArchived(project);
      }
      // The removed member is told too: their open browsers drop the project.
      const members = await repo.memberIds(id);
      const leaving = (await repo.members(id)).find((member) => member.user_id === userId);
      await repo.removeMember(id, userId);
      if (leaving) {
        await tasks.unassignLeaver(user.id, id, { userId, name: leaving.first_name });
      }
      await tell(id, members);
      if (leaving) await memberEvent('project.member_removed', id, toMember(leaving));
    },

    async transfer(user: UserRow, id: number, body: TransferProjectBody): Promise<Project> {
      const { project } = await access.requireProjectRole(user, id, 'owner');
      if (toBool(project.is_inbox)) throw badRequest(PROJECT_MESSAGES.inboxTransferred);
      refuseIfArchived(project);
      if (body.userId === user.id) throw badRequest(PROJECT_MESSAGES.transferSelf);
      if (!(await access.projectRole(body.userId, id))) throw badRequest(PROJECT_MESSAGES.transferTarget);
      await db.transaction().execute(async (trx) => {
        const trxRepo = createProjectRepository(trx);
        await trxRepo.setOwner(id, body.userId);
        await trxRepo.setRole(id, body.userId, 'owner');
        await trxRepo.setRole(id, user.id, 'admin');
      });
      await tell(id, await repo.memberIds(id));
      return one(user.id, id);
    },
  };
}

export type ProjectService = ReturnType<typeof createProjectService>;
