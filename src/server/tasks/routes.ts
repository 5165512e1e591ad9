import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { noContentSchema } from '../../common/api';
import {
  CHECKLIST_ITEMS_PATH,
  checklistItemSchema,
  createChecklistItemBodySchema,
  reorderChecklistBodySchema,
  updateChecklistItemBodySchema,
} from '../../common/checklist';
import { idParam, MAX_ID, textIdParam } from '../../common/ids';
import {
  ARCHIVED_TASKS_PATH,
  completeTaskBodySchema,
  createTaskBodySchema,
  moveTaskBodySchema,
  reorderBodySchema,
  TASKS_PATH,
  type Task,
  taskChangedSchema,
  taskListRouteQuerySchema,
  taskSchema,
  taskSummarySchema,
  updateTaskBodySchema,
} from '../../common/tasks';
import { COMPRESS_THRESHOLD, preferredEncoding } from '../http/compression';
import { notFound } from '../http/errors';
import { currentUser, requireUser } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import type { ChecklistService } from './checklist';
import type { ListAnswer } from './list-cache';
import type { TaskService } from './service';
import { ETAG_DESCRIPTION, ifMatchHeadersSchema, requiredVersion, withEtag } from './version';

const idParamsSchema = z.object({ id: textIdParam() });
/** Checked before the body, so a path id that names nothing answers 404 whatever the body holds. */
const numericIdParamsSchema = z.object({ id: idParam() });

/** A path id that cannot name a task (not a number, out of range) is simply a task that is not there. */
function taskId(raw: string): number {
  const id = /^\d{1,10}$/.test(raw) ? Number(raw) : 0;
  if (id < 1 || id > MAX_ID) throw notFound('Task');
  return id;
}

/**
 * toTask already emits exactly the public fields, so answers skip the Zod parse of the shared
 * serializer. The response schemas still type-check what the handlers return.
 */
const plainJson = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };

const JSON_TYPE = 'application/json; charset=utf-8';

export async function tasksRoutes(
  fastify: FastifyInstance,
  { tasks, checklists }: { tasks: TaskService; checklists: ChecklistService },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  // The lists come serialised (and often cached) from the service: Task[] as JSON bytes, which
  // Fastify sends as they are (a Buffer is never serialised); the schema describes them.
  const taskList = { 200: z.array(z.union([taskSchema, taskSummarySchema])) };
  const taskListBytes = (json: Buffer) => json as unknown as Task[];
  /**
   * The list in the encoding the client prefers, compressed once per cached list version rather
   * than by @fastify/compress on every answer (which leaves an answer with Content-Encoding alone).
   * `Server-Timing: list;dur=…;desc="cached"|"read"`: the milliseconds from the request's start to
   * the bytes ready, and whether the list came from the cache, so a browser's own timings (and the
   * benches) show where a slow list's time went (issue 28).
   */
  const sendList = async (request: FastifyRequest, reply: FastifyReply, answer: Promise<ListAnswer>) => {
    const list = await answer;
    const encoding =
      list.size >= COMPRESS_THRESHOLD ? preferredEncoding(request.headers['accept-encoding']) : null;
    const bytes = encoding ? list.encoded(encoding) : list.json();
    reply
      .type(JSON_TYPE)
      .header('vary', 'accept-encoding')
      .header(
        'server-timing',
        `list;dur=${reply.elapsedTime.toFixed(1)};desc="${list.cached ? 'cached' : 'read'}"`,
      );
    if (encoding) reply.header('content-encoding', encoding);
    return reply.send(taskListBytes(bytes));
  };
  app.get(
    TASKS_PATH,
    {
      onRequest: requireUser,
      // sendList compresses the list itself, once per version: @fastify/compress's hook stays off.
      compress: false,
      schema: {
        summary: 'Your tasks',
        description:
          "Ordered by position; the active list is the ones neither completed nor archived. With `q`, `due`, `hasFiles`, `agentId`, `priority` (`1,2`), `label` (repeatable: each name must be on the task, anyone's label, case aside), `dueFrom` or `dueTo`, only the tasks that match (every word of `q` in the title, description, notes or a checklist item, case and accents aside). `sort` orders them by `due` date (undated last), `priority`, `created` (newest first) or `title`; `manual`, the default, is the list's own order. The full tasks by default; with `view=summary`, without `notes` and `aiDraft` (what the app's list shows: a 10,000-task list stays small; `GET /api/tasks/{id}` has the rest). `dueFrom` and `dueTo` (YYYY-MM-DD, inclusive, dueFrom not after dueTo) keep the tasks due in that window, a day being the caller's `timeZone`'s; so is `due`'s today (`week`: today and the six days after). `projectId=all&assignee=me` is everything of the caller's: their Inbox and what is assigned to them anywhere; `assignee=me_or_unassigned` adds the tasks assigned to nobody in the projects where they are an editor or more (Today and Upcoming ask for it). Sub-tasks (issue 29) come with the rest, each with its `parentId` (a completed sub-task of an open parent is active, `completed: true`), so the tree is built from one answer; `parentId=N` answers only N's direct sub-tasks, in their order (404 when N is not a task you can see). Each task carries `subtasks` (its direct sub-tasks, done and in all) and `blockedBy` (its open blockers).",
        tags: ['Tasks'],
        operationId: 'listTasks',
        querystring: taskListRouteQuerySchema,
        response: taskList,
      },
    },
    async (request, reply) =>
      sendList(request, reply, tasks.activeList(currentUser(request).id, request.query)),
  );

  app.get(
    ARCHIVED_TASKS_PATH,
    {
      onRequest: requireUser,
      compress: false,
      schema: {
        summary: 'Your archived tasks',
        description:
          'Most recently archived first; filtered like the active list, and `view=summary` likewise.',
        tags: ['Tasks'],
        operationId: 'listArchivedTasks',
        querystring: taskListRouteQuerySchema,
        response: taskList,
      },
    },
    async (request, reply) =>
      sendList(request, reply, tasks.archivedList(currentUser(request).id, request.query)),
  );

  app.get(
    `${TASKS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'One task',
        tags: ['Tasks'],
        operationId: 'getTask',
        params: idParamsSchema,
        response: { 200: taskSchema },
        responseHeaders: { 200: { ETag: ETAG_DESCRIPTION } },
      },
      ...plainJson,
    },
    async (request, reply) =>
      withEtag(reply, await tasks.get(currentUser(request).id, taskId(request.params.id))),
  );

  app.post(
    TASKS_PATH,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Create a task',
        description:
          "It goes to the top of the active list. `userId` and `position` are accepted and ignored. With `parentId` (issue 29), a sub-task of that task (editor or more in its project, at most 4 levels below a top-level task): it joins the parent's project and section and goes after its last sub-task.",
        tags: ['Tasks'],
        operationId: 'createTask',
        body: createTaskBodySchema,
        response: { 201: taskSchema },
      },
      ...plainJson,
    },
    async (request, reply) => reply.code(201).send(await tasks.create(currentUser(request).id, request.body)),
  );

  app.patch(
    `${TASKS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Change a task',
        description:
          "Any of the fields; completing a task archives it, reopening restores it. `labelIds` (your own labels, at most 20) replaces your labels on the task; other people's stay. Editors of the task's project and above. Sub-tasks (issue 29): `parentId` puts the task and its subtree under another task of its project (null: top-level); completing a sub-task leaves it under its parent, while completing a top-level task completes its open sub-tasks and archives the whole subtree with it, and restoring it restores them; `projectId` and `sectionId` take the subtree along (a sub-task given another project or section becomes top-level there). With `If-Match` (the task's `ETag`, as `GET /api/tasks/{id}` answers it, or `*`), the change is made only while the task is still at that version: else 412 with the task as it is now, and nothing changes (issue 31). The answer's `ETag` is the task's new version.",
        tags: ['Tasks'],
        operationId: 'updateTask',
        params: idParamsSchema,
        headers: ifMatchHeadersSchema,
        body: updateTaskBodySchema,
        response: {
          200: taskSchema,
          412: taskChangedSchema.meta({
            description: 'The task changed since the version `If-Match` names: nothing was changed',
          }),
        },
        responseHeaders: {
          200: { ETag: ETAG_DESCRIPTION },
          412: { ETag: 'The current version of the task, as in `task`.' },
        },
      },
      ...plainJson,
    },
    async (request, reply) => {
      const ifVersion = requiredVersion(request.headers['if-match']);
      const task = await tasks.update(currentUser(request).id, taskId(request.params.id), request.body, [], {
        ifVersion,
      });
      return withEtag(reply, task);
    },
  );

  app.delete(
    `${TASKS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete a task',
        description: 'Its files are deleted with it.',
        tags: ['Tasks'],
        operationId: 'deleteTask',
        params: idParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await tasks.remove(currentUser(request).id, taskId(request.params.id));
      return reply.code(204).send();
    },
  );

  app.post(
    `${TASKS_PATH}/reorder`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Reorder the active list',
        description: 'All or part of your active task ids in their new order, applied at once or not at all.',
        tags: ['Tasks'],
        operationId: 'reorderTasks',
        body: reorderBodySchema,
        response: { 200: reorderBodySchema },
      },
      ...plainJson,
    },
    async (request) => ({ taskIds: await tasks.reorder(currentUser(request).id, request.body.taskIds) }),
  );

  app.post(
    `${TASKS_PATH}/:id/move`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Move one task in the active list',
        description:
          "To just after `afterId`, or to the top with `afterId: null`. Only the moved task is written (its position falls between its new neighbours), so a drag in a long list costs one row; `POST /api/tasks/reorder` still takes a whole order. `afterId` must have the same parent (issue 29): siblings are ordered among themselves, and a sub-task stays in its parent's section.",
        tags: ['Tasks'],
        operationId: 'moveTask',
        params: numericIdParamsSchema,
        body: moveTaskBodySchema,
        response: { 200: taskSchema },
      },
      ...plainJson,
    },
    async (request) =>
      tasks.move(currentUser(request).id, request.params.id, request.body.afterId, request.body.sectionId),
  );

  app.post(
    `${TASKS_PATH}/:id/complete`,
    {
      onRequest: requireUser,
      // No body at all is `{}`: a plain completion.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        summary: 'Complete a task',
        description:
          "Completes the task as `PATCH {completed: true}` does. A recurring task is not archived: it moves on to its next due date (and time), its checklist unticked, and stays active. `{final: true}` ends a recurring task's series and archives it ('Complete forever'). A parent's open sub-tasks are completed and archived with it; a recurring parent reopens them. Editors of the task's project and above.",
        tags: ['Tasks'],
        operationId: 'completeTask',
        params: numericIdParamsSchema,
        body: completeTaskBodySchema,
        response: { 200: taskSchema },
      },
      ...plainJson,
    },
    async (request) =>
      tasks.complete(currentUser(request).id, request.params.id, { final: request.body.final }),
  );

  // Checklists (issue 13): the items of one task, and each item by its own id.
  app.get(
    `${TASKS_PATH}/:id/checklist`,
    {
      onRequest: requireUser,
      schema: {
        summary: "A task's checklist",
        description:
          "The items of the task, in their order. Any member of the task's project (viewer or more).",
        tags: ['Checklists'],
        operationId: 'listChecklistItems',
        params: numericIdParamsSchema,
        response: { 200: z.array(checklistItemSchema) },
      },
    },
    async (request) => checklists.list(currentUser(request).id, request.params.id),
  );

  app.post(
    `${TASKS_PATH}/:id/checklist`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Add a checklist item',
        description:
          "The new item goes to the bottom of the list. Editors of the task's project and above (403 below).",
        tags: ['Checklists'],
        operationId: 'addChecklistItem',
        params: numericIdParamsSchema,
        body: createChecklistItemBodySchema,
        response: { 201: checklistItemSchema },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await checklists.add(currentUser(request).id, request.params.id, request.body.title)),
  );

  app.post(
    `${TASKS_PATH}/:id/checklist/reorder`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Reorder a checklist',
        description:
          "The listed items first, in that order; the others keep theirs after them. Editors of the task's project and above (403 below).",
        tags: ['Checklists'],
        operationId: 'reorderChecklist',
        params: numericIdParamsSchema,
        body: reorderChecklistBodySchema,
        response: { 200: z.array(checklistItemSchema) },
      },
    },
    async (request) => checklists.reorder(currentUser(request).id, request.params.id, request.body.itemIds),
  );

  app.patch(
    `${CHECKLIST_ITEMS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Rename or tick a checklist item',
        description:
          "Ticking or unticking (a body that changes only `done`) is for commenters of the task's project and above; a new title for editors and above (403 below).",
        tags: ['Checklists'],
        operationId: 'updateChecklistItem',
        params: numericIdParamsSchema,
        body: updateChecklistItemBodySchema,
        response: { 200: checklistItemSchema },
      },
    },
    async (request) => checklists.update(currentUser(request).id, request.params.id, request.body),
  );

  app.delete(
    `${CHECKLIST_ITEMS_PATH}/:id`,
    {
      onRequest: requireUser,
      schema: {
        summary: 'Delete a checklist item',
        description: "Editors of the task's project and above (403 below).",
        tags: ['Checklists'],
        operationId: 'deleteChecklistItem',
        params: numericIdParamsSchema,
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      await checklists.remove(currentUser(request).id, request.params.id);
      return reply.code(204).send();
    },
  );
}
