import type { Kysely } from 'kysely';
import { CALDAV_COLORS, CALDAV_INBOX_NAME, CALDAV_LIMITS, CALDAV_MESSAGES } from '../../common/caldav';
import { createLabelBodySchema, LABEL_LIMITS, LABEL_MESSAGES, labelKey } from '../../common/labels';
import { createReminderBodySchema } from '../../common/notifications';
import { type ProjectColor, type ProjectRole, roleAtLeast } from '../../common/projects';
import { createTaskBodySchema, type UpdateTaskInput, updateTaskBodySchema } from '../../common/tasks';
import { isTimeZone } from '../../common/time-zone';
import { TOKEN_MESSAGES } from '../../common/tokens';
import { type Access, mayWrite, projectNotFound } from '../access';
import { withChangeSource } from '../activity/source';
import type { Database, ProjectRow } from '../db/schema';
import { isUniqueViolation, toBool } from '../db/values';
import { badRequest, forbidden, HttpError, notFound } from '../http/errors';
import type { LabelService } from '../labels/service';
import type { ReminderService } from '../reminders/service';
import type { TaskService } from '../tasks/service';
import type { Clock } from '../time/clock';
import { loadCaldavLibraries } from './libraries';
import {
  appTaskId,
  appTaskUid,
  createCaldavRepository,
  type DavReminderRow,
  type DavTaskRow,
} from './repository';
import { createCaldavSync, ctagOf, type SyncState, syncToken, tokenSeq } from './sync';
import {
  type DavCaller,
  type DavCollection,
  DavPreconditionError,
  type DavPreconditions,
  type DavResource,
  type DavStore,
  DavSyncTokenError,
  type TodoFields,
  type TodoRender,
} from './types';
import { etagOf, parseCalendarObject, renderCalendarObject } from './vtodo';

/**
 * The CalDAV store (issue 30, decision 052): what the WebDAV routes ask. Who sees what is the
 * access module's answer (a collection per project the caller is a member of, within the token's
 * limits, which the routes put in force); every write goes through the tasks, reminders and labels
 * services, so live updates, notifications, webhooks and activity ('via CalDAV') happen as for any
 * change.
 *
 * Resources: a task made in the app is `tasklane-<id>.ics` with UID `tasklane-<id>`; one a client
 * created keeps its UID and the name it was PUT to (caldav_objects), with the text it sent, which
 * vtodo.ts renders again with the task's current fields so content Tasklane cannot show survives.
 *
 * Sort order (X-APPLE-SORT-ORDER): a client's value is sent back for as long as the task keeps the
 * position it had when the value came (caldav_objects.sort_position); otherwise the value is the
 * task's position × 1000, rounded, so every client sees the app's order. A PUT whose value differs
 * from the one last sent moves the task among its siblings (the same parent and section): just after
 * the sibling with the largest value below it, or first.
 */

export interface CaldavStoreDeps {
  db: Kysely<Database>;
  access: Access;
  tasks: Pick<TaskService, 'create' | 'update' | 'remove' | 'move'>;
  labels: Pick<LabelService, 'listLabels' | 'createLabel'>;
  reminders: Pick<ReminderService, 'create' | 'remove'>;
  clock: Clock;
  /** The app's address: each resource's URL points at its task there. */
  appUrl: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A derived X-APPLE-SORT-ORDER: the task's position (fractional after moves) in thousandths. */
const SORT_SCALE = 1000;
/** The title of a VTODO sent without a SUMMARY (a task needs one). */
const UNTITLED = 'Untitled task';
/**
 * Rendered texts kept in memory, in characters (what they are made of counted too): a first sync
 * renders each task once, not twice. About 20,000 tasks of 1 KB; fewer when clients send large objects.
 */
const RENDER_CACHE_CHARS = 48 * 1024 * 1024;
/** The colour a label created from a client's CATEGORIES gets. */
const NEW_LABEL_COLOR: ProjectColor = 'grey';

/** One rendered resource. */
interface Rendered {
  href: string;
  etag: string;
  ics: string;
}

const uidOf = (row: DavTaskRow) => row.uid ?? appTaskUid(row.id);
const hrefOf = (row: DavTaskRow) => row.href ?? `${appTaskUid(row.id)}.ics`;

/** The X-APPLE-SORT-ORDER in a client's text, read without parsing the whole of it. */
function sortOrderIn(ical: string | null): number | null {
  const match = ical && /^X-APPLE-SORT-ORDER(?:;[^:\r\n]*)?:\s*(-?\d{1,15})\s*$/im.exec(ical);
  return match ? Number(match[1]) : null;
}

/** The sort order a task is sent with (the module's comment). */
const sortOrderOf = (row: DavTaskRow): number =>
  (row.sortPosition !== null && row.sortPosition === row.position ? sortOrderIn(row.ical) : null) ??
  Math.round(row.position * SORT_SCALE);

/** The first problem of a failed parse, as a 400. */
const invalid = (issues: Array<{ message: string }>) => badRequest(issues[0]?.message ?? 'Invalid task');

/** A reminder as compared between a client's alarms and the task's reminders. */
const reminderKey = (reminder: { at: string } | { relativeMinutes: number }) =>
  'at' in reminder ? `at:${Date.parse(reminder.at)}` : `before:${reminder.relativeMinutes}`;
const rowReminderKey = (row: DavReminderRow) =>
  row.at !== null ? `at:${Date.parse(row.at)}` : `before:${row.relativeMinutes}`;

/**
 * Whether the server made of a client's object something the client did not say: a recurring task
 * it completed moved on to its next date. The PUT then answers an ETag that is not the resource's
 * (that of the text sent), so the client's next sync finds the resource changed and reads it again,
 * instead of keeping its completed copy as current. Our own stamps (DTSTAMP, LAST-MODIFIED) are not
 * such a change: every client expects a server to keep them.
 */
function movedOn(sent: TodoFields, stored: string): boolean {
  const now = parseCalendarObject(stored).fields;
  return now.completed !== sent.completed || now.dueDate !== sent.dueDate || now.dueTime !== sent.dueTime;
}

export function createCaldavStore({
  db,
  access,
  tasks,
  labels,
  reminders,
  clock,
  appUrl,
}: CaldavStoreDeps): DavStore {
  const repository = createCaldavRepository(db);
  const sync = createCaldavSync(db, clock);
  const me = (caller: DavCaller) => ({ id: caller.userId });
  /**
   * Archived tasks completed since then are still resources: from the start of a UTC day, so the
   * window moves when the sync state's fingerprint does (its date).
   */
  const windowStart = () => {
    const today = Date.parse(clock.now().toISOString().slice(0, 10));
    return new Date(today - CALDAV_LIMITS.completedWindowDays * DAY_MS).toISOString();
  };

  /** The task in Tasklane's terms, as a VTODO says it (held parent and sort order included). */
  const todoOf = (
    row: DavTaskRow,
    categories: string[],
    taskReminders: DavReminderRow[],
    parentUid: string | null,
  ): TodoRender => ({
    uid: uidOf(row),
    title: row.title,
    description: row.description,
    dueDate: row.dueDate,
    dueTime: row.dueDate ? row.dueTime : null,
    dueTimeZone: row.dueDate && row.dueTime ? row.dueTimeZone : null,
    recurrence: row.dueDate ? row.recurrence : null,
    completed: row.completed,
    completedAt: row.completed ? (row.archivedAt ?? row.updatedAt) : null,
    priority: Math.min(4, Math.max(1, row.priority)) as TodoFields['priority'],
    categories,
    parentUid,
    reminders: taskReminders.map((reminder) =>
      reminder.at !== null ? { at: reminder.at } : { relativeMinutes: reminder.relativeMinutes ?? 0 },
    ),
    sortOrder: sortOrderOf(row),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    url: `${appUrl}/?task=${row.id}`,
  });

  /**
   * Renders these tasks of a collection: labels and reminders in one query each (for the whole
   * collection when `whole`, else for these ids), parents' UIDs from the rows or one more query.
   */
  async function render(userId: number, projectId: number, rows: DavTaskRow[], whole: boolean) {
    const ids = whole ? undefined : rows.map((row) => row.id);
    const [, names, taskReminders] = await Promise.all([
      loadCaldavLibraries(),
      repository.labelNames(userId, projectId, ids),
      repository.reminders(projectId, ids),
    ]);
    const uids = new Map(rows.map((row) => [row.id, uidOf(row)]));
    const missing = [
      ...new Set(
        rows.flatMap((row) => (row.parentId !== null && !uids.has(row.parentId) ? [row.parentId] : [])),
      ),
    ];
    const parentUids = await repository.uidsOf(missing);
    const parentUidOf = (row: DavTaskRow) =>
      row.parentId === null
        ? row.parentUid
        : (uids.get(row.parentId) ?? parentUids.get(row.parentId) ?? appTaskUid(row.parentId));
    return rows.map((row): Rendered => {
      const todo = todoOf(row, names.get(row.id) ?? [], taskReminders.get(row.id) ?? [], parentUidOf(row));
      return { href: hrefOf(row), ...renderTodo(row.id, todo, row.ical) };
    });
  }

  /**
   * The text and ETag of a task as `todo` and the client's `stored` text make it, from memory when
   * neither changed since the last time (PROPFIND renders every task, then the multigets the same).
   */
  type Kept = { todo: string; stored: string | null; ics: string; etag: string; chars: number };
  const rendered = new Map<number, Kept>();
  let renderedChars = 0;
  const forget = (taskId: number) => {
    renderedChars -= rendered.get(taskId)?.chars ?? 0;
    rendered.delete(taskId);
  };
  function renderTodo(taskId: number, todo: TodoRender, stored: string | null) {
    const key = JSON.stringify(todo);
    const kept = rendered.get(taskId);
    if (kept && kept.todo === key && kept.stored === stored) return kept;
    const ics = renderCalendarObject(todo, stored);
    const chars = key.length + (stored?.length ?? 0) + ics.length;
    const fresh = { todo: key, stored, ics, etag: etagOf(ics), chars };
    forget(taskId);
    if (chars > RENDER_CACHE_CHARS / 16) return fresh;
    rendered.set(taskId, fresh);
    renderedChars += chars;
    // The oldest go first (a Map keeps its insertion order).
    while (renderedChars > RENDER_CACHE_CHARS) forget(rendered.keys().next().value!);
    return fresh;
  }

  const renderCollection = async (userId: number, projectId: number) =>
    render(userId, projectId, await repository.tasks({ projectId, archivedSince: windowStart() }), true);

  /** The collection's sync state, refreshed when it moved (sync.ts). */
  const stateOf = (userId: number, projectId: number): Promise<SyncState> =>
    sync.state(userId, projectId, async () => {
      const rendered = await renderCollection(userId, projectId);
      return new Map(rendered.map((resource) => [resource.href, resource.etag]));
    });

  /**
   * The project's tasks these names are (resources: within the window unless `anyAge`): a client's
   * name from caldav_objects, `tasklane-<id>.ics` for a task no client named otherwise.
   */
  async function resolve(
    projectId: number,
    hrefs: string[],
    anyAge = false,
  ): Promise<Map<string, DavTaskRow>> {
    const named = await repository.idsByHref(projectId, hrefs);
    const byId = new Map<number, string>();
    for (const href of hrefs) {
      const id = named.get(href) ?? (href.endsWith('.ics') ? appTaskId(href.slice(0, -4)) : undefined);
      if (id !== undefined) byId.set(id, href);
    }
    const rows = await repository.tasks({
      projectId,
      archivedSince: anyAge ? null : windowStart(),
      ids: [...byId.keys()],
    });
    const found = new Map<string, DavTaskRow>();
    for (const row of rows) {
      const href = byId.get(row.id);
      if (href !== undefined && hrefOf(row) === href) found.set(href, row);
    }
    return found;
  }

  const describe = (
    caller: DavCaller,
    project: ProjectRow,
    role: ProjectRole,
    state: SyncState,
  ): DavCollection => {
    const archived = toBool(project.archived);
    return {
      projectId: project.id,
      displayName: toBool(project.is_inbox) ? CALDAV_INBOX_NAME : project.name,
      color: CALDAV_COLORS[project.color as ProjectColor] ?? CALDAV_COLORS.grey,
      role,
      // An archived project is read-only until restored, as in the app.
      writable: roleAtLeast(role, 'editor') && !archived && mayWrite(caller.limits),
      ctag: ctagOf(project.id, state.seq),
      syncToken: syncToken(project.id, state.seq),
    };
  };

  const asResource = (resource: Rendered, withData: boolean): DavResource =>
    withData
      ? { href: resource.href, etag: resource.etag, ics: resource.ics }
      : { href: resource.href, etag: resource.etag };

  /**
   * Reads need membership only: the access module's list scope, which it caches for a moment, so a
   * sync-collection with nothing new costs no query for it (404 for a non-member, as for no project).
   */
  async function assertMember(caller: DavCaller, projectId: number) {
    if (!(await access.listScope(caller.userId, projectId))) throw projectNotFound();
  }

  /** A write: the token must allow one, and the caller be an editor or more of a project not archived. */
  async function writable(caller: DavCaller, projectId: number) {
    if (!mayWrite(caller.limits)) throw forbidden(TOKEN_MESSAGES.readOnly);
    await access.requireWritableProject(me(caller), projectId);
  }

  /** If-Match and If-None-Match against the resource as it is (its ETag, or none): 412 when not met. */
  function check(conditions: DavPreconditions, etag: string | undefined) {
    const failed = () => new HttpError(412, CALDAV_MESSAGES.preconditionFailed);
    const ifNoneMatch = conditions.ifNoneMatch?.trim();
    if (ifNoneMatch && etag !== undefined) {
      if (ifNoneMatch === '*' || ifNoneMatch.split(',').some((tag) => tag.trim() === etag)) throw failed();
    }
    const ifMatch = conditions.ifMatch?.trim();
    if (ifMatch) {
      if (etag === undefined) throw failed();
      if (ifMatch !== '*' && !ifMatch.split(',').some((tag) => tag.trim() === etag)) throw failed();
    }
  }

  /** The caller's labels named by CATEGORIES, created when new. */
  async function labelIdsFor(userId: number, names: string[]): Promise<number[]> {
    const wanted = [...new Map(names.map((name) => [labelKey(name), name.trim()])).entries()];
    const own = async () =>
      new Map((await labels.listLabels(userId)).map((label) => [labelKey(label.name), label.id]));
    let mine = await own();
    for (const [key, name] of wanted) {
      if (mine.has(key)) continue;
      try {
        const label = await labels.createLabel(userId, { name, color: NEW_LABEL_COLOR });
        mine.set(key, label.id);
      } catch (error) {
        // Made meanwhile (another request): it is there now.
        if (!(error instanceof HttpError && error.statusCode === 409) && !isUniqueViolation(error))
          throw error;
        mine = await own();
      }
    }
    return wanted.flatMap(([key]) => {
      const id = mine.get(key);
      return id === undefined ? [] : [id];
    });
  }

  /** CATEGORIES checked as label names before anything is written: 400 naming the problem. */
  function checkCategories(names: string[]) {
    for (const name of names) {
      const checked = createLabelBodySchema.safeParse({ name, color: NEW_LABEL_COLOR });
      if (!checked.success)
        throw badRequest(`CATEGORIES '${name.slice(0, 60)}': ${checked.error.issues[0]?.message}`);
    }
    if (new Set(names.map(labelKey)).size > LABEL_LIMITS.perTask) throw badRequest(LABEL_MESSAGES.tooMany);
  }

  /** The task a RELATED-TO parent names, when it can be one (in the project, not archived). */
  async function parentNamed(projectId: number, uid: string | null, self: number | undefined) {
    if (uid === null) return undefined;
    const id = await repository.idByUid(projectId, uid);
    if (id === undefined || id === self) return undefined;
    const [row] = await repository.tasks({ projectId, archivedSince: null, ids: [id] });
    return row && !row.archived ? row : undefined;
  }

  /** The task's reminders made to be the client's alarms: the missing ones added, the others removed. */
  async function applyReminders(
    userId: number,
    projectId: number,
    taskId: number,
    wanted: TodoFields['reminders'],
    hasDueTime: boolean,
  ) {
    const current = (await repository.reminders(projectId, [taskId])).get(taskId) ?? [];
    const left = [...current];
    const add: TodoFields['reminders'] = [];
    for (const reminder of wanted) {
      // Relative to a due time the task does not have (a date alone): the alarm stays as content.
      if ('relativeMinutes' in reminder && !hasDueTime) continue;
      const i = left.findIndex((row) => rowReminderKey(row) === reminderKey(reminder));
      if (i >= 0) left.splice(i, 1);
      else add.push(reminder);
    }
    for (const row of left) await reminders.remove(userId, row.id);
    for (const reminder of add) {
      const body = createReminderBodySchema.safeParse(reminder);
      if (!body.success) throw invalid(body.error.issues);
      await reminders.create(userId, taskId, body.data);
    }
  }

  /**
   * Moves the task among its siblings when the client's sort order differs from the one last sent;
   * answers the sort_position to keep (the task's position now, or null when the client sent none).
   */
  async function applySortOrder(
    userId: number,
    before: DavTaskRow,
    taskId: number,
    sortOrder: number | null,
  ): Promise<number | null> {
    if (sortOrder === null) return null;
    const [row] = await repository.tasks({ projectId: before.projectId, archivedSince: null, ids: [taskId] });
    if (!row) return null;
    if (sortOrder !== sortOrderOf(before) && !row.archived) {
      const siblings = await repository.siblings(row);
      let after: DavTaskRow | undefined;
      for (const sibling of siblings) {
        const value = sortOrderOf(sibling);
        if (value <= sortOrder && (!after || value >= sortOrderOf(after))) after = sibling;
      }
      const moved = await tasks.move(userId, taskId, after?.id ?? null);
      return moved.position;
    }
    return row.position;
  }

  /** A zone a client named that Tasklane can read times in (else the caller's, as a floating time's). */
  const zoneOf = (fields: TodoFields) =>
    fields.dueTime && fields.dueTimeZone && isTimeZone(fields.dueTimeZone) ? fields.dueTimeZone : undefined;

  /** Applies what differs between the client's VTODO and the task (held parent and sort order kept). */
  async function update(caller: DavCaller, row: DavTaskRow, fields: TodoFields, ical: string) {
    const userId = caller.userId;
    if (fields.uid !== uidOf(row)) throw badRequest('The UID of an existing resource cannot change');
    checkCategories(fields.categories);
    // Read as the API reads them (trimmed, rules normalised), so an unchanged field is left alone.
    const checked = updateTaskBodySchema.safeParse({
      title: fields.title.trim() || row.title,
      description: fields.description,
      dueDate: fields.dueDate,
      dueTime: fields.dueTime,
      recurrence: fields.recurrence,
      priority: fields.priority,
    });
    if (!checked.success) throw invalid(checked.error.issues);
    const sent = checked.data;
    const input: UpdateTaskInput = {};
    if (sent.title !== row.title) input.title = sent.title;
    if ((sent.description ?? null) !== (row.description || null)) input.description = sent.description;
    if ((sent.dueDate ?? null) !== row.dueDate) input.dueDate = sent.dueDate;
    const zone = zoneOf(fields);
    if ((sent.dueTime ?? null) !== row.dueTime || (zone !== undefined && zone !== row.dueTimeZone)) {
      input.dueTime = sent.dueTime;
    }
    if ((sent.recurrence ?? null) !== row.recurrence) input.recurrence = sent.recurrence;
    if (sent.priority !== row.priority) input.priority = sent.priority;
    if (fields.completed !== row.completed) input.completed = fields.completed;
    const parent = await parentNamed(row.projectId, fields.parentUid, row.id);
    const parentId = parent?.id ?? null;
    // An archived task cannot go under another (the app refuses it too): it keeps its place.
    if (parentId !== row.parentId && !(row.archived && parentId !== null)) input.parentId = parentId;
    const current = (await repository.labelNames(userId, row.projectId, [row.id])).get(row.id) ?? [];
    const keys = (names: string[]) => [...new Set(names.map(labelKey))].sort().join('\n');
    if (keys(current) !== keys(fields.categories)) {
      input.labelIds = await labelIdsFor(userId, fields.categories);
    }
    if (Object.keys(input).length > 0) await tasks.update(userId, row.id, input, [], { dueTimeZone: zone });
    await applyReminders(
      userId,
      row.projectId,
      row.id,
      fields.reminders,
      Boolean(sent.dueDate && sent.dueTime),
    );
    const sortPosition = await applySortOrder(userId, row, row.id, fields.sortOrder);
    await repository.keepObject(
      {
        taskId: row.id,
        uid: uidOf(row),
        href: hrefOf(row),
        ical,
        parentUid: parent ? null : fields.parentUid,
        sortPosition,
      },
      clock.now().toISOString(),
    );
  }

  /** A new task from a client's VTODO: written whole, or not at all. */
  async function create(
    caller: DavCaller,
    projectId: number,
    href: string,
    fields: TodoFields,
    ical: string,
  ) {
    const userId = caller.userId;
    if ((await repository.idByUid(projectId, fields.uid)) !== undefined) {
      throw new DavPreconditionError(403, 'no-uid-conflict', CALDAV_MESSAGES.uidTaken);
    }
    checkCategories(fields.categories);
    const parent = await parentNamed(projectId, fields.parentUid, undefined);
    const body = {
      title: fields.title.trim() || UNTITLED,
      description: fields.description,
      dueDate: fields.dueDate,
      dueTime: fields.dueTime,
      recurrence: fields.recurrence,
      priority: fields.priority,
      completed: fields.completed,
      projectId,
      parentId: parent?.id ?? null,
    };
    const checked = createTaskBodySchema.safeParse(body);
    if (!checked.success) throw invalid(checked.error.issues);
    const labelIds = fields.categories.length > 0 ? await labelIdsFor(userId, fields.categories) : undefined;
    const task = await tasks.create(userId, { ...checked.data, labelIds }, { dueTimeZone: zoneOf(fields) });
    try {
      const [row] = await repository.tasks({ projectId, archivedSince: null, ids: [task.id] });
      if (!row) throw notFound('Task');
      const hasDueTime = Boolean(task.dueDate && task.dueTime);
      await applyReminders(userId, projectId, task.id, fields.reminders, hasDueTime);
      const before = { ...row, uid: fields.uid, href, ical };
      const sortPosition = await applySortOrder(userId, before, task.id, fields.sortOrder);
      const parentUid = parent ? null : fields.parentUid;
      await repository.keepObject(
        { taskId: task.id, uid: fields.uid, href, ical, parentUid, sortPosition },
        clock.now().toISOString(),
      );
    } catch (error) {
      // Nothing half-written: the task goes again (its caldav_objects row with it).
      await tasks.remove(userId, task.id).catch(() => undefined);
      throw error;
    }
    // Sub-tasks that arrived before it wait no more.
    for (const childId of await repository.waitingFor(projectId, fields.uid)) {
      try {
        await tasks.update(userId, childId, { parentId: task.id });
        await repository.stopWaiting(childId);
      } catch {
        // It cannot go under it (too deep, archived): it keeps waiting, as sent.
      }
    }
  }

  async function findOne(caller: DavCaller, projectId: number, href: string): Promise<Rendered> {
    await assertMember(caller, projectId);
    const row = (await resolve(projectId, [href])).get(href);
    if (!row) throw notFound('Resource');
    const [rendered] = await render(caller.userId, projectId, [row], false);
    return rendered!;
  }

  return {
    async collections(caller) {
      const memberships = await access.memberships(caller.userId);
      if (memberships.size === 0) return [];
      const projects = await db
        .selectFrom('projects')
        .selectAll()
        .where('id', 'in', [...memberships.keys()])
        .execute();
      const inboxFirst = (project: ProjectRow) =>
        toBool(project.is_inbox) && project.owner_id === caller.userId ? 0 : 1;
      projects.sort((a, b) => inboxFirst(a) - inboxFirst(b) || a.name.localeCompare(b.name) || a.id - b.id);
      const answer: DavCollection[] = [];
      for (const project of projects) {
        const role = memberships.get(project.id);
        if (role) answer.push(describe(caller, project, role, await stateOf(caller.userId, project.id)));
      }
      return answer;
    },

    async collection(caller, projectId) {
      const { role, project } = await access.requireProjectRole(me(caller), projectId, 'viewer');
      return describe(caller, project, role, await stateOf(caller.userId, projectId));
    },

    async resources(caller, projectId, { withData }) {
      await assertMember(caller, projectId);
      if (withData) {
        return (await renderCollection(caller.userId, projectId)).map((resource) =>
          asResource(resource, true),
        );
      }
      // Names and ETags only (PROPFIND Depth 1): the sync state's, nothing rendered when unchanged.
      await stateOf(caller.userId, projectId);
      const entries = await sync.entries(caller.userId, projectId, null);
      return entries.map((entry) => ({ href: entry.href, etag: entry.etag }));
    },

    async resourcesByHref(caller, projectId, hrefs, { withData }) {
      await assertMember(caller, projectId);
      const rows = await resolve(projectId, [...new Set(hrefs)]);
      const rendered = await render(caller.userId, projectId, [...rows.values()], false);
      const byHref = new Map(rendered.map((resource) => [resource.href, resource]));
      const found: DavResource[] = [];
      const missing: string[] = [];
      for (const href of hrefs) {
        const resource = byHref.get(href);
        if (resource) found.push(asResource(resource, withData));
        else missing.push(href);
      }
      return { found, missing };
    },

    async changesSince(caller, projectId, token, { withData }) {
      await assertMember(caller, projectId);
      const state = await stateOf(caller.userId, projectId);
      let after: number | null = null;
      if (token) {
        const seq = tokenSeq(projectId, token);
        if (seq === undefined || seq > state.seq || seq < state.minSeq) throw new DavSyncTokenError();
        after = seq;
      }
      if (after === null && withData) {
        // Everything: the whole collection rendered in one query per kind.
        const all = await renderCollection(caller.userId, projectId);
        return {
          syncToken: syncToken(projectId, state.seq),
          changed: all.map((resource) => asResource(resource, true)),
          deleted: [],
        };
      }
      const entries = await sync.entries(caller.userId, projectId, after);
      const live = entries.filter((entry) => !entry.deleted);
      const deleted = entries.filter((entry) => entry.deleted).map((entry) => entry.href);
      if (!withData) {
        return {
          syncToken: syncToken(projectId, state.seq),
          changed: live.map((entry) => ({ href: entry.href, etag: entry.etag })),
          deleted,
        };
      }
      const rows = await resolve(
        projectId,
        live.map((entry) => entry.href),
      );
      const rendered = await render(caller.userId, projectId, [...rows.values()], false);
      const gone = live.filter((entry) => !rows.has(entry.href)).map((entry) => entry.href);
      return {
        syncToken: syncToken(projectId, state.seq),
        changed: rendered.map((resource) => asResource(resource, true)),
        deleted: [...deleted, ...gone],
      };
    },

    async get(caller, projectId, href) {
      const resource = await findOne(caller, projectId, href);
      return { href: resource.href, etag: resource.etag, ics: resource.ics };
    },

    async put(caller, projectId, href, body, conditions) {
      await Promise.all([writable(caller, projectId), loadCaldavLibraries()]);
      const { fields, ical } = parseCalendarObject(body);
      return withChangeSource('caldav', async () => {
        const existing = (await resolve(projectId, [href], true)).get(href);
        const before = existing && (await render(caller.userId, projectId, [existing], false))[0];
        check(conditions, before?.etag);
        if (existing) await update(caller, existing, fields, ical);
        else await create(caller, projectId, href, fields, ical);
        const row = (await resolve(projectId, [href], true)).get(href);
        if (!row) throw notFound('Resource');
        const [after] = await render(caller.userId, projectId, [row], false);
        return { created: !existing, etag: movedOn(fields, after!.ics) ? etagOf(body) : after!.etag };
      });
    },

    async remove(caller, projectId, href, conditions) {
      await writable(caller, projectId);
      const existing = (await resolve(projectId, [href], true)).get(href);
      if (!existing) throw notFound('Resource');
      const [before] = await render(caller.userId, projectId, [existing], false);
      check(conditions, before!.etag);
      await withChangeSource('caldav', () => tasks.remove(caller.userId, existing.id));
    },
  };
}
