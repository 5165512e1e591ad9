import crypto from 'node:crypto';
import { z } from 'zod';
import { counted } from '../../common/plural';
import type { Database } from '../db/schema';
import { toBool, toIso, toIsoOrNull, toNumber } from '../db/values';

/**
 * The archive of a whole instance (issue 11, decision 011), shared by export and import: a tar,
 * gzipped when the file name ends in .gz or .tgz, holding
 *
 *   tables/<table>.json   each table's rows, as a JSON array, dialect values made canonical
 *   files/<file id>       each file's bytes (the name stays in the files row, so members are ASCII)
 *   ai-key                the 32 raw bytes that seal users' AI keys on the source
 *   manifest.json         last: every other member's size and SHA-256
 *
 * The manifest comes last because a file's checksum is known only once its bytes have streamed
 * into the archive; reading the store twice to put it first would double an export's time.
 */

export const ARCHIVE_FORMAT = 'tasklane-export';
export const ARCHIVE_VERSION = 1;
export const MANIFEST_MEMBER = 'manifest.json';
export const AI_KEY_MEMBER = 'ai-key';
export const tableMember = (table: ArchivedTable): string => `tables/${table}.json`;
export const fileMember = (fileId: number): string => `files/${fileId}`;
export const TABLE_MEMBER = /^tables\/([a-z_]+)\.json$/;
export const FILE_MEMBER = /^files\/([1-9][0-9]*)$/;

/** An expected failure (bad archive, non-empty target, missing file): its message is for the operator. */
export class TransferError extends Error {}

/** How a column is written in the archive: what each dialect returns, made one canonical JSON value. */
type Kind =
  | 'id'
  | 'id?'
  | 'integer'
  | 'integer?'
  | 'number'
  | 'size'
  | 'text'
  | 'text?'
  | 'bool'
  | 'timestamp'
  | 'timestamp?';

interface KindValue {
  id: number;
  'id?': number | null;
  integer: number;
  'integer?': number | null;
  number: number;
  size: number;
  text: string;
  'text?': string | null;
  bool: boolean;
  timestamp: string;
  'timestamp?': string | null;
}

const positiveInt = z.number().int().positive();
const KIND_SCHEMAS: { [K in Kind]: z.ZodType<KindValue[K]> } = {
  id: positiveInt,
  'id?': positiveInt.nullable(),
  integer: z.number().int(),
  'integer?': z.number().int().nullable(),
  number: z.number(),
  size: z.number().int().nonnegative(),
  text: z.string(),
  'text?': z.string().nullable(),
  bool: z.boolean(),
  timestamp: z.iso.datetime(),
  'timestamp?': z.iso.datetime().nullable(),
};

/** Booleans are 0/1 on SQLite, timestamps Date objects on PostgreSQL, bigints strings: one form in the archive. */
const CANONICAL: { [K in Kind]: (value: never) => KindValue[K] } = {
  id: (value: number) => value,
  'id?': (value: number | null) => value,
  integer: (value: number) => value,
  'integer?': (value: number | null) => value,
  number: toNumber,
  size: toNumber,
  text: (value: string) => value,
  'text?': (value: string | null) => value,
  bool: toBool,
  timestamp: toIso,
  'timestamp?': toIsoOrNull,
};

/**
 * Every table an archive carries, with every column of schema.ts (the compiler checks both ways),
 * in insert order: parents before children. Not carried: sessions, password reset tokens, WebAuthn
 * and two-factor sign-in challenges and rate limits (short-lived), project_versions (rebuilt by
 * its triggers as tasks are inserted).
 */
const COLUMNS = {
  users: {
    id: 'id',
    username: 'text',
    first_name: 'text',
    email: 'text?',
    password_hash: 'text',
    is_admin: 'bool',
    is_suspended: 'bool',
    is_bootstrap: 'bool',
    created_at: 'timestamp',
    updated_at: 'timestamp',
    two_factor_enabled: 'bool',
    two_factor_secret: 'text?',
    two_factor_last_step: 'integer?',
    time_zone: 'text?',
    time_zone_chosen: 'bool',
  },
  projects: {
    id: 'id',
    name: 'text',
    color: 'text',
    owner_id: 'id',
    is_inbox: 'bool',
    archived: 'bool',
    created_at: 'timestamp',
    updated_at: 'timestamp',
  },
  project_members: {
    project_id: 'id',
    user_id: 'id',
    role: 'text',
    added_at: 'timestamp',
  },
  sections: {
    id: 'id',
    project_id: 'id',
    name: 'text',
    position: 'integer',
    created_at: 'timestamp',
    updated_at: 'timestamp',
  },
  two_factor_recovery_codes: {
    id: 'id',
    user_id: 'id',
    code_hash: 'text',
    created_at: 'timestamp',
  },
  api_tokens: {
    id: 'id',
    user_id: 'id',
    name: 'text',
    token_hash: 'text',
    created_at: 'timestamp',
    expires_at: 'timestamp?',
    last_used_at: 'timestamp?',
    can_write: 'bool',
    project_ids: 'text?',
  },
  passkeys: {
    id: 'id',
    user_id: 'id',
    credential_id: 'text',
    public_key: 'text',
    counter: 'size',
    transports: 'text',
    user_handle: 'text',
    name: 'text',
    created_at: 'timestamp',
    last_used_at: 'timestamp?',
  },
  oidc_identities: {
    id: 'id',
    user_id: 'id',
    issuer: 'text',
    subject: 'text',
    created_at: 'timestamp',
    last_used_at: 'timestamp?',
  },
  access_requests: {
    id: 'id',
    email: 'text',
    requested_username: 'text',
    message: 'text?',
    created_at: 'timestamp',
  },
  agents: {
    id: 'id',
    user_id: 'id',
    title: 'text',
    prompt: 'text',
    model: 'text?',
    created_at: 'timestamp',
    updated_at: 'timestamp',
  },
  tasks: {
    id: 'id',
    user_id: 'id',
    title: 'text',
    description: 'text?',
    due_date: 'text?',
    completed: 'bool',
    archived: 'bool',
    position: 'number',
    context_id: 'id?',
    notes: 'text?',
    ai_draft: 'text?',
    ai_assisted: 'bool',
    created_at: 'timestamp',
    updated_at: 'timestamp',
    archived_at: 'timestamp?',
    search_text: 'text?',
    checklist_total: 'integer',
    checklist_done: 'integer',
    // Null only in an archive from before projects: the import puts the task in its creator's Inbox.
    project_id: 'id?',
    comment_count: 'integer',
    due_time: 'text?',
    due_time_zone: 'text?',
    recurrence: 'text?',
    recurrence_from: 'text',
    section_id: 'id?',
    priority: 'integer',
    parent_id: 'id?',
    version: 'integer',
  },
  task_relations: {
    id: 'id',
    task_id: 'id',
    other_task_id: 'id',
    kind: 'text',
    created_by: 'id?',
    created_at: 'timestamp',
  },
  templates: {
    id: 'id',
    user_id: 'id',
    name: 'text',
    data: 'text',
    task_count: 'integer',
    created_at: 'timestamp',
  },
  task_assignees: {
    task_id: 'id',
    user_id: 'id',
    assigned_at: 'timestamp',
  },
  comments: {
    id: 'id',
    task_id: 'id',
    author_id: 'id?',
    body: 'text',
    created_at: 'timestamp',
    edited_at: 'timestamp?',
  },
  comment_mentions: {
    comment_id: 'id',
    user_id: 'id',
  },
  activity: {
    id: 'id',
    task_id: 'id',
    actor_id: 'id?',
    kind: 'text',
    data: 'text',
    at: 'timestamp',
  },
  checklist_items: {
    id: 'id',
    task_id: 'id',
    user_id: 'id',
    title: 'text',
    done: 'bool',
    position: 'integer',
    search_text: 'text',
    created_at: 'timestamp',
    updated_at: 'timestamp',
  },
  calendar_feeds: {
    user_id: 'id',
    secret_hash: 'text',
    created_at: 'timestamp',
  },
  files: {
    id: 'id',
    task_id: 'id',
    user_id: 'id',
    original_name: 'text',
    file_size: 'size',
    content_type: 'text',
    storage_key: 'text',
    created_at: 'timestamp',
  },
  ai_credentials: {
    user_id: 'id',
    api_key_encrypted: 'text',
    base_url: 'text?',
    model: 'text?',
    created_at: 'timestamp',
    updated_at: 'timestamp',
  },
  ai_runs: {
    id: 'id',
    user_id: 'id',
    task_id: 'id',
    agent_id: 'id?',
    agent_title: 'text?',
    model: 'text',
    started_at: 'timestamp',
    duration_ms: 'integer?',
    input_tokens: 'integer',
    output_tokens: 'integer',
    status: 'text',
    error: 'text?',
    notes: 'text',
  },
  ai_proposals: {
    id: 'id',
    run_id: 'id',
    user_id: 'id',
    task_id: 'id',
    tool: 'text',
    arguments: 'text',
    status: 'text',
    error: 'text?',
    created_at: 'timestamp',
  },
  audit_log: {
    id: 'id',
    actor_id: 'id?',
    actor_username: 'text',
    action: 'text',
    target_user_id: 'id?',
    target_label: 'text?',
    created_at: 'timestamp',
  },
  // Issue 22: reminders, notifications, channels, and the job queue (pending reminders and their
  // keys, so nothing fires twice or is lost across a move).
  reminders: {
    id: 'id',
    task_id: 'id',
    at: 'timestamp?',
    relative_minutes: 'integer?',
    fired_at: 'timestamp?',
    created_by: 'id?',
    created_at: 'timestamp',
  },
  notifications: {
    id: 'id',
    user_id: 'id',
    kind: 'text',
    task_id: 'id?',
    project_id: 'id?',
    actor_id: 'id?',
    title: 'text',
    body: 'text',
    data: 'text?',
    created_at: 'timestamp',
    read_at: 'timestamp?',
  },
  notification_settings: {
    user_id: 'id',
    settings: 'text',
    email_digest: 'bool',
    updated_at: 'timestamp',
  },
  jobs: {
    id: 'id',
    key: 'text',
    kind: 'text',
    payload: 'text',
    state: 'text',
    run_at: 'timestamp',
    attempts: 'integer',
    max_attempts: 'integer',
    locked_until: 'timestamp?',
    locked_by: 'text?',
    last_error: 'text?',
    created_at: 'timestamp',
    finished_at: 'timestamp?',
  },
  // Issue 23: labels, the tasks they are on, saved filters.
  labels: {
    id: 'id',
    user_id: 'id',
    name: 'text',
    name_key: 'text',
    color: 'text',
    created_at: 'timestamp',
    updated_at: 'timestamp',
  },
  task_labels: {
    task_id: 'id',
    label_id: 'id',
  },
  saved_filters: {
    id: 'id',
    user_id: 'id',
    name: 'text',
    query: 'text',
    created_at: 'timestamp',
    updated_at: 'timestamp',
  },
} as const satisfies { [T in keyof Database]?: { [C in keyof Database[T]]-?: Kind } };

export type ArchivedTable = keyof typeof COLUMNS;
export const TABLES = Object.keys(COLUMNS) as ArchivedTable[];

/** A row as the archive holds it (and as it is inserted). */
export type ArchiveRow<T extends ArchivedTable> = {
  -readonly [C in keyof (typeof COLUMNS)[T]]: KindValue[(typeof COLUMNS)[T][C] & Kind];
};
export type ArchiveTables = { [T in ArchivedTable]: ArchiveRow<T>[] };

/**
 * Tables added after the first archives were written (issue 21): an archive without them still
 * imports, and every user in it gets an Inbox.
 */
export const LATER_TABLES: ReadonlySet<ArchivedTable> = new Set([
  'projects',
  'project_members',
  'sections',
  'task_assignees',
  'comments',
  'comment_mentions',
  'activity',
  'reminders',
  'notifications',
  'notification_settings',
  'jobs',
  'labels',
  'task_labels',
  'saved_filters',
  'task_relations',
  'templates',
]);

/** Columns added after the first archives were written, with the value an older archive's rows get. */
const LATER_COLUMNS: { [T in ArchivedTable]?: Record<string, unknown> } = {
  tasks: {
    project_id: null,
    comment_count: 0,
    due_time: null,
    due_time_zone: null,
    recurrence: null,
    recurrence_from: 'due',
    section_id: null,
    priority: 4,
    parent_id: null,
    version: 1,
  },
  users: { time_zone: null, time_zone_chosen: false },
  api_tokens: { can_write: true, project_ids: null },
};

/** Tables whose `id` is generated (an identity column on PostgreSQL); ai_credentials is keyed by its user. */
export const ID_TABLES = TABLES.filter((table) => 'id' in COLUMNS[table]);
/** The column that orders a table's rows in the archive. */
export const orderColumn = (table: ArchivedTable): 'id' | 'user_id' | 'task_id' =>
  'id' in COLUMNS[table] ? 'id' : 'user_id' in COLUMNS[table] ? 'user_id' : 'task_id';

/** A row read from either dialect, in the archive's canonical form. */
export function toArchiveRow<T extends ArchivedTable>(table: T, row: Record<string, unknown>): ArchiveRow<T> {
  const columns: Record<string, Kind> = COLUMNS[table];
  return Object.fromEntries(
    Object.entries(columns).map(([column, kind]) => [
      column,
      (CANONICAL[kind] as (value: unknown) => unknown)(row[column]),
    ]),
  ) as ArchiveRow<T>;
}

const rowsSchemas = Object.fromEntries(
  TABLES.map((table) => {
    const columns: Record<string, Kind> = COLUMNS[table];
    const shape = Object.fromEntries(
      Object.entries(columns).map(([column, kind]) => [column, KIND_SCHEMAS[kind]]),
    );
    return [table, z.array(z.strictObject(shape))];
  }),
) as unknown as { [T in ArchivedTable]: z.ZodType<ArchiveRow<T>[]> };

/** A table's member, checked column by column; a malformed one is a TransferError naming the row and column. */
export const parseRows = <T extends ArchivedTable>(table: T, content: Buffer): ArchiveRow<T>[] => {
  const later = LATER_COLUMNS[table];
  const schema = rowsSchemas[table];
  return parseMember(
    tableMember(table),
    content,
    later
      ? z.preprocess(
          (rows) => (Array.isArray(rows) ? rows.map((row) => ({ ...later, ...row })) : rows),
          schema,
        )
      : schema,
  );
};

const manifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  version: z.literal(ARCHIVE_VERSION),
  createdAt: z.iso.datetime(),
  members: z.array(
    z.object({
      name: z.string().min(1),
      size: z.number().int().nonnegative(),
      sha256: z.string().regex(/^[a-f0-9]{64}$/),
    }),
  ),
});
export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestMember = Manifest['members'][number];

export const parseManifest = (content: Buffer): Manifest =>
  parseMember(MANIFEST_MEMBER, content, manifestSchema);

/** A JSON member checked by its schema: anything else is a TransferError naming the member and the place. */
function parseMember<T>(name: string, content: Buffer, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(content.toString('utf8'));
  } catch {
    throw new TransferError(`${name} in the archive is not valid JSON`);
  }
  const result = schema.safeParse(json);
  if (!result.success) throw new TransferError(`${name} in the archive: ${describeIssue(result.error)}`);
  return result.data;
}

/** The first issue as `[3].title: expected string, received number`. */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const where = issue.path
    .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
    .join('');
  return where ? `${where.replace(/^\./, '')}: ${issue.message}` : issue.message;
}

export const sha256 = (content: Buffer): string => crypto.createHash('sha256').update(content).digest('hex');

/** Hashes and counts the chunks that go `through` it (a pipeline step, or a source for the file store). */
export function sha256Meter() {
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  return {
    async *through(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
      for await (const chunk of source) {
        hash.update(chunk);
        bytes += chunk.length;
        yield chunk;
      }
    },
    bytes: () => bytes,
    digest: () => hash.digest('hex'),
  };
}

export const isGzipName = (file: string): boolean => /\.(gz|tgz)$/i.test(file);

/** Where a long run has got to, reported after each file. */
export interface FileProgress {
  files: number;
  /** Known on export; an import learns the total only from the manifest, at the end. */
  totalFiles?: number;
  bytes: number;
}

export interface TransferSummary {
  users: number;
  tasks: number;
  files: number;
  bytes: number;
  seconds: number;
}

export const megabytes = (bytes: number): string => `${(bytes / 1_000_000).toFixed(1)} MB`;

/** `exported: 4 users, 4 tasks, 4 files (1.5 MB) in 0.4 s` */
export function formatSummary(verb: 'exported' | 'imported', summary: TransferSummary): string {
  return (
    `${verb}: ${counted(summary.users, 'user', 'users')}, ${counted(summary.tasks, 'task', 'tasks')}, ` +
    `${counted(summary.files, 'file', 'files')} (${megabytes(summary.bytes)}) in ${summary.seconds.toFixed(1)} s`
  );
}

export const summarize = (tables: ArchiveTables, startedAt: number): TransferSummary => ({
  users: tables.users.length,
  tasks: tables.tasks.length,
  files: tables.files.length,
  bytes: tables.files.reduce((total, file) => total + file.file_size, 0),
  seconds: (performance.now() - startedAt) / 1000,
});
