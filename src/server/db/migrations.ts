import crypto from 'node:crypto';
import {
  type ColumnDefinitionBuilder,
  type Kysely,
  type Migration,
  type MigrationProvider,
  sql,
} from 'kysely';

import { isTimeZone } from '../../common/time-zone';
import { ianaTimeZone } from '../../common/time-zone-names';

export type DialectName = 'sqlite' | 'postgres';

/** The dialect differences of the DDL, in one place. */
function columns(dialect: DialectName) {
  const pg = dialect === 'postgres';
  return {
    id: (c: ColumnDefinitionBuilder) =>
      pg ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    bool: pg ? ('boolean' as const) : ('integer' as const),
    falseValue: pg ? sql`false` : sql`0`,
    trueValue: pg ? sql`true` : sql`1`,
    timestamp: pg ? ('timestamptz' as const) : ('text' as const),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's schema types
type AnyDb = Kysely<any>;

function initial(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'integer', c.id)
        .addColumn('username', 'text', (col) => col.notNull())
        .addColumn('first_name', 'text', (col) => col.notNull())
        .addColumn('email', 'text')
        .addColumn('password_hash', 'text', (col) => col.notNull())
        .addColumn('is_admin', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .addColumn('is_suspended', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .addColumn('is_bootstrap', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      // Usernames and e-mail addresses are unique regardless of case.
      await sql`create unique index users_username_key on users (lower(username))`.execute(db);
      await sql`create unique index users_email_key on users (lower(email))`.execute(db);

      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (col) => col.primaryKey())
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('last_used_at', c.timestamp, (col) => col.notNull())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

      await db.schema
        .createTable('password_reset_tokens')
        .addColumn('token_hash', 'text', (col) => col.primaryKey())
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .addColumn('used_at', c.timestamp)
        .execute();
      await db.schema
        .createIndex('password_reset_tokens_user_idx')
        .on('password_reset_tokens')
        .column('user_id')
        .execute();

      await db.schema
        .createTable('access_requests')
        .addColumn('id', 'integer', c.id)
        .addColumn('email', 'text', (col) => col.notNull())
        .addColumn('requested_username', 'text', (col) => col.notNull())
        .addColumn('message', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      // One pending request per address.
      await sql`create unique index access_requests_email_key on access_requests (lower(email))`.execute(db);

      await db.schema
        .createTable('agents')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('title', 'text', (col) => col.notNull())
        .addColumn('prompt', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('agents_user_idx').on('agents').columns(['user_id', 'id']).execute();

      await db.schema
        .createTable('tasks')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('title', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('due_date', 'text')
        .addColumn('completed', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .addColumn('archived', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .addColumn('position', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('context_id', 'integer', (col) => col.references('agents.id').onDelete('set null'))
        .addColumn('notes', 'text')
        .addColumn('ai_draft', 'text')
        .addColumn('ai_assisted', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .addColumn('archived_at', c.timestamp)
        .execute();
      // The list query: one user's tasks by position; the archive: by archived_at.
      await db.schema
        .createIndex('tasks_user_position_idx')
        .on('tasks')
        .columns(['user_id', 'position'])
        .execute();
      await db.schema
        .createIndex('tasks_user_archived_idx')
        .on('tasks')
        .columns(['user_id', 'archived', 'archived_at'])
        .execute();
      await db.schema.createIndex('tasks_context_idx').on('tasks').column('context_id').execute();

      await db.schema
        .createTable('files')
        .addColumn('id', 'integer', c.id)
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('original_name', 'text', (col) => col.notNull())
        .addColumn('file_size', 'bigint', (col) => col.notNull())
        .addColumn('content_type', 'text', (col) => col.notNull())
        .addColumn('storage_key', 'text', (col) => col.notNull().unique())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('files_task_idx').on('files').column('task_id').execute();
      await db.schema.createIndex('files_user_idx').on('files').column('user_id').execute();

      await db.schema
        .createTable('ai_credentials')
        .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('api_key_encrypted', 'text', (col) => col.notNull())
        .addColumn('base_url', 'text')
        .addColumn('model', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();

      await db.schema
        .createTable('audit_log')
        .addColumn('id', 'integer', c.id)
        .addColumn('actor_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('actor_username', 'text', (col) => col.notNull())
        .addColumn('action', 'text', (col) => col.notNull())
        .addColumn('target_user_id', 'integer')
        .addColumn('target_label', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('audit_log_created_idx').on('audit_log').column('created_at').execute();

      await db.schema
        .createTable('rate_limits')
        .addColumn('key', 'text', (col) => col.primaryKey())
        .addColumn('hits', 'integer', (col) => col.notNull())
        .addColumn('window_ends_at', 'bigint', (col) => col.notNull())
        .execute();
    },
  };
}

/**
 * A per-user counter that every change to a user's tasks bumps, whoever makes it (any feature, a
 * foreign-key action, an operator's SQL): the task lists are served from a cache while it holds still.
 * No foreign key to users: the rows of a user being deleted would otherwise be re-created mid-delete.
 */
function taskVersions(dialect: DialectName): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('task_versions')
        .addColumn('user_id', 'integer', (col) => col.primaryKey())
        .addColumn('version', 'bigint', (col) => col.notNull())
        .execute();
      if (dialect === 'postgres') {
        // One statement-level trigger per event, so reordering 1,000 tasks bumps the counter once.
        await sql`create function tasklane_bump_task_versions() returns trigger language plpgsql as $$
          begin
            insert into task_versions (user_id, version)
              select distinct user_id, 1 from changed_rows
              on conflict (user_id) do update set version = task_versions.version + 1;
            return null;
          end $$`.execute(db);
        for (const [event, table] of [
          ['insert', 'new'],
          ['update', 'new'],
          ['delete', 'old'],
        ] as const) {
          await sql`create trigger ${sql.raw(`tasks_version_${event}`)} after ${sql.raw(event)} on tasks
            referencing ${sql.raw(table)} table as changed_rows
            for each statement execute function tasklane_bump_task_versions()`.execute(db);
        }
        return;
      }
      for (const [event, row] of [
        ['insert', 'new'],
        ['update', 'new'],
        ['delete', 'old'],
      ] as const) {
        await sql`create trigger ${sql.raw(`tasks_version_${event}`)} after ${sql.raw(event)} on tasks begin
            insert into task_versions (user_id, version) values (${sql.raw(row)}.user_id, 1)
              on conflict (user_id) do update set version = version + 1;
          end`.execute(db);
      }
    },
  };
}

/**
 * Rate-limit counters move to rate-limiter-flexible's layout (key, points, expire in ms), one table
 * shared by every limit through key prefixes; the old fixed-window counters are dropped.
 */
function rateLimiterStore(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.dropTable('rate_limits').execute();
      await db.schema
        .createTable('rate_limits')
        .addColumn('key', 'varchar(255)', (col) => col.primaryKey())
        .addColumn('points', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('expire', 'bigint')
        .execute();
    },
  };
}

/**
 * Issue 12: personal API tokens (hashed like session ids), and what "Your devices" shows of a
 * session: a public id (random, not the secret), the user agent and address of the sign-in.
 * Sessions from before get a public id here.
 */
function apiTokensAndDevices(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('api_tokens')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('token_hash', 'text', (col) => col.notNull().unique())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('expires_at', c.timestamp)
        .addColumn('last_used_at', c.timestamp)
        .execute();
      await db.schema.createIndex('api_tokens_user_idx').on('api_tokens').column('user_id').execute();

      // SQLite cannot add a NOT NULL column without a default: the application always writes one.
      await db.schema.alterTable('sessions').addColumn('public_id', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('ip', 'text').execute();
      const existing = await db.selectFrom('sessions').select('id_hash').execute();
      for (const { id_hash } of existing) {
        await db
          .updateTable('sessions')
          .set({ public_id: crypto.randomBytes(16).toString('base64url') })
          .where('id_hash', '=', id_hash)
          .execute();
      }
      await db.schema
        .createIndex('sessions_public_id_key')
        .on('sessions')
        .column('public_id')
        .unique()
        .execute();
    },
  };
}

/**
 * Issue 12: passkeys (WebAuthn credentials) and the challenges of ceremonies under way, kept in the
 * database (hashed) so that several instances can serve one sign-in.
 */
function passkeys(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('passkeys')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('credential_id', 'text', (col) => col.notNull().unique())
        .addColumn('public_key', 'text', (col) => col.notNull())
        .addColumn('counter', 'bigint', (col) => col.notNull().defaultTo(0))
        .addColumn('transports', 'text', (col) => col.notNull().defaultTo('[]'))
        .addColumn('user_handle', 'text', (col) => col.notNull())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('last_used_at', c.timestamp)
        .execute();
      await db.schema.createIndex('passkeys_user_idx').on('passkeys').column('user_id').execute();

      await db.schema
        .createTable('webauthn_challenges')
        .addColumn('challenge_hash', 'text', (col) => col.primaryKey())
        .addColumn('purpose', 'text', (col) => col.notNull())
        .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('cascade'))
        .addColumn('user_handle', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('webauthn_challenges_expires_idx')
        .on('webauthn_challenges')
        .column('expires_at')
        .execute();
    },
  };
}

/**
 * Issue 12: two-factor sign-in (TOTP). On users: whether it is on, the secret (in force, or being
 * set up), and the last accepted step, so a code is accepted once whichever instance sees it.
 * Recovery codes and pending second steps are stored as SHA-256 hashes in tables of their own.
 */
function twoFactor(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('users')
        .addColumn('two_factor_enabled', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .execute();
      await db.schema.alterTable('users').addColumn('two_factor_secret', 'text').execute();
      await db.schema.alterTable('users').addColumn('two_factor_last_step', 'integer').execute();

      await db.schema
        .createTable('two_factor_recovery_codes')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('code_hash', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('two_factor_recovery_codes_user_code_key')
        .on('two_factor_recovery_codes')
        .columns(['user_id', 'code_hash'])
        .unique()
        .execute();

      await db.schema
        .createTable('two_factor_challenges')
        .addColumn('id_hash', 'text', (col) => col.primaryKey())
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('two_factor_challenges_user_idx')
        .on('two_factor_challenges')
        .column('user_id')
        .execute();
    },
  };
}

/**
 * Issue 12, single sign-on: which OpenID Connect identity (issuer and subject) belongs to which user.
 * One identity names one user; a user may have more (another provider, later).
 */
function oidcIdentities(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('oidc_identities')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('issuer', 'text', (col) => col.notNull())
        .addColumn('subject', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('last_used_at', c.timestamp)
        .addUniqueConstraint('oidc_identities_issuer_subject_key', ['issuer', 'subject'])
        .execute();
      await db.schema
        .createIndex('oidc_identities_user_idx')
        .on('oidc_identities')
        .column('user_id')
        .execute();
    },
  };
}

/**
 * Issue 13: checklist items, and what search reads. `search_text` holds the searchable words of a
 * task (title, description, notes) or an item, folded (lower case, no accents) by the application
 * (src/server/tasks/search.ts): neither database folds accents without an extension. Tasks keep
 * their checklist's counts, so the list needs no join. Existing tasks are folded here.
 */
function searchAndChecklists(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('tasks').addColumn('search_text', 'text').execute();
      await db.schema
        .alterTable('tasks')
        .addColumn('checklist_total', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('tasks')
        .addColumn('checklist_done', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('checklist_items')
        .addColumn('id', 'integer', c.id)
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('title', 'text', (col) => col.notNull())
        .addColumn('done', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .addColumn('position', 'integer', (col) => col.notNull())
        .addColumn('search_text', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('checklist_items_task_idx')
        .on('checklist_items')
        .columns(['task_id', 'position'])
        .execute();
      const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
      let lastId = 0;
      for (;;) {
        const rows = await db
          .selectFrom('tasks')
          .select(['id', 'title', 'description', 'notes'])
          .where('id', '>', lastId)
          .orderBy('id')
          .limit(500)
          .execute();
        if (rows.length === 0) break;
        for (const row of rows) {
          await db
            .updateTable('tasks')
            .set({ search_text: fold([row.title, row.description, row.notes].filter(Boolean).join('\n')) })
            .where('id', '=', row.id)
            .execute();
        }
        lastId = rows[rows.length - 1]!.id;
      }
    },
  };
}

/**
 * Issue 13: the calendar feed. One per user; only the SHA-256 of its secret is kept, so the address
 * is shown once, when it is made. Making a new one replaces the row (and so revokes the old address).
 */
function calendarFeeds(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('calendar_feeds')
        .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('secret_hash', 'text', (col) => col.notNull().unique())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
    },
  };
}

/** Issue 14: every agent run is kept, with its usage and the changes it proposed; an agent may name its model. */
function aiRuns(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('agents').addColumn('model', 'text').execute();
      await db.schema
        .createTable('ai_runs')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('agent_id', 'integer', (col) => col.references('agents.id').onDelete('set null'))
        .addColumn('agent_title', 'text')
        .addColumn('model', 'text', (col) => col.notNull())
        .addColumn('started_at', c.timestamp, (col) => col.notNull())
        .addColumn('duration_ms', 'integer')
        .addColumn('input_tokens', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('output_tokens', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('error', 'text')
        .addColumn('notes', 'text', (col) => col.notNull().defaultTo('[]'))
        .execute();
      await db.schema.createIndex('ai_runs_task').on('ai_runs').columns(['task_id', 'started_at']).execute();
      await db.schema.createIndex('ai_runs_user').on('ai_runs').columns(['user_id', 'started_at']).execute();
      await db.schema
        .createTable('ai_proposals')
        .addColumn('id', 'integer', c.id)
        .addColumn('run_id', 'integer', (col) => col.notNull().references('ai_runs.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('tool', 'text', (col) => col.notNull())
        .addColumn('arguments', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('ai_proposals_run').on('ai_proposals').column('run_id').execute();
    },
  };
}

/**
 * Issue 15: a moved task takes a position between its neighbours, so positions become fractional.
 * SQLite's INTEGER affinity already keeps 2.5 as a REAL; PostgreSQL's column changes type.
 */
function fractionalPositions(dialect: DialectName): Migration {
  return {
    async up(db: AnyDb) {
      if (dialect === 'postgres') {
        await sql`alter table tasks alter column position type double precision`.execute(db);
      }
    },
  };
}

/**
 * Issue 20: MCP's complete_task set `completed` without `archived`, so those tasks were in neither
 * the list nor the archive. They join the archive, as archived at their last change.
 */
function completedTasksArchived(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await sql`update tasks set archived = completed, archived_at = updated_at
        where archived = ${c.falseValue} and completed <> archived`.execute(db);
    },
  };
}

/**
 * Issue 21: projects and their members. The owner is a member too (role 'owner'), so a role is one
 * lookup. Each user has exactly one Inbox (a partial unique index); every existing user gets theirs
 * here, owned and joined at their account's creation.
 */
function projects(dialect: DialectName): Migration {
  const c = columns(dialect);
  const trueValue = dialect === 'postgres' ? sql`true` : sql`1`;
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('projects')
        .addColumn('id', 'integer', c.id)
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('color', 'text', (col) => col.notNull())
        .addColumn('owner_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('is_inbox', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .addColumn('archived', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await sql`create unique index projects_one_inbox on projects (owner_id) where is_inbox = ${trueValue}`.execute(
        db,
      );
      await db.schema
        .createTable('project_members')
        .addColumn('project_id', 'integer', (col) =>
          col.notNull().references('projects.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('added_at', c.timestamp, (col) => col.notNull())
        .addPrimaryKeyConstraint('project_members_pkey', ['project_id', 'user_id'])
        .execute();
      await db.schema
        .createIndex('project_members_user')
        .on('project_members')
        .columns(['user_id', 'project_id'])
        .execute();
      await sql`insert into projects (name, color, owner_id, is_inbox, archived, created_at, updated_at)
        select 'Inbox', 'grey', id, ${trueValue}, ${c.falseValue}, created_at, created_at from users`.execute(
        db,
      );
      await sql`insert into project_members (project_id, user_id, role, added_at)
        select id, owner_id, 'owner', created_at from projects`.execute(db);
    },
  };
}

/**
 * Issue 21: tasks move into projects. Each task gets `project_id` (its creator's Inbox for every
 * existing one) and positions count per project; assignees, comments (with their mentions) and the
 * activity log are tables of their own. The list cache's counter moves from the creator to the
 * project (`project_versions`), bumped by triggers on tasks as before; a move bumps both projects.
 * SQLite cannot add a NOT NULL column with a foreign key: there the repository always writes one.
 */
function tasksInProjects(dialect: DialectName): Migration {
  const c = columns(dialect);
  const pg = dialect === 'postgres';
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('tasks')
        .addColumn('project_id', 'integer', (col) => col.references('projects.id').onDelete('cascade'))
        .execute();
      await db.schema
        .alterTable('tasks')
        .addColumn('comment_count', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      await sql`update tasks set project_id = (select id from projects
        where projects.owner_id = tasks.user_id and projects.is_inbox = ${pg ? sql`true` : sql`1`})`.execute(
        db,
      );
      if (pg) await sql`alter table tasks alter column project_id set not null`.execute(db);
      await db.schema.dropIndex('tasks_user_position_idx').execute();
      await db.schema.dropIndex('tasks_user_archived_idx').execute();
      await db.schema
        .createIndex('tasks_project_position_idx')
        .on('tasks')
        .columns(['project_id', 'archived', 'position', 'id'])
        .execute();
      await db.schema
        .createIndex('tasks_project_archived_idx')
        .on('tasks')
        .columns(['project_id', 'archived', 'archived_at'])
        .execute();
      await db.schema.createIndex('tasks_user_idx').on('tasks').column('user_id').execute();

      await db.schema
        .createTable('task_assignees')
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('assigned_at', c.timestamp, (col) => col.notNull())
        .addPrimaryKeyConstraint('task_assignees_pkey', ['task_id', 'user_id'])
        .execute();
      await db.schema
        .createIndex('task_assignees_user')
        .on('task_assignees')
        .columns(['user_id', 'task_id'])
        .execute();

      await db.schema
        .createTable('comments')
        .addColumn('id', 'integer', c.id)
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        // A deleted user's comments stay, shown as 'Deleted user'.
        .addColumn('author_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('body', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('edited_at', c.timestamp)
        .execute();
      await db.schema.createIndex('comments_task').on('comments').columns(['task_id', 'id']).execute();
      await db.schema
        .createTable('comment_mentions')
        .addColumn('comment_id', 'integer', (col) =>
          col.notNull().references('comments.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('comment_mentions_pkey', ['comment_id', 'user_id'])
        .execute();
      await db.schema.createIndex('comment_mentions_user').on('comment_mentions').column('user_id').execute();

      await db.schema
        .createTable('activity')
        .addColumn('id', 'integer', c.id)
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('actor_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('kind', 'text', (col) => col.notNull())
        /** JSON: what changed (kind by kind, src/common/activity.ts). */
        .addColumn('data', 'text', (col) => col.notNull())
        .addColumn('at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('activity_task').on('activity').columns(['task_id', 'id']).execute();

      // The list cache's counter, per project now.
      for (const event of ['insert', 'update', 'delete']) {
        await sql`drop trigger ${sql.raw(`tasks_version_${event}`)}${pg ? sql` on tasks` : sql``}`.execute(
          db,
        );
      }
      if (pg) await sql`drop function tasklane_bump_task_versions()`.execute(db);
      await db.schema.dropTable('task_versions').execute();
      await db.schema
        .createTable('project_versions')
        .addColumn('project_id', 'integer', (col) => col.primaryKey())
        .addColumn('version', 'bigint', (col) => col.notNull())
        .execute();
      if (pg) {
        await sql`create function tasklane_bump_project_versions() returns trigger language plpgsql as $$
          begin
            insert into project_versions (project_id, version)
              select distinct project_id, 1 from changed_rows
              on conflict (project_id) do update set version = project_versions.version + 1;
            return null;
          end $$`.execute(db);
        // An update is seen twice, through the rows before and after it: a move bumps both projects.
        for (const [name, event, table] of [
          ['insert', 'insert', 'new'],
          ['update', 'update', 'new'],
          ['update_old', 'update', 'old'],
          ['delete', 'delete', 'old'],
        ] as const) {
          await sql`create trigger ${sql.raw(`tasks_version_${name}`)} after ${sql.raw(event)} on tasks
            referencing ${sql.raw(table)} table as changed_rows
            for each statement execute function tasklane_bump_project_versions()`.execute(db);
        }
        return;
      }
      const bump = (row: string) => sql`insert into project_versions (project_id, version)
        values (${sql.raw(row)}.project_id, 1)
        on conflict (project_id) do update set version = version + 1;`;
      await sql`create trigger tasks_version_insert after insert on tasks begin ${bump('new')} end`.execute(
        db,
      );
      await sql`create trigger tasks_version_update after update on tasks begin
        ${bump('new')}
        insert into project_versions (project_id, version) select old.project_id, 1
          where old.project_id is not new.project_id
          on conflict (project_id) do update set version = version + 1;
        end`.execute(db);
      await sql`create trigger tasks_version_delete after delete on tasks begin ${bump('old')} end`.execute(
        db,
      );
    },
  };
}

/**
 * Web Push (issue 22, decision 036): the server's VAPID key pair when the environment gives none,
 * one row that every instance inserts if absent and then reads, so all sign with the same key; and
 * each browser's push subscription, one row per endpoint.
 */
function push(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('push_keys')
        .addColumn('name', 'text', (col) => col.primaryKey())
        .addColumn('public_key', 'text', (col) => col.notNull())
        .addColumn('private_key', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createTable('push_subscriptions')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('endpoint', 'text', (col) => col.notNull().unique())
        .addColumn('p256dh', 'text', (col) => col.notNull())
        .addColumn('auth', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('push_subscriptions_user')
        .on('push_subscriptions')
        .column('user_id')
        .execute();
    },
  };
}

/**
 * Issue 22: time and recurring tasks. A user's IANA time zone (null: not yet set, read as 'UTC');
 * a task's due time ('HH:MM') with the zone it was set in, so it never drifts; its RRULE and
 * whether the next date counts from the due date or from completion (decision 032).
 */
function timeAndRecurrence(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('users').addColumn('time_zone', 'text').execute();
      await db.schema.alterTable('tasks').addColumn('due_time', 'text').execute();
      await db.schema.alterTable('tasks').addColumn('due_time_zone', 'text').execute();
      await db.schema.alterTable('tasks').addColumn('recurrence', 'text').execute();
      await db.schema
        .alterTable('tasks')
        .addColumn('recurrence_from', 'text', (col) => col.notNull().defaultTo('due'))
        .execute();
    },
  };
}

/**
 * Issue 22 (decisions 034 and 035): the job queue every instance polls, reminders, one notification
 * per person and event, and each person's channels. A job's `key` is unique, so nothing is ever
 * enqueued twice; `locked_until` is the lease of the instance that claimed it.
 */
function notifications(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'integer', c.id)
        .addColumn('key', 'text', (col) => col.notNull().unique())
        .addColumn('kind', 'text', (col) => col.notNull())
        /** JSON, by kind. */
        .addColumn('payload', 'text', (col) => col.notNull())
        /** 'pending', 'done' or 'failed' (tries exhausted). */
        .addColumn('state', 'text', (col) => col.notNull())
        .addColumn('run_at', c.timestamp, (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (col) => col.notNull())
        .addColumn('locked_until', c.timestamp)
        .addColumn('locked_by', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('finished_at', c.timestamp)
        .execute();
      await db.schema.createIndex('jobs_due').on('jobs').columns(['state', 'run_at']).execute();

      await db.schema
        .createTable('reminders')
        .addColumn('id', 'integer', c.id)
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('at', c.timestamp)
        .addColumn('relative_minutes', 'integer')
        .addColumn('fired_at', c.timestamp)
        .addColumn('created_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('reminders_task').on('reminders').columns(['task_id', 'id']).execute();

      await db.schema
        .createTable('notifications')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('task_id', 'integer', (col) => col.references('tasks.id').onDelete('cascade'))
        .addColumn('project_id', 'integer', (col) => col.references('projects.id').onDelete('cascade'))
        .addColumn('actor_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('title', 'text', (col) => col.notNull())
        .addColumn('body', 'text', (col) => col.notNull())
        /** JSON: what the e-mail needs beyond title and body (the digest's tasks). */
        .addColumn('data', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('read_at', c.timestamp)
        .execute();
      await db.schema
        .createIndex('notifications_user')
        .on('notifications')
        .columns(['user_id', 'id'])
        .execute();
      await db.schema
        .createIndex('notifications_user_unread')
        .on('notifications')
        .columns(['user_id', 'read_at'])
        .execute();

      await db.schema
        .createTable('notification_settings')
        .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
        /** JSON: NotificationSettings (src/common/notifications.ts). */
        .addColumn('settings', 'text', (col) => col.notNull())
        /** settings.email.digest, as a column the digest sweep can select by. */
        .addColumn('email_digest', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
    },
  };
}

/**
 * Priorities, labels and saved filters (issue 23, decision 037). A label belongs to one person;
 * `name_key` is its name folded for case, unique per person. task_labels says who tagged a task
 * with what through the label's owner; both go with the task or the label.
 */
function prioritiesAndLabels(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('tasks')
        .addColumn('priority', 'integer', (col) => col.notNull().defaultTo(4))
        .execute();
      await db.schema
        .createTable('labels')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('name_key', 'text', (col) => col.notNull())
        .addColumn('color', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('labels_user_name')
        .on('labels')
        .columns(['user_id', 'name_key'])
        .unique()
        .execute();
      await db.schema.createIndex('labels_name_key').on('labels').column('name_key').execute();
      await db.schema
        .createTable('task_labels')
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('task_labels_pkey', ['task_id', 'label_id'])
        .execute();
      await db.schema
        .createIndex('task_labels_label')
        .on('task_labels')
        .columns(['label_id', 'task_id'])
        .execute();
      await db.schema
        .createTable('saved_filters')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('query', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('saved_filters_user').on('saved_filters').column('user_id').execute();
    },
  };
}

/**
 * Issue 23: sections, the ordered groups of a project's tasks (the Inbox's too). A task is in one
 * section of its project or in none; deleting a section leaves its tasks in none (the service does
 * it in the deletion's transaction; the foreign key's SET NULL is the database's own guard).
 */
function sections(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('sections')
        .addColumn('id', 'integer', c.id)
        .addColumn('project_id', 'integer', (col) =>
          col.notNull().references('projects.id').onDelete('cascade'),
        )
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('position', 'integer', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('sections_project')
        .on('sections')
        .columns(['project_id', 'position'])
        .execute();
      await db.schema
        .alterTable('tasks')
        .addColumn('section_id', 'integer', (col) => col.references('sections.id').onDelete('set null'))
        .execute();
      await db.schema.createIndex('tasks_section').on('tasks').column('section_id').execute();
    },
  };
}

/**
 * Issue 24: webhooks (one person's, for one project or for their Inbox and assigned tasks) and
 * their delivery log, one row per attempt (kept 14 days). The sending is a job (decision 041).
 */
function webhooks(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('project_id', 'integer', (col) => col.references('projects.id').onDelete('cascade'))
        .addColumn('url', 'text', (col) => col.notNull())
        /** JSON: the event types it gets. */
        .addColumn('events', 'text', (col) => col.notNull())
        /** The signing secret, sealed with the AI secret box. */
        .addColumn('secret', 'text', (col) => col.notNull())
        .addColumn('active', c.bool, (col) => col.notNull())
        .addColumn('failures_in_a_row', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('webhooks_user').on('webhooks').column('user_id').execute();
      await db.schema.createIndex('webhooks_project').on('webhooks').column('project_id').execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'integer', c.id)
        .addColumn('webhook_id', 'integer', (col) =>
          col.notNull().references('webhooks.id').onDelete('cascade'),
        )
        /** The delivery job's key: one job per event and webhook (and per redelivery). */
        .addColumn('job_key', 'text', (col) => col.notNull())
        .addColumn('event_id', 'text', (col) => col.notNull())
        .addColumn('type', 'text', (col) => col.notNull())
        /** The body sent, byte for byte in every attempt (a redelivery sends it again). */
        .addColumn('body', 'text', (col) => col.notNull())
        .addColumn('attempt', 'integer', (col) => col.notNull())
        /** 'pending', 'succeeded' or 'failed'. */
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('duration_ms', 'integer')
        .addColumn('error', 'text')
        .addColumn('at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_webhook')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'id'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_job')
        .on('webhook_deliveries')
        .columns(['job_key', 'status'])
        .execute();
      await db.schema.createIndex('webhook_deliveries_at').on('webhook_deliveries').column('at').execute();
    },
  };
}

/**
 * Issue 24: an API token's limits. `can_write` false: the token only reads. `project_ids`: a JSON
 * array of the projects it is limited to, or null for all of its owner's projects. Kept as a list
 * on the token, not a join table whose rows a deleted project would take with it: a token limited
 * to one project must never widen to all of them when that project goes.
 */
function tokenLimits(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('api_tokens')
        .addColumn('can_write', c.bool, (col) => col.notNull().defaultTo(c.trueValue))
        .execute();
      await db.schema.alterTable('api_tokens').addColumn('project_ids', 'text').execute();
    },
  };
}

/**
 * Issue 28: whether the person chose their time zone (the settings, or a script), or their browser
 * set it, which the app keeps following. A zone set before this was never changed by the app
 * again: it counts as chosen.
 */
function timeZoneChosen(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('users')
        .addColumn('time_zone_chosen', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .execute();
      await db
        .updateTable('users')
        .set({ time_zone_chosen: c.trueValue })
        .where('time_zone', 'is not', null)
        .execute();
      // Zones stored under ICU's old names ('Asia/Calcutta' for a person who chose 'Asia/Kolkata')
      // take their IANA names (decision 046).
      for (const [table, column] of [
        ['users', 'time_zone'],
        ['tasks', 'due_time_zone'],
      ] as const) {
        const stored = await db
          .selectFrom(table)
          .select(column)
          .distinct()
          .where(column, 'is not', null)
          .execute();
        for (const row of stored) {
          const zone = String(row[column]);
          const name = isTimeZone(zone) ? ianaTimeZone(zone) : zone;
          if (name !== zone)
            await db
              .updateTable(table)
              .set({ [column]: name })
              .where(column, '=', zone)
              .execute();
        }
      }
    },
  };
}

/**
 * Issue 29: structure. A task may sit under another (`parent_id`, the adjacency list of decision
 * 050): its subtree goes with it when it is deleted (the foreign key cascades). Relations between
 * tasks are one row each (`blocks`, `relates_to`, `duplicate_of`; 'blocked_by' is `blocks` read from
 * the other side). Templates keep a project's open tasks as JSON, their owner's alone.
 */
function structure(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('tasks')
        .addColumn('parent_id', 'integer', (col) => col.references('tasks.id').onDelete('cascade'))
        .execute();
      await db.schema
        .createIndex('tasks_parent_idx')
        .on('tasks')
        .columns(['parent_id', 'position'])
        .execute();
      await db.schema
        .createTable('task_relations')
        .addColumn('id', 'integer', c.id)
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('other_task_id', 'integer', (col) =>
          col.notNull().references('tasks.id').onDelete('cascade'),
        )
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('created_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('task_relations_pair_key')
        .unique()
        .on('task_relations')
        .columns(['task_id', 'other_task_id', 'kind'])
        .execute();
      await db.schema
        .createIndex('task_relations_other_idx')
        .on('task_relations')
        .column('other_task_id')
        .execute();
      await db.schema
        .createTable('templates')
        .addColumn('id', 'integer', c.id)
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('data', 'text', (col) => col.notNull())
        .addColumn('task_count', 'integer', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('templates_user_idx').on('templates').column('user_id').execute();
    },
  };
}

/**
 * Issue 30: two-way CalDAV sync (decision 052). `caldav_objects`: what a CalDAV client sent for a
 * task (its UID, the resource name it chose, its whole iCalendar text so content Tasklane cannot
 * show survives, and a parent UID held until that parent arrives); a task made in the app has no
 * row until a client writes it. `caldav_collections` and `caldav_entries`: each person's view of
 * each project's collection, refreshed when its fingerprint changes: every resource's ETag and the
 * sequence number of its last change (deleted ones kept as tombstones), which sync tokens count.
 */
function caldav(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('caldav_objects')
        .addColumn('task_id', 'integer', (col) => col.primaryKey().references('tasks.id').onDelete('cascade'))
        .addColumn('uid', 'text', (col) => col.notNull())
        .addColumn('href', 'text', (col) => col.notNull())
        .addColumn('ical', 'text')
        .addColumn('parent_uid', 'text')
        /** The task's position when the client's X-APPLE-SORT-ORDER was taken: while it is, that order is sent back. */
        .addColumn('sort_position', dialect === 'postgres' ? 'double precision' : 'real')
        .execute();
      await db.schema.createIndex('caldav_objects_uid_idx').on('caldav_objects').column('uid').execute();
      await db.schema.createIndex('caldav_objects_href_idx').on('caldav_objects').column('href').execute();
      await db.schema
        .createIndex('caldav_objects_parent_uid_idx')
        .on('caldav_objects')
        .column('parent_uid')
        .execute();
      await db.schema
        .createTable('caldav_collections')
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('project_id', 'integer', (col) =>
          col.notNull().references('projects.id').onDelete('cascade'),
        )
        .addColumn('seq', 'bigint', (col) => col.notNull())
        /** Below this, a sync token is too old (its tombstones were pruned): 403 valid-sync-token. */
        .addColumn('min_seq', 'bigint', (col) => col.notNull())
        .addColumn('fingerprint', 'text', (col) => col.notNull())
        .addColumn('refreshed_at', c.timestamp, (col) => col.notNull())
        .addPrimaryKeyConstraint('caldav_collections_pkey', ['user_id', 'project_id'])
        .execute();
      await db.schema
        .createTable('caldav_entries')
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('project_id', 'integer', (col) =>
          col.notNull().references('projects.id').onDelete('cascade'),
        )
        .addColumn('href', 'text', (col) => col.notNull())
        .addColumn('etag', 'text', (col) => col.notNull())
        .addColumn('seq', 'bigint', (col) => col.notNull())
        .addColumn('deleted', c.bool, (col) => col.notNull().defaultTo(c.falseValue))
        .addPrimaryKeyConstraint('caldav_entries_pkey', ['user_id', 'project_id', 'href'])
        .execute();
      await db.schema
        .createIndex('caldav_entries_seq_idx')
        .on('caldav_entries')
        .columns(['user_id', 'project_id', 'seq'])
        .execute();
    },
  };
}

/**
 * Issue 31: every task change is counted (`version`, sent as the ETag, checked by If-Match), and the
 * answers to requests sent with an Idempotency-Key are kept for 24 hours per person, so a request
 * repeated (an offline outbox whose answer was lost) is answered again without being done twice.
 */
function offline(dialect: DialectName): Migration {
  const c = columns(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('tasks')
        .addColumn('version', 'integer', (col) => col.notNull().defaultTo(1))
        .execute();
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('key', 'text', (col) => col.notNull())
        .addColumn('method', 'text', (col) => col.notNull())
        .addColumn('path', 'text', (col) => col.notNull())
        /** SHA-256 of the request body as sent (hex); a repeat with another body is refused. */
        .addColumn('body_hash', 'text', (col) => col.notNull())
        /** Null while the first request is still running (a repeat then answers 409). */
        .addColumn('status', 'integer')
        .addColumn('response_body', 'text')
        /** The answer's headers worth repeating (content-type, location, etag), as JSON. */
        .addColumn('response_headers', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pkey', ['user_id', 'key'])
        .execute();
      await db.schema
        .createIndex('idempotency_keys_created_idx')
        .on('idempotency_keys')
        .column('created_at')
        .execute();
    },
  };
}

/** Every migration, in order. Add new ones at the end; never edit one that has shipped. */
export function migrationProvider(dialect: DialectName): MigrationProvider {
  return {
    async getMigrations() {
      return {
        '0001_initial': initial(dialect),
        '0002_task_versions': taskVersions(dialect),
        '0003_rate_limiter_store': rateLimiterStore(),
        '0004_api_tokens_and_devices': apiTokensAndDevices(dialect),
        '0005_two_factor': twoFactor(dialect),
        '0006_passkeys': passkeys(dialect),
        '0007_oidc_identities': oidcIdentities(dialect),
        '0008_search_and_checklists': searchAndChecklists(dialect),
        '0009_calendar_feeds': calendarFeeds(dialect),
        '0010_ai_runs': aiRuns(dialect),
        '0011_fractional_positions': fractionalPositions(dialect),
        '0012_completed_tasks_archived': completedTasksArchived(dialect),
        '0013_projects': projects(dialect),
        '0014_tasks_in_projects': tasksInProjects(dialect),
        '0015_time_and_recurrence': timeAndRecurrence(),
        '0016_notifications': notifications(dialect),
        '0017_push': push(dialect),
        '0018_priorities_and_labels': prioritiesAndLabels(dialect),
        '0020_sections': sections(dialect),
        '0021_webhooks': webhooks(dialect),
        '0022_token_limits': tokenLimits(dialect),
        '0023_time_zone_chosen': timeZoneChosen(dialect),
        '0024_structure': structure(dialect),
        '0025_caldav': caldav(dialect),
        '0026_offline': offline(dialect),
      };
    },
  };
}
