import type * as ChronoModule from 'chrono-node';
import { CsvError, parse as parseCsv } from 'csv-parse/sync';
import { z } from 'zod';
import { agentBodySchema } from '../../common/agents';
import { CHECKLIST_LIMITS, createChecklistItemBodySchema } from '../../common/checklist';
import { CSV_COLUMNS, type ImportError, PARENT_PATH_SEPARATOR } from '../../common/data';
import { DEFAULT_TIME_ZONE, dateInZone, isTimeZone, timeInZone } from '../../common/due';
import { firstDueDate, parseRecurrencePhrase } from '../../common/recurrence';
import { createSectionBodySchema } from '../../common/sections';
import { TASK_LIMITS, TASK_MESSAGES, updateTaskBodySchema } from '../../common/tasks';
import { onFirstUse } from '../on-first-use';
import type { NewTaskWithChecklist } from '../tasks/bulk';
import { unescapeFormula } from './formulas';

/** A task read from a file; `agentRef` is the id its agent had in the file (JSON only). */
export interface ParsedTask extends Omit<NewTaskWithChecklist, 'contextId' | 'sectionId'> {
  agentRef: number | null;
  /** The name of the section the task is under in the file (Todoist's section rows); none when absent. */
  section?: string;
  /** Label names (Todoist's `@name` in CONTENT): the importer's labels of those names go on the task. */
  labels?: string[];
}

export interface ParsedAgent {
  /** Its id in the file, which the file's tasks refer to. */
  ref: number;
  title: string;
  prompt: string;
}

/** Issue 29: a relation between two tasks of the file, by their places in `tasks`, as stored. */
export interface ParsedRelation {
  from: number;
  to: number;
  kind: 'blocks' | 'relates_to' | 'duplicate_of';
}

export interface ParsedFile {
  format: 'tasklane-json' | 'tasklane-csv' | 'todoist-csv';
  /** A sub-task names its parent by `parentIndex`, its place in this list. */
  tasks: ParsedTask[];
  agents: ParsedAgent[];
  relations: ParsedRelation[];
  /** Rows or entries left out: bad values (listed in `errors`), Todoist's notes with no task. */
  skipped: number;
  errors: ImportError[];
  /** What is imported with something lost, or left out with a reason that is no error (Todoist). */
  notices: ImportError[];
}

/** A file that cannot be read at all: nothing of it is imported. */
export class UnreadableFileError extends Error {
  constructor(
    readonly row: number,
    message: string,
  ) {
    super(message);
  }
}

/** The first problem of a value, in the words the task routes use (they name the field). */
const firstIssue = (error: z.ZodError) => error.issues[0]?.message ?? 'This row is not valid';

const taskFields = updateTaskBodySchema.pick({
  title: true,
  description: true,
  dueDate: true,
  completed: true,
  archived: true,
  notes: true,
  aiDraft: true,
  aiAssisted: true,
  dueTime: true,
  recurrence: true,
  recurrenceFrom: true,
  priority: true,
});

const checklistTitle = createChecklistItemBodySchema.shape.title;
const sectionName = createSectionBodySchema.shape.name;

/** A task's fields checked as the task routes check them; a title is required. */
function checkTask(
  fields: Record<string, unknown>,
): { task: z.output<typeof taskFields> } | { error: string } {
  if (typeof fields.title !== 'string' || !fields.title.trim()) return { error: 'title is required' };
  const picked = Object.fromEntries(Object.keys(taskFields.shape).map((key) => [key, fields[key]]));
  const result = taskFields.safeParse(
    Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined)),
  );
  if (!result.success) return { error: firstIssue(result.error) };
  if (!result.data.dueDate && result.data.dueTime) return { error: TASK_MESSAGES.dueTimeNeedsDate };
  if (!result.data.dueDate && result.data.recurrence) return { error: TASK_MESSAGES.recurrenceNeedsDate };
  return { task: result.data };
}

/** The zone a file names for a due time, when Intl knows it; else the importer's. */
const zoneOr = (zone: unknown, fallback: string): string =>
  typeof zone === 'string' && isTimeZone(zone) ? zone : fallback;

const isoDateTime = z.iso.datetime({ offset: true, error: 'createdAt must be an ISO 8601 date and time' });

/** Reads an upload: Tasklane's JSON or CSV, or Todoist's CSV export. */
type Chrono = typeof ChronoModule;
/** The date parser, loaded at the first Todoist import (decision 027). */
const loadChrono = onFirstUse(() => import('chrono-node'));

export async function parseImportFile(
  bytes: Buffer,
  today = new Date(),
  timeZone: string = DEFAULT_TIME_ZONE,
): Promise<ParsedFile> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UnreadableFileError(1, 'The file is not UTF-8 text: export it as UTF-8 CSV or JSON.');
  }
  const body = text.replace(/^\uFEFF/, '');
  if (!body.trim()) throw new UnreadableFileError(1, 'The file is empty.');
  return /^\s*[{[]/.test(body) ? parseJson(body, timeZone) : parseCsvFile(body, today, timeZone);
}

// --- JSON: the document GET /api/export?format=json writes.

const jsonTaskSchema = z.looseObject({
  id: z.unknown().optional(),
  parentId: z.unknown().optional(),
  contextId: z.number().int().positive().nullable().optional(),
  createdAt: isoDateTime.nullable().optional(),
  archivedAt: z.iso
    .datetime({ offset: true, error: 'archivedAt must be an ISO 8601 date and time' })
    .nullable()
    .optional(),
  checklistItems: z
    .array(z.object({ title: checklistTitle, done: z.boolean({ error: 'done must be true or false' }) }))
    .max(CHECKLIST_LIMITS.itemsMax, `A task can hold at most ${CHECKLIST_LIMITS.itemsMax} checklist items`)
    .optional(),
});

const jsonDocumentSchema = z.object({
  tasks: z.array(z.unknown(), { error: 'The file must hold a list of tasks under "tasks".' }),
  agents: z.array(z.unknown(), { error: '"agents" must be a list.' }).optional(),
  relations: z.array(z.unknown(), { error: '"relations" must be a list.' }).optional(),
});

/** The line of a JSON syntax error, when the parser says where it is. */
function jsonErrorLine(body: string, error: Error): number {
  const at = /position (\d+)/.exec(error.message);
  return at ? body.slice(0, Number(at[1])).split('\n').length : 1;
}

function parseJson(body: string, timeZone: string): ParsedFile {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch (error) {
    throw new UnreadableFileError(
      jsonErrorLine(body, error as Error),
      `The file is not valid JSON: ${(error as Error).message}`,
    );
  }
  const shape = jsonDocumentSchema.safeParse(document);
  if (!shape.success) throw new UnreadableFileError(1, firstIssue(shape.error));
  const errors: ImportError[] = [];
  const agents: ParsedAgent[] = [];
  for (const [index, entry] of (shape.data.agents ?? []).entries()) {
    const ref = (entry as { id?: unknown })?.id;
    const agent = agentBodySchema.safeParse(entry);
    if (!agent.success || typeof ref !== 'number') {
      errors.push({
        row: index + 1,
        message: `agent ${index + 1}: ${agent.success ? 'id must be a number' : firstIssue(agent.error)}`,
      });
      continue;
    }
    agents.push({ ref, ...agent.data });
  }
  const tasks: ParsedTask[] = [];
  /** Each task's `id` and `parentId` in the file (issue 29). */
  const fileIds: Array<{ id: unknown; parentId: unknown; row: number }> = [];
  for (const [index, entry] of shape.data.tasks.entries()) {
    const row = index + 1;
    const extra = jsonTaskSchema.safeParse(entry);
    if (!extra.success) {
      errors.push({ row, message: `task ${row}: ${firstIssue(extra.error)}` });
      continue;
    }
    const checked = checkTask(extra.data);
    if ('error' in checked) {
      errors.push({ row, message: `task ${row}: ${checked.error}` });
      continue;
    }
    const { task } = checked;
    tasks.push({
      title: task.title!,
      description: task.description ?? null,
      dueDate: task.dueDate ?? null,
      completed: task.completed ?? false,
      archived: task.archived ?? false,
      notes: task.notes ?? null,
      aiDraft: task.aiDraft ?? null,
      aiAssisted: task.aiAssisted ?? false,
      createdAt: extra.data.createdAt ?? null,
      archivedAt: extra.data.archivedAt ?? null,
      agentRef: extra.data.contextId ?? null,
      checklistItems: extra.data.checklistItems ?? [],
      dueTime: task.dueTime ?? null,
      dueTimeZone: task.dueTime ? zoneOr((entry as { dueTimeZone?: unknown }).dueTimeZone, timeZone) : null,
      recurrence: task.recurrence ?? null,
      recurrenceFrom: task.recurrenceFrom ?? 'due',
      priority: task.priority ?? 4,
    });
    fileIds.push({ id: extra.data.id, parentId: extra.data.parentId, row });
  }
  // Agents are not rows of the task list: only the bad tasks count as skipped.
  const skipped = errors.filter((error) => error.message.startsWith('task ')).length;
  const notices: ImportError[] = [];
  nestByFileIds(tasks, fileIds, notices);
  const relations = relationsByFileIds(shape.data.relations ?? [], fileIds, tasks, notices);
  return { format: 'tasklane-json', tasks, agents, relations, skipped, errors, notices };
}

/**
 * Issue 29: each task's `parentId` (the `id` of another task of the file) as its `parentIndex`. A
 * parent not in the file, or a loop, makes a top-level task; a task deeper than
 * TASK_LIMITS.subtaskDepth levels goes under its deepest allowed ancestor. Each says so in `notices`.
 */
function nestByFileIds(
  tasks: ParsedTask[],
  fileIds: Array<{ id: unknown; parentId: unknown; row: number }>,
  allNotices: ImportError[],
  { name, what }: { name: string; what: string } = { name: 'parentId', what: 'task' },
): void {
  const notices: ImportError[] = [];
  const indexOf = new Map<unknown, number>();
  fileIds.forEach(({ id }, i) => {
    if ((typeof id === 'number' || typeof id === 'string') && !indexOf.has(id)) indexOf.set(id, i);
  });
  fileIds.forEach(({ parentId, row }, i) => {
    if (parentId === null || parentId === undefined) return;
    const parent = indexOf.get(parentId);
    if (parent === undefined || parent === i)
      notices.push({
        row,
        message: `${what} ${row}: ${name} names no task of the file: imported as a top-level task`,
      });
    else tasks[i]!.parentIndex = parent;
  });
  const depth = new Array<number | undefined>(tasks.length);
  const depthOf = (i: number): number => {
    const known = depth[i];
    if (known !== undefined) return known;
    depth[i] = 0; // on the way: a loop ends here
    const parent = tasks[i]!.parentIndex;
    if (parent === undefined || parent === null) return 0;
    const above = depthOf(parent);
    if (above >= TASK_LIMITS.subtaskDepth) {
      // Under the ancestor TASK_LIMITS.subtaskDepth - 1 levels down, the deepest a parent may be.
      let ancestor = parent;
      for (let up = above; up > TASK_LIMITS.subtaskDepth - 1; up--) ancestor = tasks[ancestor]!.parentIndex!;
      tasks[i]!.parentIndex = ancestor;
      notices.push({
        row: fileIds[i]!.row,
        message: `${what} ${fileIds[i]!.row}: more than ${TASK_LIMITS.subtaskDepth} levels of sub-tasks: imported under "${tasks[ancestor]!.title}"`,
      });
      depth[i] = TASK_LIMITS.subtaskDepth;
      return TASK_LIMITS.subtaskDepth;
    }
    if (depth[parent] === 0 && tasks[parent]!.parentIndex !== undefined && isLoop(tasks, i)) {
      tasks[i]!.parentIndex = undefined;
      notices.push({
        row: fileIds[i]!.row,
        message: `${what} ${fileIds[i]!.row}: ${name} would make a loop: imported as a top-level task`,
      });
      return 0;
    }
    depth[i] = above + 1;
    return above + 1;
  };
  for (let i = 0; i < tasks.length; i++) depthOf(i);
  allNotices.push(...notices.sort((a, b) => a.row - b.row));
}

/** Whether following `parentIndex` up from task `start` comes back to it. */
function isLoop(tasks: ParsedTask[], start: number): boolean {
  let at = tasks[start]!.parentIndex;
  for (let steps = 0; at !== undefined && at !== null && steps <= tasks.length; steps++) {
    if (at === start) return true;
    at = tasks[at]!.parentIndex;
  }
  return false;
}

const jsonRelationSchema = z.object({
  taskId: z.number({ error: 'taskId must be a number' }),
  otherTaskId: z.number({ error: 'otherTaskId must be a number' }),
  kind: z.enum(['blocks', 'blocked_by', 'relates_to', 'duplicate_of', 'duplicated_by'], {
    error: 'kind must be blocks, blocked_by, relates_to, duplicate_of or duplicated_by',
  }),
});

/**
 * Issue 29: the file's relations between its tasks, by their places in `tasks`; one the file cannot
 * carry (a task not in it, a task related to itself, a loop of blocked tasks) is left out with a notice,
 * and the same relation twice is one.
 */
function relationsByFileIds(
  entries: unknown[],
  fileIds: Array<{ id: unknown }>,
  tasks: ParsedTask[],
  notices: ImportError[],
): ParsedRelation[] {
  const indexOf = new Map<unknown, number>();
  fileIds.forEach(({ id }, i) => {
    if (typeof id === 'number' && !indexOf.has(id)) indexOf.set(id, i);
  });
  const relations: ParsedRelation[] = [];
  const seen = new Set<string>();
  const blocks = new Map<number, number[]>();
  const reaches = (from: number, to: number): boolean => {
    const stack = [from];
    const visited = new Set<number>();
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (at === to) return true;
      if (visited.has(at)) continue;
      visited.add(at);
      stack.push(...(blocks.get(at) ?? []));
    }
    return false;
  };
  for (const [index, entry] of entries.entries()) {
    const row = index + 1;
    const left = (why: string): void => {
      notices.push({ row, message: `relation ${row} not imported: ${why}` });
    };
    const parsed = jsonRelationSchema.safeParse(entry);
    if (!parsed.success) {
      left(firstIssue(parsed.error));
      continue;
    }
    const a = indexOf.get(parsed.data.taskId);
    const b = indexOf.get(parsed.data.otherTaskId);
    if (a === undefined || b === undefined) {
      left('its tasks are not both in the file');
      continue;
    }
    if (a === b) {
      left('a task cannot be related to itself');
      continue;
    }
    const { kind: given } = parsed.data;
    const swapped = given === 'blocked_by' || given === 'duplicated_by';
    const kind = given === 'blocked_by' ? 'blocks' : given === 'duplicated_by' ? 'duplicate_of' : given;
    const [from, to] = swapped ? [b, a] : [a, b];
    const key =
      kind === 'relates_to' ? `${kind}:${Math.min(from, to)}:${Math.max(from, to)}` : `${kind}:${from}:${to}`;
    if (seen.has(key)) continue;
    if (kind === 'blocks' && reaches(to, from)) {
      left(`"${tasks[from]!.title}" would be in a loop of blocked tasks`);
      continue;
    }
    seen.add(key);
    if (kind === 'blocks') blocks.set(from, [...(blocks.get(from) ?? []), to]);
    relations.push({ from, to, kind });
  }
  return relations;
}

// --- CSV: Tasklane's own columns, or Todoist's export.

interface CsvRecord {
  record: Record<string, string>;
  /** The line the record starts on (the header is 1). */
  line: number;
}

/** Plain words for the parser's complaints about the file's shape. */
function csvProblem(error: CsvError): string {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'A quoted value is never closed: check the quotes on this line.';
    case 'CSV_RECORD_INCONSISTENT_COLUMNS':
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
      return 'This line has a different number of values than the header names.';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'A quoted value is followed by more text before the next comma.';
    default:
      return `The file is not valid CSV: ${error.message}`;
  }
}

function readCsv(body: string): { header: string[]; records: CsvRecord[] } {
  let header: string[] = [];
  let lastGood = 1;
  let rows: Array<{ record: Record<string, string>; info: { lines: number; empty_lines: number } }>;
  try {
    rows = parseCsv<{ record: Record<string, string>; info: { lines: number; empty_lines: number } }>(body, {
      bom: true,
      columns: (names: string[]) => {
        header = names.map((name) => name.trim());
        return header;
      },
      info: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      // A stray quote inside an unquoted value ('5" screen') is text, not a syntax error.
      relax_quotes: true,
      on_record: (record, context) => {
        lastGood = context.lines;
        return record;
      },
    });
  } catch (error) {
    if (error instanceof CsvError) {
      // A quote never closed runs to the end of the file: the trouble starts after the last good record.
      const line =
        error.code === 'CSV_QUOTE_NOT_CLOSED'
          ? lastGood + 1
          : ((error as CsvError & { lines?: number }).lines ?? 1);
      throw new UnreadableFileError(line, csvProblem(error));
    }
    throw new UnreadableFileError(1, `The file is not valid CSV: ${(error as Error).message}`);
  }
  // The parser counts the line a record ends on; it starts after the previous one (and any blank lines).
  let lastLine = 1;
  let lastEmpty = 0;
  const records = rows.map(({ record, info }) => {
    const line = lastLine + 1 + (info.empty_lines - lastEmpty);
    lastLine = info.lines;
    lastEmpty = info.empty_lines;
    return { record, line };
  });
  return { header, records };
}

async function parseCsvFile(body: string, today: Date, timeZone: string): Promise<ParsedFile> {
  const { header, records } = readCsv(body);
  const names = new Set(header.map((name) => name.toLowerCase()));
  if (names.has('type') && names.has('content')) return todoist(records, today, await loadChrono(), timeZone);
  if (names.has('title')) return tasklaneCsv(records, timeZone);
  throw new UnreadableFileError(
    1,
    `The first line must name the columns: Tasklane's (${CSV_COLUMNS.join(', ')}) or Todoist's (TYPE, CONTENT, DESCRIPTION, PRIORITY, INDENT, DATE, ...).`,
  );
}

/** A record's value by column name, whatever the case of the header. */
const field = (record: Record<string, string>, name: string): string => {
  if (name in record) return record[name] ?? '';
  const key = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? '' : (record[key] ?? '');
};

const BOOLEAN = { true: true, false: false, '': false } as Record<string, boolean>;

function tasklaneCsv(records: CsvRecord[], timeZone: string): ParsedFile {
  const tasks: ParsedTask[] = [];
  const errors: ImportError[] = [];
  /** Issue 29: each task's title path ('Plan trip > Book flights') and its `parent` cell, the path above it. */
  const paths: Array<{ id: string; parentId: string | null; row: number }> = [];
  for (const { record: escaped, line } of records) {
    const record = Object.fromEntries(
      Object.entries(escaped).map(([name, cell]) => [name, unescapeFormula(cell)]),
    );
    const flags: Record<string, boolean> = {};
    let error: string | undefined;
    for (const name of ['completed', 'archived'] as const) {
      const value = BOOLEAN[field(record, name).trim().toLowerCase()];
      if (value === undefined) error ??= `${name} must be true or false`;
      else flags[name] = value;
    }
    const createdAtText = field(record, 'createdAt').trim();
    const createdAt = createdAtText ? isoDateTime.safeParse(createdAtText) : null;
    if (createdAt && !createdAt.success) error ??= firstIssue(createdAt.error);
    const checked = checkTask({
      title: field(record, 'title'),
      description: field(record, 'description'),
      dueDate: field(record, 'dueDate').trim(),
      notes: field(record, 'notes') || null,
      // Columns of issue 22: absent from older files, which read as none.
      dueTime: field(record, 'dueTime').trim() || null,
      recurrence: field(record, 'recurrence').trim() || null,
      recurrenceFrom: field(record, 'recurrenceFrom').trim() || undefined,
      // Issue 23: absent from older files, which read as no priority.
      priority: priorityCell(field(record, 'priority')),
    });
    if ('error' in checked) error ??= checked.error;
    if (error !== undefined || 'error' in checked) {
      errors.push({ row: line, message: error ?? 'This row is not valid' });
      continue;
    }
    const { task } = checked;
    tasks.push({
      title: task.title!,
      description: task.description ?? null,
      dueDate: task.dueDate ?? null,
      completed: flags.completed!,
      archived: flags.archived!,
      notes: task.notes ?? null,
      aiDraft: null,
      aiAssisted: false,
      createdAt: createdAt?.data ?? null,
      agentRef: null,
      checklistItems: [],
      dueTime: task.dueTime ?? null,
      dueTimeZone: task.dueTime ? zoneOr(field(record, 'dueTimeZone').trim(), timeZone) : null,
      recurrence: task.recurrence ?? null,
      recurrenceFrom: task.recurrenceFrom ?? 'due',
      priority: task.priority ?? 4,
    });
    const parent = field(record, 'parent').trim();
    paths.push({
      id: parent ? `${parent}${PARENT_PATH_SEPARATOR}${task.title!}` : task.title!,
      parentId: parent || null,
      row: line,
    });
  }
  const notices: ImportError[] = [];
  nestByFileIds(tasks, paths, notices, { name: 'parent', what: 'line' });
  return {
    format: 'tasklane-csv',
    tasks,
    agents: [],
    relations: [],
    skipped: errors.length,
    errors,
    notices,
  };
}

/** A CSV priority cell: empty is none; anything else must read as a number the task routes accept. */
const priorityCell = (cell: string): number | string | undefined => {
  const text = cell.trim();
  if (!text) return undefined;
  return /^\d+$/.test(text) ? Number(text) : text;
};

/** Todoist's PRIORITY is the other way round: its 4 is the most urgent (P1), its 1 none (P4). */
export const todoistPriority = (cell: string): number => {
  const value = Number(cell.trim());
  return Number.isInteger(value) && value >= 1 && value <= 4 ? 5 - value : 4;
};

/** `@name` words in a Todoist CONTENT: its labels. Emails ('a@b.c') are not labels. */
const TODOIST_LABEL = /(^|\s)@([^\s@]{1,50})(?=\s|$)/g;

/** The CONTENT without its labels, and the labels' names. */
export function todoistLabels(content: string): { title: string; labels: string[] } {
  const labels: string[] = [];
  const title = content
    .replace(TODOIST_LABEL, (_match, before: string, name: string) => {
      labels.push(name);
      return before;
    })
    .replace(/\s+/g, ' ')
    .trim();
  return { title: title || content.trim(), labels };
}

/** The local calendar date of a Date, as YYYY-MM-DD. */
const calendarDate = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;

/** Todoist's DATE in its DATE_LANG, read forward from today; unreadable ('every day', '') is no date. */
function todoistDate(text: string, lang: string, today: Date, chrono: Chrono): string | null {
  if (!text.trim()) return null;
  const locales = chrono as unknown as Record<string, { parseDate?: Chrono['parseDate'] } | undefined>;
  const locale = locales[lang.trim().toLowerCase()];
  const parseDate = locale?.parseDate ?? chrono.parseDate;
  const date = parseDate.call(locale ?? chrono, text, today, { forwardDate: true });
  return date ? calendarDate(date) : null;
}

/** Todoist's words for a date that repeats: 'every monday', 'every! 3 days', 'ev week', 'daily'. */
const RECURRING = /(?:^|\s)(?:every|ev)!?(?=\s|$)|^(?:daily|weekly|monthly|yearly|annually)$/i;

// Not Intl: its en-GB short month for September is 'Sept' in current ICU versions.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A YYYY-MM-DD date as '4 Jan', or '4 Jan 2028' when its year is not `currentYear`. */
function shortDate(date: string, currentYear?: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return `${day} ${MONTHS[month - 1]}${year === currentYear ? '' : ` ${year}`}`;
}

/** A comment's DATE (an ISO instant) as '3 Jan 2027', the day it was where the task is; else the text as it is. */
function noteDate(text: string, timeZone: string): string {
  const instant = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(instant)) return text;
  // A time zone Intl does not know reads as UTC.
  return shortDate(dateInZone(instant, timeZone || 'UTC'));
}

/** A task of the file and the time zone its row names, for the dates of its notes. */
interface Holder {
  task: ParsedTask;
  timeZone: string;
}

/** A task row above, where rows indented under it go: its place in the list, or the line it was skipped on. */
type Ancestor = { holder: Holder; index: number } | { skippedLine: number };

/**
 * Todoist's CSV export: TYPE=task rows are tasks, an INDENT over 1 makes a sub-task of the nearest
 * task above with an INDENT one less (issue 29; deeper than TASK_LIMITS.subtaskDepth levels: under
 * the deepest allowed, with a notice); a note row (a comment) joins the
 * notes of the nearest task row above it in its section, as 'Ana, 3 Jan 2027: text'. The meta row is read past; a section row names the
 * section of the tasks below it (issue 23: the import adds it to the project, or uses the one of
 * that name). A repeating date is not imported: the task gets the next date chrono
 * reads in it, if any, and a notice says so.
 */
function todoist(records: CsvRecord[], today: Date, chrono: Chrono, importerZone: string): ParsedFile {
  const tasks: ParsedTask[] = [];
  const errors: ImportError[] = [];
  const notices: ImportError[] = [];
  let skipped = 0;
  /** The tasks above at each depth (0: top-level), or the line of one that was skipped. */
  const ancestors: Ancestor[] = [];
  /** The task a note row belongs to, and the subtask it was written on, if any. */
  let noteTarget: { holder: Holder; on: string | null } | { skippedLine: number } | null = null;
  /** The section row above, whose tasks these are. */
  let section: string | undefined;
  const year = today.getFullYear();
  for (const { record, line } of records) {
    const skip = (message: string) => {
      errors.push({ row: line, message });
      skipped += 1;
    };
    /**
     * The row's date; a repeating one ('every monday', 'every weekday at 9am') as a rule with its
     * next date (from today, in the row's zone; today's only while its time is still to come) as
     * the due date. One the phrase reader cannot read
     * keeps the old way (one date, if chrono finds one) and a notice names it.
     */
    const dueOf = (asTask: boolean) => {
      const text = field(record, 'DATE').trim();
      const zone = zoneOr(field(record, 'TIMEZONE').trim(), importerZone);
      const phrase =
        asTask && RECURRING.test(text)
          ? parseRecurrencePhrase(text.replace(/^ev!?(?=\s)/i, (w) => w.replace(/^ev/i, 'every')))
          : null;
      if (phrase) {
        const next = firstDueDate(phrase.rule, dateInZone(today, zone), {
          time: phrase.time,
          now: timeInZone(today, zone),
        });
        if (next) {
          return {
            due: next,
            notice: null,
            repeat: {
              dueTime: phrase.time,
              dueTimeZone: phrase.time ? zone : null,
              recurrence: phrase.rule,
              recurrenceFrom: phrase.from,
            },
          };
        }
      }
      const due = todoistDate(text, field(record, 'DATE_LANG'), today, chrono);
      const notice = RECURRING.test(text)
        ? {
            row: line,
            message: `recurrence not imported: ${text} (${due ? `due once, on ${shortDate(due, year)}` : 'no due date'})`,
          }
        : null;
      return { due, notice, repeat: null };
    };
    const type = field(record, 'TYPE').trim().toLowerCase();
    if (type === 'meta') continue;
    if (type === 'section') {
      const name = sectionName.safeParse(field(record, 'CONTENT'));
      if (name.success) section = name.data;
      else skip(firstIssue(name.error));
      noteTarget = null;
      continue;
    }
    if (type === 'note') {
      const text = field(record, 'CONTENT').trim();
      if (!text) skipped += 1;
      else if (noteTarget === null) {
        notices.push({ row: line, message: 'note not imported: no task above it' });
        skipped += 1;
      } else if ('skippedLine' in noteTarget) skip(`Its task (line ${noteTarget.skippedLine}) was skipped`);
      else {
        const { holder, on } = noteTarget;
        const author = field(record, 'AUTHOR')
          .replace(/\s*\(\d+\)\s*$/, '')
          .trim();
        const date = noteDate(
          field(record, 'DATE').trim(),
          field(record, 'TIMEZONE').trim() || holder.timeZone,
        );
        const head = [[author, date].filter(Boolean).join(', '), on === null ? '' : `(on "${on}")`]
          .filter(Boolean)
          .join(' ');
        const entry = head ? `${head}: ${text}` : text;
        const notes = taskFields.shape.notes.safeParse(
          holder.task.notes ? `${holder.task.notes}\n\n${entry}` : entry,
        );
        if (notes.success) holder.task.notes = notes.data ?? null;
        else skip(firstIssue(notes.error));
      }
      continue;
    }
    if (type !== 'task') {
      skip(`TYPE must be task, section, note or meta, not '${type}'`);
      continue;
    }
    const indentText = field(record, 'INDENT').trim() || '1';
    const indent = /^\d+$/.test(indentText) ? Number(indentText) : Number.NaN;
    if (!(indent >= 1)) {
      skip('INDENT must be a whole number from 1');
      noteTarget = { skippedLine: line };
      continue;
    }
    const content = field(record, 'CONTENT');
    const timeZone = field(record, 'TIMEZONE').trim();
    // Issue 29: INDENT n is a sub-task of the nearest task above at n - 1, at most
    // TASK_LIMITS.subtaskDepth levels below a top-level task (deeper rows go under the deepest allowed).
    const wanted = indent - 1;
    let parent: Ancestor | null = null;
    if (wanted > 0) {
      if (ancestors.length === 0) {
        skip('An indented task needs a task above it');
        noteTarget = { skippedLine: line };
        continue;
      }
      parent = ancestors[Math.min(wanted, ancestors.length, TASK_LIMITS.subtaskDepth) - 1]!;
      if ('skippedLine' in parent) {
        skip(`Its task (line ${parent.skippedLine}) was skipped`);
        ancestors.splice(ancestors.indexOf(parent) + 1, Number.POSITIVE_INFINITY, { skippedLine: line });
        noteTarget = { skippedLine: line };
        continue;
      }
    }
    const depth = parent === null ? 0 : ancestors.indexOf(parent) + 1;
    // A sub-task lives in its parent's section.
    const taskSection = parent ? parent.holder.task.section : section;
    const { due, notice, repeat } = dueOf(true);
    const { title, labels } = todoistLabels(content);
    const checked = checkTask({ title, description: field(record, 'DESCRIPTION'), dueDate: due });
    if ('error' in checked) {
      skip(checked.error);
      ancestors.splice(depth, Number.POSITIVE_INFINITY, { skippedLine: line });
      noteTarget = { skippedLine: line };
      continue;
    }
    const task: ParsedTask = {
      title: checked.task.title!,
      description: checked.task.description ?? null,
      dueDate: checked.task.dueDate ?? null,
      completed: false,
      archived: false,
      notes: null,
      aiDraft: null,
      aiAssisted: false,
      agentRef: null,
      checklistItems: [],
      ...(repeat ?? {}),
      ...(taskSection ? { section: taskSection } : {}),
      priority: todoistPriority(field(record, 'PRIORITY')),
      ...(labels.length > 0 ? { labels } : {}),
      ...(parent ? { parentIndex: parent.index } : {}),
    };
    tasks.push(task);
    if (notice) notices.push(notice);
    if (parent && wanted > TASK_LIMITS.subtaskDepth)
      notices.push({
        row: line,
        message: `INDENT ${indent} is more than ${TASK_LIMITS.subtaskDepth} levels of sub-tasks: imported under "${parent.holder.task.title}"`,
      });
    const holder = { task, timeZone: timeZone || (parent?.holder.timeZone ?? '') };
    ancestors.splice(depth, Number.POSITIVE_INFINITY, { holder, index: tasks.length - 1 });
    noteTarget = { holder, on: null };
  }
  return { format: 'todoist-csv', tasks, agents: [], relations: [], skipped, errors, notices };
}
