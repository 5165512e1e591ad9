import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * The database schema, in one place. Migrations in ./migrations create exactly this.
 *
 * Dialect differences are typed here and resolved in ./values.ts:
 * - booleans come back as 0/1 from SQLite and true/false from PostgreSQL;
 * - timestamps are written as ISO-8601 strings and come back as strings (SQLite)
 *   or Date objects (PostgreSQL timestamptz).
 */
export type Bool = ColumnType<boolean | number, boolean, boolean>;
export type Timestamp = ColumnType<Date | string, string, string>;
export type NullableTimestamp = ColumnType<Date | string | null, string | null, string | null>;
/** A boolean column with a default: optional on insert. */
export type DefaultedBool = ColumnType<boolean | number, boolean | undefined, boolean>;
/** PostgreSQL bigint arrives as a string. */
export type BigIntColumn = ColumnType<number | string, number, number>;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  first_name: string;
  email: string | null;
  password_hash: string;
  is_admin: Bool;
  is_suspended: Bool;
  /** The administrator created from ADMIN_USERNAME on first start: hidden and protected. */
  is_bootstrap: Bool;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Two-factor sign-in is in force (migration 0005). */
  two_factor_enabled: DefaultedBool;
  /**
   * The TOTP secret, base32: the one in force when two_factor_enabled, else one being set up
   * (POST /api/auth/2fa/setup) and not yet confirmed with a code; null when neither.
   */
  two_factor_secret: string | null;
  /** The last 30-second step whose code was accepted: each step counts once, across instances. */
  two_factor_last_step: number | null;
  /** IANA time zone (migration 0015); null: not yet set, read as the server's default (issue 28). */
  time_zone: ColumnType<string | null, string | null | undefined, string | null>;
  /** The person chose time_zone (migration 0023); false: their browser's, which the app keeps following. */
  time_zone_chosen: DefaultedBool;
}

export interface SessionsTable {
  /** SHA-256 of the session id; the id itself is never stored. */
  id_hash: string;
  user_id: number;
  created_at: Timestamp;
  last_used_at: Timestamp;
  expires_at: Timestamp;
  /**
   * What "Your devices" calls the session (migration 0004): random, never the secret. Null only
   * for a row written by an instance older than that migration; it is given one when listed.
   */
  public_id: string | null;
  /** The browser's User-Agent at sign-in, at most 400 characters. */
  user_agent: string | null;
  /** The address the sign-in came from (request.ip). */
  ip: string | null;
}

/** Personal API tokens (migration 0004): only the SHA-256 of the token is stored. */
export interface ApiTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_hash: string;
  created_at: Timestamp;
  /** Null: never expires. */
  expires_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  /** Migration 0022: false, the token only reads (GET, HEAD, OPTIONS; MCP's read tools). */
  can_write: DefaultedBool;
  /** Migration 0022: JSON array of the project ids the token is limited to; null, all of them. */
  project_ids: string | null;
}

/** Passkeys (migration 0006): WebAuthn credentials; nothing here can sign anyone in by itself. */
export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  /** The credential id the authenticator chose, base64url. */
  credential_id: string;
  /** The COSE public key from registration, base64url. */
  public_key: string;
  /** The signature counter of the last ceremony (0 for authenticators that keep none). */
  counter: BigIntColumn;
  /** JSON array of transports the browser reported ('internal', 'usb', 'hybrid', ...). */
  transports: string;
  /** The WebAuthn user handle (user.id) the credential was made for, base64url: random, one per user. */
  user_handle: string;
  name: string;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
}

/**
 * Outstanding WebAuthn challenges (migration 0006), in the database so any instance can finish a
 * ceremony another began. Single use: consumed by deleting the row.
 */
export interface WebauthnChallengesTable {
  /** SHA-256 of the challenge, hex. */
  challenge_hash: string;
  purpose: 'registration' | 'authentication';
  /** Who is registering; null for a sign-in (no one is known yet). */
  user_id: number | null;
  /** The user handle offered in registration options. */
  user_handle: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** Recovery codes for two-factor sign-in (migration 0005): SHA-256 of each; using one deletes it. */
export interface TwoFactorRecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  created_at: Timestamp;
}

/**
 * A sign-in waiting for its second factor (migration 0005): SHA-256 of the challenge handed out
 * after the password; deleted when it succeeds. Not carried by an export.
 */
export interface TwoFactorChallengesTable {
  id_hash: string;
  user_id: number;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** Single sign-on (migration 0007): the OpenID Connect identity (issuer, subject) linked to a user. */
export interface OidcIdentitiesTable {
  id: Generated<number>;
  user_id: number;
  issuer: string;
  /** The provider's `sub` claim: stable for the person, unlike their e-mail. */
  subject: string;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
}

export interface PasswordResetTokensTable {
  token_hash: string;
  user_id: number;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface AccessRequestsTable {
  id: Generated<number>;
  email: string;
  requested_username: string;
  message: string | null;
  created_at: Timestamp;
}

export interface AgentsTable {
  id: Generated<number>;
  user_id: number;
  title: string;
  prompt: string;
  /** Wins over the user's connection model and the server's AI_MODEL; null: theirs. */
  model: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TasksTable {
  id: Generated<number>;
  user_id: number;
  title: string;
  description: string | null;
  /** Calendar date, YYYY-MM-DD. */
  due_date: string | null;
  completed: Bool;
  archived: Bool;
  position: number;
  context_id: number | null;
  notes: string | null;
  ai_draft: string | null;
  ai_assisted: Bool;
  created_at: Timestamp;
  updated_at: Timestamp;
  archived_at: NullableTimestamp;
  /** Title, description and notes folded for search (src/server/tasks/search.ts); migration 0008. */
  search_text: string | null;
  /** How many checklist items the task has, and how many are done (kept with every item change). */
  checklist_total: Generated<number>;
  checklist_done: Generated<number>;
  /** The project the task is in (migration 0014); always written, though SQLite cannot say NOT NULL. */
  project_id: number;
  /** How many comments the task has (kept with every comment change). */
  comment_count: Generated<number>;
  /** 'HH:MM' or null (migration 0015); only with a due_date. */
  due_time: ColumnType<string | null, string | null | undefined, string | null>;
  /** The IANA zone due_time is read in: the setter's zone when it was set. */
  due_time_zone: ColumnType<string | null, string | null | undefined, string | null>;
  /** An RFC 5545 RRULE (without the 'RRULE:' prefix) or null; only with a due_date. */
  recurrence: ColumnType<string | null, string | null | undefined, string | null>;
  /** Where the next date counts from: 'due' (default) or 'completion'. */
  recurrence_from: ColumnType<'due' | 'completion', 'due' | 'completion' | undefined, 'due' | 'completion'>;
  /** The section of its project the task is in (migration 0020); null: none. */
  section_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** 1 (urgent) to 4 (none), migration 0018. */
  priority: ColumnType<number, number | undefined, number>;
  /** The task it is a sub-task of (migration 0024), in the same project and section; null: top-level. */
  parent_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** Grows by one with every change to the row (migration 0026): the task's ETag, checked by If-Match. */
  version: Generated<number>;
}

/**
 * A relation between two tasks (migration 0024): `task_id` blocks, relates to or duplicates
 * `other_task_id`. 'blocked_by' is stored as `blocks` from the other side.
 */
export interface TaskRelationsTable {
  id: Generated<number>;
  task_id: number;
  other_task_id: number;
  kind: 'blocks' | 'relates_to' | 'duplicate_of';
  created_by: number | null;
  created_at: Timestamp;
}

/** A person's project template (migration 0024): `data` is its JSON (src/common/templates.ts). */
export interface TemplatesTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  data: string;
  task_count: number;
  created_at: Timestamp;
}

/** A person's label (migration 0018): name_key is the name folded for case, unique per person. */
export interface LabelsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  name_key: string;
  color: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Which labels are on which task (each label's owner put it there). */
export interface TaskLabelsTable {
  task_id: number;
  label_id: number;
}

/** A person's saved filter: a name and the filter part of a list's address. */
export interface SavedFiltersTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  query: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A step of a task (migration 0008); the owner is repeated from the task for scoped queries. */
export interface ChecklistItemsTable {
  id: Generated<number>;
  task_id: number;
  user_id: number;
  title: string;
  done: Bool;
  position: number;
  /** The title folded for search. */
  search_text: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FilesTable {
  id: Generated<number>;
  task_id: number;
  user_id: number;
  original_name: string;
  file_size: BigIntColumn;
  content_type: string;
  /** Generated name in the file store; never derived from the original name. */
  storage_key: string;
  created_at: Timestamp;
}

export interface AiCredentialsTable {
  user_id: number;
  /** AES-256-GCM: base64 of iv | tag | ciphertext. */
  api_key_encrypted: string;
  base_url: string | null;
  model: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AuditLogTable {
  id: Generated<number>;
  actor_id: number | null;
  actor_username: string;
  action: string;
  target_user_id: number | null;
  target_label: string | null;
  created_at: Timestamp;
}

/** rate-limiter-flexible's store (src/server/http/rate-limit.ts): `expire` in epoch ms. */
export interface RateLimitsTable {
  key: string;
  points: number;
  expire: BigIntColumn | null;
}

/** Bumped by triggers on every change to a project's tasks (migration 0014; per user before it). */
export interface ProjectVersionsTable {
  project_id: number;
  version: BigIntColumn;
}

/** The calendar feed (migration 0009): one per user, the secret kept as its SHA-256 only. */
export interface CalendarFeedsTable {
  user_id: number;
  secret_hash: string;
  created_at: Timestamp;
}

/** One agent run (issue 14): who, what, how long, what it cost and how it ended. */
export interface AiRunsTable {
  id: Generated<number>;
  user_id: number;
  task_id: number;
  agent_id: number | null;
  agent_title: string | null;
  model: string;
  started_at: Timestamp;
  duration_ms: number | null;
  input_tokens: Generated<number>;
  output_tokens: Generated<number>;
  status: string;
  error: string | null;
  /** A JSON array of strings. */
  notes: Generated<string>;
}

/** A change a run proposed; nothing happens to the task until the person applies it. */
export interface AiProposalsTable {
  id: Generated<number>;
  run_id: number;
  user_id: number;
  task_id: number;
  tool: string;
  /** JSON: as checked when valid, as the model sent them when not. */
  arguments: string;
  status: string;
  error: string | null;
  created_at: Timestamp;
}

/**
 * A project (migration 0013): a list shared with members. Each user has exactly one Inbox
 * (is_inbox), made with the account and deleted only with it.
 */
export interface ProjectsTable {
  id: Generated<number>;
  name: string;
  /** One of PROJECT_COLORS (src/common/projects.ts). */
  color: string;
  owner_id: number;
  is_inbox: Bool;
  archived: Bool;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A named, ordered group of a project's tasks (migration 0020, issue 23). */
export interface SectionsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  /** 0 for the first; renumbered whole on every move (a project has at most 200). */
  position: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Who may do what in a project; the owner has a row too (role 'owner'), so a role is one lookup. */
export interface ProjectMembersTable {
  project_id: number;
  user_id: number;
  /** One of PROJECT_ROLES (src/common/projects.ts). */
  role: string;
  added_at: Timestamp;
}

/** Who a task is assigned to (migration 0014): members of its project. */
export interface TaskAssigneesTable {
  task_id: number;
  user_id: number;
  assigned_at: Timestamp;
}

/** A comment on a task; the author is null once their account is deleted ('Deleted user'). */
export interface CommentsTable {
  id: Generated<number>;
  task_id: number;
  author_id: number | null;
  /** Markdown as written (trimmed); rendered safely by the client. */
  body: string;
  created_at: Timestamp;
  edited_at: NullableTimestamp;
}

/** The project members a comment mentions with `@username` (the notifications issue delivers them). */
export interface CommentMentionsTable {
  comment_id: number;
  user_id: number;
}

/** What happened to a task, written in the transaction of the change (kinds in src/common/activity.ts). */
export interface ActivityTable {
  id: Generated<number>;
  task_id: number;
  actor_id: number | null;
  kind: string;
  /** JSON, by kind. */
  data: string;
  at: Timestamp;
}

/**
 * The VAPID key pair (migration 0017) when VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY are unset: one row,
 * name 'vapid', inserted if absent by whichever instance starts first (decision 036).
 * Base64url: the public key an uncompressed P-256 point, the private key its 32-byte scalar.
 */
export interface PushKeysTable {
  name: string;
  public_key: string;
  private_key: string;
  created_at: Timestamp;
}

/** One browser's Web Push subscription (migration 0017); the endpoint is the push service's URL. */
export interface PushSubscriptionsTable {
  id: Generated<number>;
  user_id: number;
  endpoint: string;
  /** The browser's P-256 public key, base64url. */
  p256dh: string;
  /** The browser's 16-byte auth secret, base64url. */
  auth: string;
  created_at: Timestamp;
}

/** The job queue (migration 0016, decision 034): one row per job, claimed with a lease. */
export interface JobsTable {
  id: Generated<number>;
  /** Unique: the same job is never enqueued twice. */
  key: string;
  kind: string;
  /** JSON, by kind. */
  payload: string;
  state: 'pending' | 'done' | 'failed';
  run_at: Timestamp;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: number;
  /** The claiming instance's lease: another may claim the job once it has passed. */
  locked_until: NullableTimestamp;
  /** The claim's random token: only its holder may finish the job. */
  locked_by: string | null;
  last_error: string | null;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
}

/** A task's reminder: a fixed moment (`at`) or minutes before each due date-time. */
export interface RemindersTable {
  id: Generated<number>;
  task_id: number;
  at: NullableTimestamp;
  relative_minutes: number | null;
  fired_at: NullableTimestamp;
  created_by: number | null;
  created_at: Timestamp;
}

/** One per person and event (src/common/notifications.ts kinds). */
export interface NotificationsTable {
  id: Generated<number>;
  user_id: number;
  kind: string;
  task_id: number | null;
  project_id: number | null;
  actor_id: number | null;
  title: string;
  body: string;
  /** JSON: what the e-mail needs beyond title and body (the digest's tasks). */
  data: string | null;
  created_at: Timestamp;
  read_at: NullableTimestamp;
}

/** A person's channels; defaults (DEFAULT_NOTIFICATION_SETTINGS) until they save some. */
export interface NotificationSettingsTable {
  user_id: number;
  /** JSON: NotificationSettings. */
  settings: string;
  email_digest: Bool;
  updated_at: Timestamp;
}

/** A person's webhook (issue 24): a project's events, or (project_id null) their Inbox's and assigned tasks'. */
export interface WebhooksTable {
  id: Generated<number>;
  user_id: number;
  project_id: number | null;
  url: string;
  /** JSON: WebhookEventType[]. */
  events: string;
  /** Sealed with the secret box (agents/crypto.ts). */
  secret: string;
  active: Bool;
  failures_in_a_row: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One attempt at one event for one webhook; 'pending' is the attempt to come. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  job_key: string;
  event_id: string;
  type: string;
  body: string;
  attempt: number;
  status: 'pending' | 'succeeded' | 'failed';
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  at: Timestamp;
}

/**
 * What a CalDAV client sent for a task (migration 0025, decision 052): its UID and resource name,
 * its iCalendar text (kept so content Tasklane cannot show survives), and the UID of a parent that
 * has not arrived yet. No row: a task made in the app, named by its id.
 */
export interface CaldavObjectsTable {
  task_id: number;
  uid: string;
  href: string;
  ical: string | null;
  parent_uid: string | null;
  /** The task's position when the client's X-APPLE-SORT-ORDER was taken (null: none taken). */
  sort_position: ColumnType<number | null, number | null | undefined, number | null>;
}

/** A person's view of a project as a CalDAV collection: the sequence sync tokens count. */
export interface CaldavCollectionsTable {
  user_id: number;
  project_id: number;
  seq: number | string;
  min_seq: number | string;
  /** What the collection's content depends on, cheap to read: when it differs, the entries are refreshed. */
  fingerprint: string;
  refreshed_at: Timestamp;
}

/** One resource of a person's collection: its ETag and the sequence of its last change (or deletion). */
export interface CaldavEntriesTable {
  user_id: number;
  project_id: number;
  href: string;
  etag: string;
  seq: number | string;
  deleted: DefaultedBool;
}

/**
 * A request sent with an Idempotency-Key (issue 31), kept 24 hours per person: while `status` is
 * null the first is still running; then its answer, given again to a repeat.
 */
export interface IdempotencyKeysTable {
  user_id: number;
  key: string;
  method: string;
  path: string;
  body_hash: string;
  status: number | null;
  response_body: string | null;
  /** JSON: the answer's headers worth repeating. */
  response_headers: string | null;
  created_at: Timestamp;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  api_tokens: ApiTokensTable;
  two_factor_recovery_codes: TwoFactorRecoveryCodesTable;
  two_factor_challenges: TwoFactorChallengesTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  oidc_identities: OidcIdentitiesTable;
  password_reset_tokens: PasswordResetTokensTable;
  access_requests: AccessRequestsTable;
  agents: AgentsTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  sections: SectionsTable;
  tasks: TasksTable;
  project_versions: ProjectVersionsTable;
  task_assignees: TaskAssigneesTable;
  comments: CommentsTable;
  comment_mentions: CommentMentionsTable;
  activity: ActivityTable;
  checklist_items: ChecklistItemsTable;
  calendar_feeds: CalendarFeedsTable;
  files: FilesTable;
  ai_credentials: AiCredentialsTable;
  ai_runs: AiRunsTable;
  ai_proposals: AiProposalsTable;
  audit_log: AuditLogTable;
  rate_limits: RateLimitsTable;
  jobs: JobsTable;
  reminders: RemindersTable;
  notifications: NotificationsTable;
  notification_settings: NotificationSettingsTable;
  push_keys: PushKeysTable;
  push_subscriptions: PushSubscriptionsTable;
  labels: LabelsTable;
  task_labels: TaskLabelsTable;
  task_relations: TaskRelationsTable;
  templates: TemplatesTable;
  saved_filters: SavedFiltersTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  caldav_objects: CaldavObjectsTable;
  caldav_collections: CaldavCollectionsTable;
  caldav_entries: CaldavEntriesTable;
  idempotency_keys: IdempotencyKeysTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type TaskRow = Selectable<TasksTable>;
export type NewTask = Insertable<TasksTable>;
export type TaskUpdate = Updateable<TasksTable>;
export type LabelRow = Selectable<LabelsTable>;
export type SavedFilterRow = Selectable<SavedFiltersTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type AgentRow = Selectable<AgentsTable>;
export type AiRunRow = Selectable<AiRunsTable>;
export type AiProposalRow = Selectable<AiProposalsTable>;
export type ChecklistItemRow = Selectable<ChecklistItemsTable>;
export type FileRow = Selectable<FilesTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type AccessRequestRow = Selectable<AccessRequestsTable>;
export type PasskeyRow = Selectable<PasskeysTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type SectionRow = Selectable<SectionsTable>;
export type ProjectMemberRow = Selectable<ProjectMembersTable>;
export type CommentRow = Selectable<CommentsTable>;
export type ActivityRow = Selectable<ActivityTable>;
