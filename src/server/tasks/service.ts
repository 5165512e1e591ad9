import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { type ActivityKind, taskActivityPath } from '../../common/activity';
import { checklistPath } from '../../common/checklist';
import { addDays, dateInZone, dueDayIn } from '../../common/due';
import { LABEL_MESSAGES } from '../../common/labels';
import { taskRemindersPath } from '../../common/notifications';
import { PROJECTS_PATH, type ProjectRole, roleAtLeast } from '../../common/projects';
import { completedNextText, nextDueDate } from '../../common/recurrence';
import {
  ALL_PROJECTS,
  ARCHIVED_TASKS_PATH,
  type CreateTaskInput,
  isFiltered,
  TASK_LIMITS,
  TASK_MESSAGES,
  TASKS_PATH,
  type Task,
  type TaskListRouteQuery,
  taskPath,
  type UpdateTaskInput,
} from '../../common/tasks';
import type { Access, ProjectMemberSummary } from '../access';
import { projectNotFound, taskNotFound } from '../access';
import { type ActivityRecord, recordActivity } from '../activity/repository';
import { type ChangeSource, changeSource, withChangeSource } from '../activity/source';
import { userTimeZone } from '../auth/users';
import type { DialectName } from '../db';
import { createGroupCommit } from '../db/group-commit';
import type { Database, TaskRow, TaskUpdate } from '../db/schema';
import { nowIso, toBool } from '../db/values';
import type { FileStore } from '../files/store';
import { COMPRESS_THRESHOLD } from '../http/compression';
import { badRequest, HttpError } from '../http/errors';
import { type ChangeEvent, type ProjectEvents, taskChange } from '../live/projects';
import type { NotificationService } from '../notifications/service';
import type { ReminderService } from '../reminders/service';
import type { SectionService } from '../sections/service';
import { type Clock, systemClock } from '../time/clock';
import { insertTasksOnTop } from './bulk';
import { doneAfter } from './done';
import { createListCache, type ListAnswer, type ListEncoding, listBody } from './list-cache';
import {
  createTaskRepository,
  type DueDays,
  inTransaction,
  type ListSpan,
  type NewTaskOnTop,
  type TaskExtras,
  type TaskRepository,
  toTask,
} from './repository';
import { taskSearchText } from './search';
import { TaskChangedError } from './version';

/** Memory for cached task lists: about 40 lists of 1,000 tasks (fewer when also kept compressed). */
const LIST_CACHE_BYTES = 16 * 1024 * 1024;
/** Lists larger than this (about 2,500 tasks) are kept compressed only (decision 023, and the cold list's). */
const LIST_CACHE_ENTRY_BYTES = 1024 * 1024;

export const TASK_ERRORS = {
  archivedReorder: 'Archived tasks cannot be reordered.',
  duplicateInReorder: (id: number) => `taskIds lists task ${id} more than once`,
  reorderAcrossProjects: 'taskIds must all be tasks of one project',
  notAMember: (user: string) => `assigneeIds: ${user} is not a member of this project`,
  /** Issue 29: a sub-task cannot go under a task in the archive. */
  parentArchived: (parentId: number) => `parentId ${parentId} names an archived task: restore it first`,
  /** An archived task goes back to the list (restored) before it can be put under another. */
  archivedUnderParent: 'parentId cannot be set on an archived task: restore it first',
} as const;

export interface TaskServiceDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The project's members' streams (../live/projects). */
  projectEvents: ProjectEvents;
  access: Access;
  fileStore: FileStore;
  logger: FastifyBaseLogger;
  /** New assignees are told (`assigned`), after the change commits. */
  notifications?: Pick<NotificationService, 'notify'>;
  /** A task's reminders follow its due date-time (and a recurring task's next occurrence). */
  reminders?: Pick<ReminderService, 'taskChanged'>;
  /** What time it is (issue 22): a recurring task's next date counts from the clock's today. */
  clock?: Clock;
  /** A task's sectionId must name a section of its project (issue 23). */
  sections: Pick<SectionService, 'assertInProject'>;
  /** A person's zone until they or their browser set one (issue 28). */
  defaultTimeZone: string;
}

/** How a completion is asked for: `final` ends a recurring task's series (POST .../complete). */
export interface CompleteOptions {
  final?: boolean;
}

/**
 * A write that names the zone of its due time (issue 30: a CalDAV client's DUE;TZID=…), instead of
 * the caller's zone as the app's writes have it. Not part of the public API.
 */
export interface DueZoneOptions {
  dueTimeZone?: string;
}

/**
 * A PATCH's If-Match (issue 31): the change is made only while the task is at this version; else
 * 412 with the task as it is now, and nothing changed.
 */
export interface VersionOptions {
  ifVersion?: number;
}

/** Who is asking: the session's or the token's user. */
type Caller = number;

/**
 * Task rules. Who may see or change a task is the access module's answer (a project's role table,
 * decision 029); a task the caller cannot see does not exist (404).
 */
export function createTaskService({
  db,
  dialect,
  projectEvents,
  access,
  fileStore,
  logger,
  notifications,
  reminders,
  clock = systemClock,
  sections,
  defaultTimeZone,
}: TaskServiceDeps) {
  const tasks = createTaskRepository(db, dialect);
  const user = (id: Caller) => ({ id });
  /** Every open stream of every member of the projects refetches its lists (and the one task, when given). */
  const changed = (projectIds: number[], ...more: string[]) => publish(projectIds, more);
  /** The same, with the change's events for webhooks (../live/projects). */
  const publish = (projectIds: number[], more: string[], events?: ChangeEvent[]) =>
    projectEvents(projectIds, [TASKS_PATH, ARCHIVED_TASKS_PATH, PROJECTS_PATH, ...more], events);

  const assertOwnAgent = async (userId: number, agentId: number | null | undefined) => {
    if (agentId != null && !(await tasks.agentExists(userId, agentId))) {
      throw badRequest(TASK_MESSAGES.agentNotFound);
    }
  };

  /**
   * The caller's time zone: the one a due time they set is read in, and their days (Today, the due
   * filters). The server's default (DEFAULT_TIME_ZONE) until they set one.
   */
  const zoneOf = async (userId: number): Promise<string> => {
    const row = await db.selectFrom('users').select('time_zone').where('id', '=', userId).executeTakeFirst();
    return userTimeZone(row?.time_zone ?? null, defaultTimeZone);
  };

  /** dueTime and recurrence need a date: 400 naming the field. */
  const assertDated = (dueDate: string | null, dueTime: string | null, recurrence: string | null) => {
    if (dueDate) return;
    if (dueTime) throw badRequest(TASK_MESSAGES.dueTimeNeedsDate);
    if (recurrence) throw badRequest(TASK_MESSAGES.recurrenceNeedsDate);
  };

  /** The extras of these tasks (assignees, labels), read for them alone. */
  const extrasOf = async (ids: number[], repository: TaskRepository = tasks): Promise<TaskExtras> => {
    const [assignees, labels, structure] = await Promise.all([
      repository.assigneesOf(ids),
      repository.labelsOf(ids),
      repository.structureOf(ids),
    ]);
    return { assignees, labels, structure };
  };
  /** A task as answered: its assignees, labels, sub-task counts and open blockers read for it. */
  const withAssignees = async (row: TaskRow, repository: TaskRepository = tasks): Promise<Task> => {
    const extras = await extrasOf([row.id], repository);
    return asTask(row, extras);
  };
  const asTask = (row: TaskRow, { assignees, labels, structure }: TaskExtras): Task =>
    toTask(row, assignees.get(row.id), labels.get(row.id), structure?.get(row.id));

  /**
   * The task a sub-task goes under (issue 29), when the caller's role in its project is at least
   * `needed`: one they cannot see, or that does not exist, is 404 naming parentId.
   */
  const parentFor = async (userId: Caller, parentId: number, needed: ProjectRole): Promise<TaskRow> => {
    try {
      return (await access.requireTask(user(userId), parentId, needed)).task;
    } catch (error) {
      if (error instanceof HttpError && error.statusCode === 404) {
        throw new HttpError(404, TASK_MESSAGES.parentNotFound);
      }
      throw error;
    }
  };

  /**
   * Whether `taskId` (with `height` levels below it) may go under `parent`: 400 naming parentId for
   * a loop (the task itself or one of its descendants), an archived parent, or a tree deeper than
   * TASK_LIMITS.subtaskDepth below its top-level task. Answers the parent's ancestry.
   */
  const assertParent = async (parent: TaskRow, taskId: number | undefined) => {
    const chain = await tasks.ancestry(parent.id);
    if (taskId !== undefined && chain.some((ancestor) => ancestor.id === taskId)) {
      throw badRequest(TASK_MESSAGES.parentLoop);
    }
    if (toBool(parent.archived)) throw badRequest(TASK_ERRORS.parentArchived(parent.id));
    // The parent's level (0: top-level), one more for the task, and its own subtree's height.
    const height = taskId === undefined ? 0 : await tasks.subtreeHeight(taskId);
    if (chain.length - 1 + 1 + height > TASK_LIMITS.subtaskDepth)
      throw badRequest(TASK_MESSAGES.parentTooDeep);
    return chain;
  };

  /** The caller's own labels among `labelIds`, once each; 400 naming the first that is not theirs. */
  const checkOwnLabels = async (userId: number, labelIds: number[] | undefined) => {
    if (labelIds === undefined) return undefined;
    const unique = [...new Set(labelIds)];
    const own = await tasks.ownLabelIds(userId, unique);
    const foreign = unique.find((id) => !own.has(id));
    if (foreign !== undefined) throw badRequest(LABEL_MESSAGES.notYours(foreign));
    return unique;
  };

  const lists = createListCache(LIST_CACHE_BYTES, LIST_CACHE_ENTRY_BYTES);
  /** The rows as the list's JSON: full tasks, or (`view=summary`) without notes and AI draft. */
  const serialise = (rows: TaskRow[], extras: TaskExtras, view: TaskListRouteQuery['view']) =>
    Buffer.from(
      JSON.stringify(
        view === 'summary'
          ? rows.map((row) => {
              const { notes: _notes, aiDraft: _draft, ...summary } = asTask(row, extras);
              return summary;
            })
          : rows.map((row) => asTask(row, extras)),
      ),
    );

  /** The projects a list spans, when it spans several (projectId=all, assignee=...); else undefined. */
  const spanOf = async (userId: number, query: TaskListRouteQuery): Promise<ListSpan | undefined> => {
    if (query.projectId !== ALL_PROJECTS && query.assignee === undefined) return undefined;
    const memberships = await access.memberships(userId);
    const projectIds =
      typeof query.projectId === 'number'
        ? memberships.has(query.projectId)
          ? [query.projectId]
          : undefined
        : [...memberships.keys()];
    if (!projectIds) throw projectNotFound();
    if (query.assignee === undefined) return { projectIds };
    // Everything of the caller's: their Inbox (they are its one member) and what is assigned to them;
    // with me_or_unassigned, what nobody has taken in the projects they may change (issue 28).
    const inboxId =
      query.projectId === ALL_PROJECTS ? (await access.listScope(userId, undefined))?.projectId : undefined;
    const unassignedIn =
      query.assignee === 'me_or_unassigned'
        ? projectIds.filter((id) => roleAtLeast(memberships.get(id) ?? 'viewer', 'editor'))
        : undefined;
    return { projectIds, assigneeId: userId, inboxId, unassignedIn };
  };

  /**
   * The days the list keeps, in the caller's zone (DueDays): the due filter's (issue 28: 'today' is
   * the caller's today, as Today's is; 'week' today and the six days after) within the due window's
   * (dueFrom/dueTo, issue 23). Undefined when the list is not narrowed by day.
   */
  const dueDaysOf = async (
    userId: number,
    query: TaskListRouteQuery,
  ): Promise<(DueDays & { zone: string }) | undefined> => {
    const byFilter = query.due !== undefined && query.due !== 'none';
    if (!byFilter && query.dueFrom === undefined && query.dueTo === undefined) return undefined;
    const zone = await zoneOf(userId);
    let { dueFrom: from, dueTo: to } = query;
    if (byFilter) {
      const today = dateInZone(clock.now(), zone);
      const last =
        query.due === 'overdue' ? addDays(today, -1) : addDays(today, query.due === 'week' ? 6 : 0);
      if (query.due !== 'overdue' && (from === undefined || today > from)) from = today;
      if (to === undefined || last < to) to = last;
    }
    return { zone, from, to };
  };

  /** The rows read for `days`, narrowed to the tasks whose day in the caller's zone is in them. */
  const onDueDays = (days: DueDays & { zone: string }, rows: TaskRow[]) =>
    rows.filter((row) => {
      const day = dueDayIn(
        { dueDate: row.due_date, dueTime: row.due_time, dueTimeZone: row.due_time_zone },
        days.zone,
      );
      return (
        day !== null &&
        (days.from === undefined || day >= days.from) &&
        (days.to === undefined || day <= days.to)
      );
    });

  /** The filtered rows as a list body. */
  const filteredList = async (
    userId: number,
    span: ListSpan,
    archived: boolean,
    query: TaskListRouteQuery,
  ) => {
    const days = await dueDaysOf(userId, query);
    const read = await tasks.listFiltered(span, archived, query, days);
    const rows = days ? onDueDays(days, read) : read;
    const ids = rows.map((row) => row.id);
    // Sub-task counts and blockers for the span's projects in two grouped queries (issue 29).
    const [assignees, labels, structure] = await Promise.all([
      tasks.assigneesOf(ids),
      tasks.labelsOf(ids),
      tasks.structureInProjects(span.projectIds, archived),
    ]);
    return listBody(serialise(rows, { assignees, labels, structure }, query.view));
  };

  /**
   * A list: one project's (the Inbox without projectId) cached whole by the project's version, or
   * read anew when filtered or spanning projects, so it is never stale. The caller's membership and
   * the version are one query (the access module's listScope).
   */
  const list = async (userId: number, archived: boolean, query: TaskListRouteQuery): Promise<ListAnswer> => {
    if (query.parentId !== undefined) {
      // Issue 29: one task's direct sub-tasks, in their order; the task must be one the caller sees.
      const parent = await parentFor(userId, query.parentId, 'viewer');
      return {
        ...(await filteredList(userId, { projectIds: [parent.project_id] }, archived, query)),
        cached: false,
      };
    }
    const span = await spanOf(userId, query);
    if (span) return { ...(await filteredList(userId, span, archived, query)), cached: false };
    const projectId = typeof query.projectId === 'number' ? query.projectId : undefined;
    const scope = await access.listScope(userId, projectId);
    if (!scope) throw projectNotFound();
    if (isFiltered(query)) {
      return {
        ...(await filteredList(userId, { projectIds: [scope.projectId] }, archived, query)),
        cached: false,
      };
    }
    const key = `${scope.projectId}:${archived ? 'archived' : 'active'}:${query.view ?? 'full'}`;
    const cached = lists.get(key, scope.version);
    if (cached) return { ...cached, cached: true };
    const [rows, assignees, labels, structure] = await Promise.all([
      archived ? tasks.listArchived(scope.projectId) : tasks.listActive(scope.projectId),
      tasks.assigneesInProject(scope.projectId, archived),
      tasks.labelsInProject(scope.projectId, archived),
      tasks.structureInProjects([scope.projectId], archived),
    ]);
    return {
      ...lists.set(key, scope.version, serialise(rows, { assignees, labels, structure }, query.view)),
      cached: false,
    };
  };

  /** The new assignees, when each is a member of the project; else 400 naming the first who is not. */
  const checkAssignees = async (
    assigneeIds: number[],
    members: ProjectMemberSummary[],
  ): Promise<number[]> => {
    const memberIds = new Set(members.map((member) => member.userId));
    const outsider = assigneeIds.find((id) => !memberIds.has(id));
    if (outsider !== undefined) {
      const username = await tasks.activeUsername(outsider);
      throw badRequest(
        TASK_ERRORS.notAMember(username ? `${username} (user ${outsider})` : `user ${outsider}`),
      );
    }
    return [...new Set(assigneeIds)];
  };
  const names = (ids: number[], members: ProjectMemberSummary[]) =>
    ids.map((id) => members.find((member) => member.userId === id)?.firstName ?? `user ${id}`);

  /**
   * Creates that arrive together are written in one transaction and published together once it
   * has committed (group commit, decision 047); each answers after that, as a create on its own.
   */
  const creates = createGroupCommit(
    db,
    async (
      trx,
      {
        userId,
        labelIds,
        task,
        source,
      }: { userId: number; labelIds?: number[]; task: NewTaskOnTop; source?: ChangeSource },
    ): Promise<Task> => {
      const repository = createTaskRepository(trx, dialect);
      const inserted = await repository.insertAtTop(task);
      if (labelIds?.length) await repository.setOwnLabels(inserted.id, userId, labelIds);
      // A group is written in the first item's context: each item says where it came from.
      await withChangeSource(source, () =>
        recordActivity(trx, [{ taskId: inserted.id, actorId: userId, kind: 'created' }]),
      );
      return labelIds?.length ? withAssignees(inserted, repository) : toTask(inserted);
    },
    (created) =>
      publish(
        created.map((task) => task.projectId),
        [],
        created.map((task) => taskChange('task.created', task)),
      ),
  );

  /**
   * Issue 29: a sub-task, editor or more in its parent's project, which it joins with the parent's
   * section, after the parent's last sub-task. Written in a transaction of its own (not the group
   * commit's), with 'added the sub-task' on the parent.
   */
  const createSubtask = async (
    userId: Caller,
    input: CreateTaskInput,
    parentId: number,
    options: DueZoneOptions,
  ): Promise<Task> => {
    const parent = await parentFor(userId, parentId, 'editor');
    if (input.projectId !== undefined && input.projectId !== parent.project_id) {
      throw badRequest(TASK_MESSAGES.parentOtherProject);
    }
    await assertParent(parent, undefined);
    await assertOwnAgent(userId, input.contextId);
    const labelIds = await checkOwnLabels(userId, input.labelIds);
    assertDated(input.dueDate, input.dueTime, input.recurrence);
    const zone = input.dueTime ? (options.dueTimeZone ?? (await zoneOf(userId))) : null;
    // A completed sub-task stays under its parent, out of the archive.
    const done = doneAfter(input) ?? false;
    const row = await inTransaction(db, dialect, async (repository, trx) => {
      const position = await repository.endOfChildren(parent.id, parent.position);
      const inserted = await repository.insertAt(
        {
          user_id: userId,
          project_id: parent.project_id,
          parent_id: parent.id,
          title: input.title,
          description: input.description,
          due_date: input.dueDate,
          due_time: input.dueTime,
          due_time_zone: zone,
          recurrence: input.recurrence,
          recurrence_from: input.recurrenceFrom ?? 'due',
          section_id: parent.section_id ?? null,
          completed: done,
          archived: false,
          archived_at: null,
          context_id: input.contextId,
          notes: null,
          ai_draft: null,
          ai_assisted: false,
          search_text: taskSearchText({ title: input.title, description: input.description, notes: null }),
          priority: input.priority ?? 4,
        },
        position,
      );
      if (labelIds?.length) await repository.setOwnLabels(inserted.id, userId, labelIds);
      await recordActivity(trx, [
        { taskId: inserted.id, actorId: userId, kind: 'created' },
        {
          taskId: parent.id,
          actorId: userId,
          kind: 'subtask_added',
          data: { taskId: inserted.id, title: inserted.title },
        },
      ]);
      return inserted;
    });
    const created = await withAssignees(row);
    await publish(
      [parent.project_id],
      [taskPath(parent.id), taskActivityPath(parent.id)],
      [taskChange('task.created', created)],
    );
    return created;
  };

  const service = {
    /**
     * GET /api/tasks as JSON bytes (and compressed, on demand): the active tasks of the caller's
     * Inbox, of the project named, or of every project (`projectId=all`, `assignee=me`).
     */
    activeList: async (userId: Caller, query: TaskListRouteQuery = {}): Promise<ListAnswer> =>
      list(userId, false, query),

    /** GET /api/tasks/archived likewise: most recently archived first. */
    archivedList: async (userId: Caller, query: TaskListRouteQuery = {}): Promise<ListAnswer> =>
      list(userId, true, query),

    /**
     * Reads a project's active list as the app asks for it (`view=summary`) into the cache, in the
     * encoding the caller's browser takes, so the first GET after a large change (an import) is the
     * cache's: it is the one every member's open page sends at once (issue 28, decision 049).
     */
    async warmList(userId: Caller, projectId: number, encoding: ListEncoding | null): Promise<void> {
      const body = await list(userId, false, { projectId, view: 'summary' });
      if (encoding && body.size >= COMPRESS_THRESHOLD) body.encoded(encoding);
    },

    async get(userId: Caller, id: number): Promise<Task> {
      const { task } = await access.requireTask(user(userId), id, 'viewer');
      return withAssignees(task);
    },

    /**
     * A new task goes to the top of its project's active list (the caller's Inbox without
     * `projectId`); its creator is the caller, whatever the body says.
     */
    async create(userId: Caller, input: CreateTaskInput, options: DueZoneOptions = {}): Promise<Task> {
      if (input.parentId !== null) return createSubtask(userId, input, input.parentId, options);
      const { id: projectId } = await access.requireWritableProject(user(userId), input.projectId);
      await assertOwnAgent(userId, input.contextId);
      await sections.assertInProject(input.sectionId, projectId);
      const labelIds = await checkOwnLabels(userId, input.labelIds);
      assertDated(input.dueDate, input.dueTime, input.recurrence);
      const zone = input.dueTime ? (options.dueTimeZone ?? (await zoneOf(userId))) : null;
      const done = doneAfter(input) ?? false;
      return creates({
        userId,
        labelIds,
        source: changeSource(),
        task: {
          user_id: userId,
          project_id: projectId,
          title: input.title,
          description: input.description,
          due_date: input.dueDate,
          due_time: input.dueTime,
          due_time_zone: zone,
          recurrence: input.recurrence,
          recurrence_from: input.recurrenceFrom ?? 'due',
          section_id: input.sectionId,
          completed: done,
          archived: done,
          archived_at: done ? nowIso() : null,
          context_id: input.contextId,
          notes: null,
          ai_draft: null,
          ai_assisted: false,
          search_text: taskSearchText({ title: input.title, description: input.description, notes: null }),
          priority: input.priority ?? 4,
        },
      });
    },

    /**
     * New tasks on top of a project's list in the given order, all or none (an AI agent's split of
     * a task: they go where the task is). The caller has been checked for that project. `extra` is
     * activity recorded in the same transaction (an applied AI proposal's, on the task it split).
     */
    async createMany(
      userId: Caller,
      projectId: number,
      inputs: Array<Pick<CreateTaskInput, 'title' | 'description' | 'dueDate'>>,
      extra: ActivityRecord[] = [],
    ): Promise<number> {
      const ids = await db.transaction().execute(async (trx) => {
        const inserted = await insertTasksOnTop(
          trx,
          userId,
          projectId,
          inputs.map((input) => ({
            ...input,
            completed: false,
            archived: false,
            contextId: null,
            notes: null,
            aiDraft: null,
            aiAssisted: false,
            checklistItems: [],
          })),
        );
        await recordActivity(trx, [
          ...inserted.map((taskId) => ({ taskId, actorId: userId, kind: 'created' as const })),
          ...extra,
        ]);
        return inserted;
      });
      // One task.created each, as the API would answer it (an AI split makes a few).
      const created: ChangeEvent[] = [];
      for (const id of ids) {
        const row = await tasks.find(id);
        if (row) created.push(taskChange('task.created', toTask(row)));
      }
      await publish([projectId], [], created);
      return ids.length;
    },

    /**
     * Every edit of a task, completing included (REST, MCP, agents' proposals): completing archives
     * and stamps archived_at; restoring or reopening clears both and puts the task back on top.
     * `projectId` moves it (editor or more in both projects; assignees who are not members of the
     * new one are dropped); `assigneeIds` replaces its assignees. Each change is one activity
     * entry, written in the change's transaction.
     */
    async update(
      userId: Caller,
      id: number,
      input: UpdateTaskInput,
      extra: ActivityRecord[] = [],
      options: CompleteOptions & DueZoneOptions & VersionOptions = {},
    ): Promise<Task> {
      const { task: current } = await access.requireTask(user(userId), id, 'editor');
      const { ifVersion } = options;
      if (ifVersion !== undefined && current.version !== ifVersion) {
        throw new TaskChangedError(await withAssignees(current));
      }
      const moving = input.projectId !== undefined && input.projectId !== current.project_id;
      const target = moving ? await access.requireWritableProject(user(userId), input.projectId) : undefined;
      const projectId = target?.id ?? current.project_id;
      await assertOwnAgent(userId, input.contextId);
      await sections.assertInProject(input.sectionId, projectId);
      const labelIds = await checkOwnLabels(userId, input.labelIds);
      // Read before the transaction: on SQLite a read outside it would wait for it to end.
      const members = moving || input.assigneeIds !== undefined ? await access.projectMembers(projectId) : [];
      const sourceMembers = moving ? await access.projectMembers(current.project_id) : members;
      const assigneeIds = input.assigneeIds && (await checkAssignees(input.assigneeIds, members));
      let done = doneAfter(input);
      // Issue 29: the task's parent after this change (undefined: the same one). Moved alone to
      // another project, or into another section, a sub-task becomes top-level there; restored
      // while its parent is still in the archive, it comes back top-level.
      const currentParentId = current.parent_id ?? null;
      const oldParent = currentParentId !== null ? await tasks.find(currentParentId) : undefined;
      let newParent: TaskRow | null | undefined;
      if (input.parentId !== undefined && (input.parentId !== currentParentId || moving)) {
        if (input.parentId === null) newParent = null;
        else {
          const parent = await parentFor(userId, input.parentId, 'viewer');
          if (parent.id === id) throw badRequest(TASK_MESSAGES.parentLoop);
          if (parent.project_id !== projectId) throw badRequest(TASK_MESSAGES.parentOtherProject);
          if (toBool(current.archived)) throw badRequest(TASK_ERRORS.archivedUnderParent);
          await assertParent(parent, id);
          newParent = parent;
        }
      } else if (currentParentId !== null && input.parentId === undefined) {
        const otherSection =
          input.sectionId !== undefined && input.sectionId !== (current.section_id ?? null);
        const restoredAlone =
          done === false && toBool(current.archived) && oldParent && toBool(oldParent.archived);
        if (moving || otherSection || restoredAlone) newParent = null;
      }
      if (newParent !== undefined && (newParent?.id ?? null) === currentParentId) newParent = undefined;
      const parentAfter = newParent === undefined ? currentParentId : (newParent?.id ?? null);
      // A sub-task is done when completed; a top-level task when archived (with its subtree).
      const wasDone = parentAfter !== null ? toBool(current.completed) : toBool(current.archived);
      // Time and recurrence (issue 22): both need a date, and go when the date goes.
      const dueDate = input.dueDate !== undefined ? input.dueDate : current.due_date;
      const dueTime = input.dueTime !== undefined ? input.dueTime : (current.due_time ?? null);
      let recurrence = input.recurrence !== undefined ? input.recurrence : (current.recurrence ?? null);
      if (input.dueDate !== undefined) assertDated(dueDate, input.dueTime ?? null, input.recurrence ?? null);
      else assertDated(dueDate, dueTime, recurrence);
      const timeChanges: Pick<TaskUpdate, 'due_time' | 'due_time_zone' | 'recurrence' | 'recurrence_from'> =
        {};
      if (!dueDate && (current.due_time || current.recurrence)) {
        Object.assign(timeChanges, { due_time: null, due_time_zone: null, recurrence: null });
        recurrence = null;
      } else {
        if (input.dueTime !== undefined) {
          timeChanges.due_time = input.dueTime;
          timeChanges.due_time_zone = input.dueTime ? (options.dueTimeZone ?? (await zoneOf(userId))) : null;
        }
        if (input.recurrence !== undefined) timeChanges.recurrence = input.recurrence;
      }
      if (input.recurrenceFrom !== undefined) timeChanges.recurrence_from = input.recurrenceFrom;
      const losesDueTime = Boolean(current.due_time) && timeChanges.due_time === null;
      const recurrenceFrom =
        input.recurrenceFrom ?? (current.recurrence_from === 'completion' ? 'completion' : 'due');
      // Completing a recurring task moves it on to its next date instead of archiving it; a final
      // completion ('Complete forever') ends the series. A series past its UNTIL just completes.
      let next: string | null = null;
      if (done === true && !toBool(current.archived) && recurrence && dueDate) {
        if (options.final) {
          timeChanges.recurrence = null;
        } else {
          const zone = current.due_time_zone ?? (await zoneOf(userId));
          next = nextDueDate(recurrence, dueDate, recurrenceFrom, dateInZone(clock.now(), zone));
          if (next) done = undefined;
        }
      }
      const changes: Omit<TaskUpdate, 'position'> = {
        ...timeChanges,
        title: input.title,
        description: input.description,
        notes: input.notes,
        completed: done,
        context_id: input.contextId,
        ai_draft: input.aiDraft,
        ai_assisted: input.aiAssisted,
        due_date: next ?? input.dueDate,
        project_id: moving ? projectId : undefined,
        // A task moved to another project leaves its section, unless it is given one there; a
        // sub-task is in its parent's.
        section_id: newParent
          ? (newParent.section_id ?? null)
          : input.sectionId !== undefined
            ? input.sectionId
            : moving
              ? null
              : undefined,
        priority: input.priority,
        parent_id: newParent === undefined ? undefined : (newParent?.id ?? null),
      };
      if (next) {
        changes.completed = false;
        changes.checklist_done = 0;
      }
      if (input.title !== undefined || input.description !== undefined || input.notes !== undefined) {
        changes.search_text = taskSearchText({
          title: input.title ?? current.title,
          description: input.description !== undefined ? input.description : current.description,
          notes: input.notes !== undefined ? input.notes : current.notes,
        });
      }
      const restoring = done === false && toBool(current.archived);
      // A completed sub-task stays under its parent, out of the archive (issue 29).
      if (done !== undefined && done !== toBool(current.archived) && !(done && parentAfter !== null)) {
        changes.archived = done;
        changes.archived_at = done ? nowIso() : null;
      }
      // A completed sub-task made top-level is done as a top-level task is: in the archive, with
      // its subtree (a sub-task is archived exactly when its top-level task is).
      const archivedAsTopLevel =
        newParent === null &&
        done === undefined &&
        toBool(current.completed) &&
        !toBool(current.archived) &&
        next === null;
      if (archivedAsTopLevel) {
        changes.archived = true;
        changes.archived_at = nowIso();
      }
      // Kysely leaves undefined values out of the SET list.
      if (
        Object.values(changes).every((v) => v === undefined) &&
        assigneeIds === undefined &&
        labelIds === undefined
      ) {
        return withAssignees(current);
      }
      let newlyAssigned: number[] = [];
      let blockedProjects: number[] = [];
      const row = await inTransaction(db, dialect, async (repository, trx) => {
        const before = (await repository.assigneesOf([id])).get(id) ?? [];
        // Just after a sibling (an outdented task after the parent it left), between it and the next.
        const justAfter = async (sibling: TaskRow) => {
          const following = await repository.nextSibling(sibling);
          return following ? (sibling.position + following.position) / 2 : sibling.position + 1;
        };
        let position: number | undefined;
        if (newParent) {
          position =
            oldParent && oldParent.parent_id === newParent.id
              ? await justAfter(oldParent)
              : await repository.endOfChildren(newParent.id, newParent.position);
        } else if (
          newParent === null &&
          !moving &&
          !restoring &&
          oldParent?.parent_id === null &&
          (changes.section_id === undefined || changes.section_id === (current.section_id ?? null))
        ) {
          position = await justAfter(oldParent);
        }
        const toTop = position === undefined && (restoring || moving || newParent === null);
        // Labels change the task's row too (updated_at), so its project's list version moves on.
        const updated = await repository.update(
          id,
          changes,
          toTop ? projectId : undefined,
          position,
          ifVersion,
        );
        if (!updated) {
          // Changed (or deleted) since it was read: a write that names a version loses to it.
          const now = ifVersion !== undefined ? await repository.find(id) : undefined;
          throw now ? new TaskChangedError(await withAssignees(now, repository)) : taskNotFound();
        }
        // Its subtree follows it (issue 29), in set-based statements: project, section, completion.
        const below: Omit<TaskUpdate, 'position' | 'parent_id'> = {};
        if (moving) below.project_id = projectId;
        if (moving || (updated.section_id ?? null) !== (current.section_id ?? null)) {
          below.section_id = updated.section_id ?? null;
        }
        if (next) below.completed = false;
        else if (done === true && !wasDone) {
          below.completed = true;
          if (changes.archived === true)
            Object.assign(below, { archived: true, archived_at: changes.archived_at });
        } else if (restoring) Object.assign(below, { completed: false, archived: false, archived_at: null });
        else if (archivedAsTopLevel)
          Object.assign(below, { completed: true, archived: true, archived_at: changes.archived_at });
        if (Object.keys(below).length > 0) await repository.updateDescendants(id, below);
        if (moving) {
          await repository.dropDescendantAssignees(
            id,
            members.map((member) => member.userId),
          );
        }
        // The tasks it (or its subtree) blocks count their open blockers anew.
        if (done !== undefined || next) blockedProjects = await repository.touchBlocked(id);
        const labels = labelIds === undefined ? null : await repository.setOwnLabels(id, userId, labelIds);
        const activity: ActivityRecord[] = [];
        const add = (kind: ActivityKind, data?: Record<string, unknown>) =>
          activity.push({ taskId: id, actorId: userId, kind, data });
        if (input.priority !== undefined && input.priority !== current.priority) {
          add('priority_changed', { from: current.priority, to: input.priority });
        }
        if (labels && (labels.added.length > 0 || labels.removed.length > 0)) add('labels_changed', labels);
        if (input.title !== undefined && input.title !== current.title) {
          add('renamed', { from: current.title, to: input.title });
        }
        if (input.description !== undefined && input.description !== current.description) {
          add('description_changed');
        }
        // Relative reminders count from the due time: without one they would never fire, yet fill
        // the task's limit of reminders. They go with it; fixed ones stay.
        if (losesDueTime) {
          await trx
            .deleteFrom('reminders')
            .where('task_id', '=', id)
            .where('relative_minutes', 'is not', null)
            .execute();
        }
        if (next) {
          await trx
            .updateTable('checklist_items')
            .set({ done: false, updated_at: nowIso() })
            .where('task_id', '=', id)
            .where('done', '=', true)
            .execute();
          add('completed', { next, text: completedNextText(next) });
        } else if (input.dueDate !== undefined && input.dueDate !== current.due_date) {
          add('due_changed', { from: current.due_date, to: input.dueDate });
        }
        if (done === true && !wasDone) add('completed');
        if (restoring) add('restored');
        if (newParent) add('moved_under', { parentId: newParent.id, parentTitle: newParent.title });
        else if (newParent === null) {
          add('made_top_level', { fromParentId: currentParentId, fromParentTitle: oldParent?.title });
        }
        let after = assigneeIds ?? before;
        if (moving) {
          const memberIds = new Set(members.map((member) => member.userId));
          const dropped = after.filter((assignee) => !memberIds.has(assignee));
          after = after.filter((assignee) => memberIds.has(assignee));
          add('moved', {
            fromProjectId: current.project_id,
            toProjectId: projectId,
            toProjectName: target?.name,
            ...(dropped.length > 0 ? { droppedAssignees: names(dropped, sourceMembers) } : {}),
          });
        }
        if (moving || assigneeIds !== undefined) {
          await repository.setAssignees(id, after);
          const added = after.filter((assignee) => !before.includes(assignee));
          const removed = before.filter((assignee) => !after.includes(assignee));
          if (added.length > 0) add('assigned', { userIds: added, names: names(added, members) });
          newlyAssigned = added;
          if (removed.length > 0 && assigneeIds !== undefined) {
            add('unassigned', {
              userIds: removed,
              names: names(removed, sourceMembers),
            });
          }
        }
        await recordActivity(trx, [...activity, ...extra]);
        return updated;
      });
      const updated = await withAssignees(row);
      const type = moving
        ? 'task.moved'
        : restoring
          ? 'task.restored'
          : next || (done === true && !wasDone)
            ? 'task.completed'
            : 'task.updated';
      const parentPaths =
        newParent === undefined
          ? []
          : [currentParentId, newParent?.id ?? null].filter((p) => p !== null).map((p) => taskPath(p));
      await publish(
        [...new Set([...(moving ? [current.project_id, projectId] : [projectId]), ...blockedProjects])],
        [
          taskPath(id),
          taskActivityPath(id),
          ...parentPaths,
          ...(next ? [checklistPath(id)] : []),
          ...(losesDueTime ? [taskRemindersPath(id)] : []),
        ],
        [taskChange(type, updated)],
      );
      await reminders?.taskChanged(id);
      if (newlyAssigned.length > 0) {
        const actor = members.find((member) => member.userId === userId)?.firstName ?? 'Someone';
        await notifications?.notify(
          newlyAssigned.map((assignee) => ({
            userId: assignee,
            kind: 'assigned' as const,
            taskId: id,
            projectId,
            actorId: userId,
            title: `${actor} assigned you "${row.title}"`,
            body: row.due_date ? `Due ${row.due_date}` : row.title,
          })),
        );
      }
      return updated;
    },

    /**
     * POST /api/tasks/{id}/complete: completes the task as every other path does (a recurring one
     * moves on to its next date); `final` ends a series and archives the task.
     */
    complete: (userId: Caller, id: number, options: CompleteOptions = {}): Promise<Task> =>
      service.update(userId, id, { completed: true }, [], options),

    /** Deletes the task, its file rows, then its stored files; a file already gone is fine. */
    async remove(userId: Caller, id: number): Promise<void> {
      const { task } = await access.requireTask(user(userId), id, 'editor');
      // As it was: its assignees and labels go with it.
      const removed = await withAssignees(task);
      // Issue 29: its subtree goes with it (by foreign key, as do their comments, checklists,
      // reminders, AI runs and relations); the files of all of it are read first.
      const { storageKeys, blockedProjects } = await inTransaction(db, dialect, async (repository) => {
        const keys = await repository.subtreeFileKeys(id);
        const blocked = await repository.touchBlocked(id);
        if (!(await repository.delete(id))) throw taskNotFound();
        return { storageKeys: keys, blockedProjects: blocked };
      });
      await Promise.all(
        storageKeys.map((key) =>
          fileStore.remove(key).catch((error) => logger.warn({ err: error, key }, 'stored file not removed')),
        ),
      );
      await publish(
        [...new Set([task.project_id, ...blockedProjects])],
        task.parent_id != null ? [taskPath(task.parent_id)] : [],
        [taskChange('task.deleted', removed)],
      );
    },

    /**
     * Moves one active task to just after `afterId` (null: the top) in its project, writing that
     * task alone: its position becomes the midpoint of its new neighbours'. Only when two
     * neighbours are too close for a midpoint (after about fifty moves into the same gap) is the
     * whole list renumbered.
     */
    async move(userId: Caller, id: number, afterId: number | null, sectionId?: number | null): Promise<Task> {
      if (afterId === id) throw badRequest(TASK_MESSAGES.moveAfterItself);
      const { task } = await access.requireTask(user(userId), id, 'editor');
      const projectId = task.project_id;
      await sections.assertInProject(sectionId, projectId);
      await inTransaction(db, dialect, async (repository) => {
        const refuse = async (missing: number) => {
          if ((await repository.archivedAmong(projectId, [missing])).length > 0) {
            throw badRequest(TASK_ERRORS.archivedReorder);
          }
          throw taskNotFound();
        };
        const moving = await repository.activePlace(projectId, id);
        if (!moving) return refuse(id);
        const after = afterId === null ? null : await repository.activePlace(projectId, afterId);
        if (afterId !== null && !after) return refuse(afterId);
        // Issue 29: siblings only (the same parent); null is the first among them.
        const parentId = moving.parent_id ?? null;
        if (after && (after.parent_id ?? null) !== parentId) throw badRequest(TASK_MESSAGES.moveAfterSibling);
        // Issue 23: the section named, else afterId's, else the task's own; afterId must be in it.
        // A sub-task's is its parent's, whatever is asked.
        const section =
          parentId !== null
            ? (moving.section_id ?? null)
            : sectionId !== undefined
              ? sectionId
              : (after?.section_id ?? (after ? null : moving.section_id));
        if (after && (after.section_id ?? null) !== section)
          throw badRequest(TASK_MESSAGES.moveAfterInSection);
        const next = await repository.nextActive(
          projectId,
          after ?? null,
          id,
          parentId === null ? section : undefined,
          parentId,
        );
        const position = !after
          ? (next?.position ?? 0) - 1
          : next
            ? (after.position + next.position) / 2
            : after.position + 1;
        await repository.setPosition(id, position, section);
        // A top-level task moved to another section takes its subtree there.
        if (parentId === null && (section ?? null) !== (moving.section_id ?? null)) {
          await repository.updateDescendants(id, { section_id: section ?? null });
        }
        if (!after || !next || (position > after.position && position < next.position)) return;
        // No room between the neighbours: the whole list is renumbered, the moved task after `after`.
        const order = (await repository.activeIds(projectId)).filter((other) => other !== id);
        order.splice(order.indexOf(after.id) + 1, 0, id);
        await repository.setOrder(projectId, order);
      });
      const row = await tasks.find(id);
      if (!row) throw taskNotFound();
      const moved = await withAssignees(row);
      await publish([projectId], [taskPath(id)], [taskChange('task.moved', moved)]);
      return moved;
    },

    /**
     * A member left the project (removed, or by leaving): they come off its tasks' assignees, each
     * task saying so in its activity ('unassigned', by whoever removed them), and the lists refresh.
     */
    async unassignLeaver(actorId: number, projectId: number, leaver: { userId: number; name: string }) {
      const ids = await inTransaction(db, dialect, async (repository, trx) => {
        const unassigned = await repository.unassignAll(projectId, leaver.userId);
        await recordActivity(
          trx,
          unassigned.map((taskId) => ({
            taskId,
            actorId,
            kind: 'unassigned' as const,
            data: { userIds: [leaver.userId], names: [leaver.name] },
          })),
        );
        return unassigned;
      });
      if (ids.length === 0) return;
      // Webhooks hear of each as a task.updated, as of any other change of assignees.
      const rows = (await Promise.all(ids.map((id) => tasks.find(id)))).filter((row) => row !== undefined);
      const extras = await extrasOf(rows.map((row) => row.id));
      await publish(
        [projectId],
        ids.flatMap((id) => [taskPath(id), taskActivityPath(id)]),
        rows.map((row) => taskChange('task.updated', asTask(row, extras))),
      );
    },

    /**
     * Applies a new order of one project's active tasks (the project of the first id) in one
     * transaction and returns the full order. Any unknown, foreign, archived or repeated id refuses
     * the whole request and changes nothing. Active tasks left out (the client does not list
     * completed ones) keep their relative order after the listed ones, so a list that is slightly
     * stale still reorders what the person saw.
     */
    async reorder(userId: Caller, taskIds: number[]): Promise<number[]> {
      const seen = new Set<number>();
      for (const id of taskIds) {
        if (seen.has(id)) throw badRequest(TASK_ERRORS.duplicateInReorder(id));
        seen.add(id);
      }
      const first = taskIds[0];
      if (first === undefined) throw badRequest(TASK_MESSAGES.reorderEmpty);
      const { task } = await access.requireTask(user(userId), first, 'editor');
      const projectId = task.project_id;
      const result = await inTransaction(
        db,
        dialect,
        async (repository): Promise<{ order: number[] } | { elsewhere: number[] }> => {
          const active = await repository.activeIds(projectId);
          const activeSet = new Set(active);
          const notActive = taskIds.filter((id) => !activeSet.has(id));
          if (notActive.length > 0) {
            const archived = new Set(await repository.archivedAmong(projectId, notActive));
            const elsewhere = notActive.filter((id) => !archived.has(id));
            if (elsewhere.length === 0) throw badRequest(TASK_ERRORS.archivedReorder);
            return { elsewhere };
          }
          const full = [...taskIds, ...active.filter((id) => !seen.has(id))];
          await repository.setOrder(projectId, full);
          return { order: full };
        },
      );
      if ('elsewhere' in result) {
        // Tasks the caller sees in other projects: say the order mixes projects. A foreign id and an
        // unknown one answer alike (404), so reorder reveals nothing about others' tasks.
        for (const id of result.elsewhere) await access.requireTask(user(userId), id, 'viewer');
        throw badRequest(TASK_ERRORS.reorderAcrossProjects);
      }
      await changed([projectId]);
      return result.order;
    },
  };
  return service;
}

export type TaskService = ReturnType<typeof createTaskService>;
