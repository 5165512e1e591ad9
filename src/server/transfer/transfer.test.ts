import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import pino from 'pino';
import tar from 'tar-stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAccess } from '../access';
import { createSecretBox, loadAiKey } from '../agents/crypto';
import { createAgentRepository } from '../agents/repository';
import { createRunRepository } from '../agents/runs';
import { createAgentService } from '../agents/service';
import { loadConfig } from '../config';
import { type Db, openDatabase } from '../db';
import { createFileStore } from '../files/driver';
import type { FileStore } from '../files/store';
import { createRateLimiter } from '../http/rate-limit';
import { createTaskRepository } from '../tasks/repository';
import { createTestDatabase, type TestDatabase, testDialects } from '../testing/database';
import { type FakeProvider, startFakeProvider } from '../testing/fake-provider';
import { startTestS3, type TestS3 } from '../testing/s3';
import { MANIFEST_MEMBER, type Manifest, sha256 } from './archive';
import { exportArchive } from './export';
import { importArchive, parentsFirst } from './import';

/** What an archive must carry; named here, not taken from archive.ts, so the test checks that list too. */
const MOVED_TABLES = [
  'users',
  'projects',
  'project_members',
  'two_factor_recovery_codes',
  'api_tokens',
  'passkeys',
  'oidc_identities',
  'access_requests',
  'agents',
  'tasks',
  'task_assignees',
  'comments',
  'comment_mentions',
  'activity',
  'checklist_items',
  'calendar_feeds',
  'files',
  'ai_credentials',
  'audit_log',
  'reminders',
  'notifications',
  'notification_settings',
  'jobs',
  'labels',
  'task_labels',
  'saved_filters',
  'task_relations',
  'templates',
] as const;
type MovedTable = (typeof MOVED_TABLES)[number];

const BIG_FILE_BYTES = 3 * 1024 * 1024;
const ALICE_API_KEY = 'sk-alice-moved-1234';
const NON_ASCII_NAME = 'résumé – 履歴書 ✓.pdf';
const TAMPER_MARKER = 'tamper-me: the notes file';
const TARGET_AI_SECRET = 'a-different-secret-on-the-target-instance!';

const at = (minute: number) => new Date(Date.UTC(2025, 0, 2, 3, minute, 5, 678)).toISOString();

interface Instance {
  db: Db;
  dataDir: string;
  store: FileStore;
}

/**
 * A source with every kind of record: ids with gaps, every boolean both ways, null and non-null
 * optional columns, a 3 MB file, an empty one and one with a non-ASCII name, a user's own AI key
 * sealed with the key file, two-factor sign-in on (with recovery codes) and half set up, and rows
 * that must not move (a session, a reset token, a second-step challenge, a rate limit).
 */
async function seed({ db, dataDir, store }: Instance, aiBaseUrl = 'https://ai.example.com/v1') {
  const k = db.kysely;
  await k
    .insertInto('users')
    .values([
      {
        id: 1,
        username: 'admin',
        first_name: 'Admin',
        email: null,
        password_hash: 'scrypt$admin-hash',
        is_admin: true,
        is_suspended: false,
        is_bootstrap: true,
        created_at: at(0),
        updated_at: at(0),
        two_factor_enabled: false,
      },
      {
        id: 2,
        username: 'alice',
        first_name: 'Alice',
        email: 'alice@example.com',
        password_hash: 'scrypt$alice-hash',
        is_admin: false,
        is_suspended: false,
        is_bootstrap: false,
        created_at: at(1),
        updated_at: at(2),
        two_factor_enabled: true,
        two_factor_secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
        two_factor_last_step: 58_000_123,
      },
      {
        id: 4,
        username: 'bob',
        first_name: 'Bob',
        email: 'bob@example.com',
        password_hash: 'scrypt$bob-hash',
        is_admin: false,
        is_suspended: true,
        is_bootstrap: false,
        created_at: at(3),
        updated_at: at(4),
        // A setup never finished: the secret moves, two-factor sign-in stays off.
        two_factor_enabled: false,
        two_factor_secret: 'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU',
      },
    ])
    .execute();
  // A calendar feed moves with its owner: the address keeps working on the new instance.
  // Each user's Inbox, and a shared project (archived, ids with gaps) with members of two roles.
  await k
    .insertInto('projects')
    .values([
      ...[1, 2, 4].map((owner, index) => ({
        id: index * 2 + 1,
        name: 'Inbox',
        color: 'grey',
        owner_id: owner,
        is_inbox: true,
        archived: false,
        created_at: at(index),
        updated_at: at(index),
      })),
      {
        id: 9,
        name: 'Shared “plans”',
        color: 'teal',
        owner_id: 2,
        is_inbox: false,
        archived: true,
        created_at: at(10),
        updated_at: at(11),
      },
    ])
    .execute();
  await k
    .insertInto('project_members')
    .values([
      { project_id: 1, user_id: 1, role: 'owner', added_at: at(0) },
      { project_id: 3, user_id: 2, role: 'owner', added_at: at(1) },
      { project_id: 5, user_id: 4, role: 'owner', added_at: at(2) },
      { project_id: 9, user_id: 2, role: 'owner', added_at: at(10) },
      { project_id: 9, user_id: 4, role: 'viewer', added_at: at(12) },
      { project_id: 9, user_id: 1, role: 'admin', added_at: at(13) },
    ])
    .execute();
  await k
    .insertInto('calendar_feeds')
    .values({ user_id: 2, secret_hash: 'f'.repeat(64), created_at: at(2) })
    .execute();
  await k
    .insertInto('access_requests')
    .values([
      { id: 3, email: 'carol@example.com', requested_username: 'carol', message: 'Hello', created_at: at(5) },
      { id: 7, email: 'dan@example.com', requested_username: 'dan', message: null, created_at: at(6) },
    ])
    .execute();
  await k
    .insertInto('agents')
    .values([
      { id: 2, user_id: 2, title: 'Writer', prompt: 'Write well.', created_at: at(7), updated_at: at(7) },
      { id: 5, user_id: 4, title: 'Planner', prompt: 'Plan ahead.', created_at: at(8), updated_at: at(9) },
    ])
    .execute();
  const task = {
    description: null,
    due_date: null,
    completed: false,
    archived: false,
    context_id: null,
    notes: null,
    ai_draft: null,
    ai_assisted: false,
    archived_at: null,
  };
  await k
    .insertInto('tasks')
    .values([
      {
        ...task,
        id: 3,
        project_id: 3,
        user_id: 2,
        title: 'Write the report',
        description: 'Quarterly',
        due_date: '2025-02-01',
        position: -1,
        context_id: 2,
        notes: 'Some notes',
        ai_draft: 'A draft',
        ai_assisted: true,
        created_at: at(10),
        updated_at: at(11),
      },
      {
        ...task,
        id: 4,
        project_id: 9,
        user_id: 2,
        title: 'Done and archived',
        completed: true,
        archived: true,
        position: 0,
        created_at: at(12),
        updated_at: at(13),
        archived_at: at(14),
      },
      {
        ...task,
        id: 9,
        project_id: 5,
        user_id: 4,
        title: 'Bob’s task',
        position: 0,
        created_at: at(15),
        updated_at: at(15),
      },
      {
        ...task,
        id: 10,
        project_id: 5,
        user_id: 4,
        title: 'Bob’s other task',
        position: 1,
        created_at: at(16),
        updated_at: at(16),
      },
      {
        ...task,
        id: 11,
        project_id: 3,
        user_id: 2,
        title: 'Plan the quarter',
        position: -2,
        created_at: at(17),
        updated_at: at(17),
      },
    ])
    .execute();
  // Issue 29: task 3 was moved under a newer task, so its parent has the larger id; task 11 blocks
  // task 4 and relates to task 3; Alice saved a template.
  await k.updateTable('tasks').set({ parent_id: 11 }).where('id', '=', 3).execute();
  await k
    .insertInto('task_relations')
    .values([
      { id: 2, task_id: 11, other_task_id: 4, kind: 'blocks', created_by: 2, created_at: at(18) },
      { id: 5, task_id: 3, other_task_id: 11, kind: 'relates_to', created_by: null, created_at: at(19) },
    ])
    .execute();
  await k
    .insertInto('templates')
    .values({
      id: 4,
      user_id: 2,
      name: 'Quarter',
      data: JSON.stringify({ sections: [], tasks: [{ title: 'Plan the quarter', subtasks: [] }] }),
      task_count: 1,
      created_at: at(20),
    })
    .execute();
  // Task 4 is in the shared project: assigned to two members, commented on (a mention, and a
  // comment whose author was deleted), with its activity.
  await k
    .insertInto('task_assignees')
    .values([
      { task_id: 4, user_id: 4, assigned_at: at(14) },
      { task_id: 4, user_id: 1, assigned_at: at(15) },
    ])
    .execute();
  await k
    .insertInto('comments')
    .values([
      { id: 2, task_id: 4, author_id: 2, body: 'Over to you, @bob', created_at: at(15), edited_at: at(16) },
      { id: 5, task_id: 4, author_id: null, body: 'From someone gone', created_at: at(16), edited_at: null },
    ])
    .execute();
  await k.insertInto('comment_mentions').values({ comment_id: 2, user_id: 4 }).execute();
  // Issue 22: a reminder with its pending job, a notification, someone's channels.
  await k
    .insertInto('reminders')
    .values({
      id: 6,
      task_id: 4,
      at: at(40),
      relative_minutes: null,
      fired_at: null,
      created_by: 2,
      created_at: at(16),
    })
    .execute();
  await k
    .insertInto('jobs')
    .values({
      id: 9,
      key: `remind:6:${at(40)}`,
      kind: 'remind',
      payload: JSON.stringify({ reminderId: 6, occurrence: at(40) }),
      state: 'pending',
      run_at: at(40),
      attempts: 0,
      max_attempts: 5,
      locked_until: null,
      locked_by: null,
      last_error: null,
      created_at: at(16),
      finished_at: null,
    })
    .execute();
  await k
    .insertInto('notifications')
    .values({
      id: 11,
      user_id: 4,
      kind: 'mentioned',
      task_id: 4,
      project_id: null,
      actor_id: 2,
      title: 'Alice mentioned you',
      body: 'Over to you, @bob',
      data: null,
      created_at: at(15),
      read_at: at(17),
    })
    .execute();
  await k
    .insertInto('notification_settings')
    .values({ user_id: 4, settings: '{"email":{"digest":true}}', email_digest: true, updated_at: at(18) })
    .execute();
  await k.updateTable('tasks').set({ comment_count: 2 }).where('id', '=', 4).execute();
  await k
    .insertInto('activity')
    .values([
      { id: 3, task_id: 4, actor_id: 2, kind: 'created', data: '{}', at: at(12) },
      { id: 8, task_id: 4, actor_id: 2, kind: 'assigned', data: '{"userIds":[4,1]}', at: at(14) },
    ])
    .execute();
  await k
    .insertInto('checklist_items')
    .values([
      {
        id: 2,
        task_id: 3,
        user_id: 2,
        title: 'Étape une',
        done: true,
        position: 0,
        search_text: 'etape une',
        created_at: at(17),
        updated_at: at(18),
      },
      {
        id: 7,
        task_id: 3,
        user_id: 2,
        title: 'Step two',
        done: false,
        position: 1,
        search_text: 'step two',
        created_at: at(17),
        updated_at: at(17),
      },
    ])
    .execute();
  const contents = {
    big: crypto.randomBytes(BIG_FILE_BYTES),
    named: Buffer.from('%PDF-1.4 a small document'),
    empty: Buffer.alloc(0),
    notes: Buffer.from(`${TAMPER_MARKER}, in plain text`),
  };
  const files = [
    {
      id: 2,
      task_id: 3,
      user_id: 2,
      original_name: 'big.bin',
      content_type: 'application/octet-stream',
      content: contents.big,
    },
    {
      id: 3,
      task_id: 3,
      user_id: 2,
      original_name: NON_ASCII_NAME,
      content_type: 'application/pdf',
      content: contents.named,
    },
    {
      id: 5,
      task_id: 4,
      user_id: 2,
      original_name: 'empty.txt',
      content_type: 'text/plain',
      content: contents.empty,
    },
    {
      id: 6,
      task_id: 9,
      user_id: 4,
      original_name: 'notes.txt',
      content_type: 'text/plain',
      content: contents.notes,
    },
  ];
  for (const { content, ...row } of files) {
    const { key, size } = await store.put(Readable.from([content]));
    await k
      .insertInto('files')
      .values({ ...row, file_size: size, storage_key: key, created_at: at(20 + row.id) })
      .execute();
  }
  await k
    .insertInto('ai_credentials')
    .values({
      user_id: 2,
      api_key_encrypted: createSecretBox({ dataDir }).encrypt(ALICE_API_KEY),
      base_url: aiBaseUrl,
      model: 'alice-model',
      created_at: at(30),
      updated_at: at(31),
    })
    .execute();
  await k
    .insertInto('api_tokens')
    .values([
      {
        id: 1,
        user_id: 2,
        name: 'Phone shortcut',
        token_hash: 'a'.repeat(64),
        created_at: at(40),
        expires_at: null,
        last_used_at: at(41),
      },
      {
        id: 3,
        user_id: 2,
        name: 'CI',
        token_hash: 'b'.repeat(64),
        created_at: at(42),
        expires_at: at(400),
        last_used_at: null,
      },
    ])
    .execute();
  await k
    .insertInto('two_factor_recovery_codes')
    .values([
      { id: 2, user_id: 2, code_hash: 'c'.repeat(64), created_at: at(43) },
      { id: 5, user_id: 2, code_hash: 'd'.repeat(64), created_at: at(43) },
    ])
    .execute();
  await k
    .insertInto('two_factor_challenges')
    .values({ id_hash: 'challenge-hash', user_id: 2, created_at: at(40), expires_at: at(45) })
    .execute();
  await k
    .insertInto('passkeys')
    .values([
      {
        id: 2,
        user_id: 2,
        credential_id: 'Y3JlZGVudGlhbC1vbmU',
        public_key: 'cHVibGljLWtleS1vbmU',
        // Above PostgreSQL's integer: the counter is a uint32 in a bigint column.
        counter: 4_000_000_000,
        transports: '["internal","hybrid"]',
        user_handle: 'aGFuZGxlLWFsaWNl',
        name: 'Alice’s laptop',
        created_at: at(43),
        last_used_at: at(44),
      },
      {
        id: 5,
        user_id: 4,
        credential_id: 'Y3JlZGVudGlhbC10d28',
        public_key: 'cHVibGljLWtleS10d28',
        counter: 0,
        transports: '[]',
        user_handle: 'aGFuZGxlLWNhcm9s',
        name: 'Security key',
        created_at: at(45),
        last_used_at: null,
      },
    ])
    .execute();
  await k
    .insertInto('webauthn_challenges')
    .values({
      challenge_hash: 'challenge-hash',
      purpose: 'registration',
      user_id: 2,
      user_handle: 'aGFuZGxlLWFsaWNl',
      created_at: at(40),
      expires_at: at(45),
    })
    .execute();
  await k
    .insertInto('oidc_identities')
    .values([
      {
        id: 2,
        user_id: 2,
        issuer: 'https://id.example.com',
        subject: 'alice-sub',
        created_at: at(43),
        last_used_at: at(44),
      },
      {
        id: 5,
        user_id: 4,
        issuer: 'https://id.example.com/realms/other',
        subject: '4b0e7c1a',
        created_at: at(45),
        last_used_at: null,
      },
    ])
    .execute();
  await k
    .insertInto('audit_log')
    .values([
      {
        id: 1,
        actor_id: 1,
        actor_username: 'admin',
        action: 'user.create',
        target_user_id: 2,
        target_label: 'alice',
        created_at: at(32),
      },
      {
        id: 4,
        actor_id: null,
        actor_username: 'gone',
        action: 'user.delete',
        target_user_id: 3,
        target_label: null,
        created_at: at(33),
      },
    ])
    .execute();
  await k
    .insertInto('sessions')
    .values({
      id_hash: 'session-hash',
      user_id: 2,
      created_at: at(40),
      last_used_at: at(40),
      expires_at: at(50),
    })
    .execute();
  await k
    .insertInto('password_reset_tokens')
    .values({ token_hash: 'token-hash', user_id: 2, created_at: at(40), expires_at: at(50), used_at: null })
    .execute();
  await k
    .insertInto('rate_limits')
    .values({ key: 'login:1.2.3.4', points: 3, expire: Date.now() + 60_000 })
    .execute();
  return { contents, files };
}

/** Every moved table's rows, in a form both dialects share (booleans as 0/1, timestamps as ISO strings). */
async function dump(db: Db): Promise<Record<MovedTable, Record<string, unknown>[]>> {
  const tables = {} as Record<MovedTable, Record<string, unknown>[]>;
  for (const table of MOVED_TABLES) {
    const order =
      table === 'project_members'
        ? ['project_id', 'user_id']
        : table === 'task_assignees'
          ? ['task_id', 'user_id']
          : table === 'comment_mentions'
            ? ['comment_id', 'user_id']
            : table === 'task_labels'
              ? ['task_id', 'label_id']
              : table === 'ai_credentials' || table === 'calendar_feeds' || table === 'notification_settings'
                ? ['user_id']
                : ['id'];
    let query = db.kysely.selectFrom(table).selectAll();
    for (const column of order) query = query.orderBy(column as never);
    const rows = await query.execute();
    tables[table] = rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([column, value]) => [
          column,
          typeof value === 'boolean' ? Number(value) : value instanceof Date ? value.toISOString() : value,
        ]),
      ),
    );
  }
  return tables;
}

/** Rows that differ by design after a move: storage keys are the target store's, API keys re-sealed. */
function withoutInstanceSecrets(tables: Record<MovedTable, Record<string, unknown>[]>) {
  return {
    ...tables,
    files: tables.files.map(({ storage_key: _key, ...row }) => row),
    ai_credentials: tables.ai_credentials.map(({ api_key_encrypted: _sealed, ...row }) => row),
  };
}

async function readAll(source: Readable | null): Promise<Buffer> {
  if (!source) throw new Error('no stored content');
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Rewrites an uncompressed archive member by member, with a manifest whose checksums match the edit. */
async function repack(
  archive: string,
  /** The member's new content; null leaves it out. */
  edit: (name: string, content: Buffer) => Buffer | null,
  output: string,
): Promise<void> {
  const members: Array<{ name: string; content: Buffer }> = [];
  const extract = tar.extract();
  const reading = pipeline(Readable.from([await fs.readFile(archive)]), extract as unknown as Writable);
  for await (const entry of extract) {
    members.push({ name: entry.header.name, content: await readAll(entry as unknown as Readable) });
  }
  await reading;
  const manifest = JSON.parse(
    members.find((m) => m.name === MANIFEST_MEMBER)!.content.toString(),
  ) as Manifest;
  const edited = members
    .filter((m) => m.name !== MANIFEST_MEMBER)
    .map(({ name, content }) => ({ name, content: edit(name, content) }))
    .filter((m): m is { name: string; content: Buffer } => m.content !== null);
  manifest.members = edited.map(({ name, content }) => ({
    name,
    size: content.length,
    sha256: sha256(content),
  }));
  const pack = tar.pack();
  const writing = pipeline(pack as unknown as Readable, (await fs.open(output, 'w')).createWriteStream());
  for (const { name, content } of [
    ...edited,
    { name: MANIFEST_MEMBER, content: Buffer.from(JSON.stringify(manifest)) },
  ]) {
    pack.entry({ name }, content);
  }
  pack.finalize();
  await writing;
}

async function tempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'tasklane-transfer-'));
}

describe.each(testDialects)('moving a deployment from SQLite and disk to %s and S3', (dialect) => {
  let s3: TestS3;
  let work: string;
  let source: TestDatabase;
  let target: TestDatabase;
  let sourceInstance: Instance;
  let targetInstance: Instance;
  const prefix = 'moved/';

  beforeEach(async () => {
    s3 = await startTestS3({ prefix });
    work = await tempDir();
    source = await createTestDatabase('sqlite');
    target = await createTestDatabase(dialect);
    sourceInstance = {
      db: source.db,
      dataDir: source.dataDir,
      store: await createFileStore(loadConfig({ DATA_DIR: source.dataDir })),
    };
    const targetConfig = loadConfig({ DATA_DIR: target.dataDir, ...s3.env });
    targetInstance = { db: target.db, dataDir: target.dataDir, store: await createFileStore(targetConfig) };
  });
  afterEach(async () => {
    await source.destroy();
    await target.destroy();
    await s3.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  const exportSource = (file: string) =>
    exportArchive({
      db: source.db,
      store: sourceInstance.store,
      aiKey: loadAiKey({ dataDir: source.dataDir }),
      file,
    });
  const importIntoTarget = (file: string) =>
    importArchive({
      db: target.db,
      store: targetInstance.store,
      secrets: createSecretBox({ secret: TARGET_AI_SECRET, dataDir: target.dataDir }),
      file,
    });
  const expectTargetEmpty = async () => {
    const tables = await dump(target.db);
    for (const table of MOVED_TABLES) expect(tables[table], table).toEqual([]);
    expect(await s3.keys()).toEqual([]);
  };

  it('round-trips every record with its id and every file byte for byte', async () => {
    const { contents, files } = await seed(sourceInstance);
    const archive = path.join(work, 'backup.tar.gz');
    const progress: number[] = [];
    const exported = await exportArchive({
      db: source.db,
      store: sourceInstance.store,
      aiKey: loadAiKey({ dataDir: source.dataDir }),
      file: archive,
      onProgress: ({ files: done }) => progress.push(done),
    });
    const bytes = Object.values(contents).reduce((total, content) => total + content.length, 0);
    expect(exported).toMatchObject({ users: 3, tasks: 5, files: 4, bytes });
    expect(progress).toEqual([1, 2, 3, 4]);
    const raw = await fs.readFile(archive);
    expect([raw[0], raw[1]]).toEqual([0x1f, 0x8b]);
    expect((await fs.stat(archive)).mode & 0o777).toBe(0o600);
    expect(zlib.gunzipSync(raw).includes(ALICE_API_KEY)).toBe(false);

    const imported = await importIntoTarget(archive);
    expect(imported).toMatchObject({
      users: 3,
      tasks: 5,
      files: 4,
      bytes: exported.bytes,
      unreadableAiKeys: 0,
    });

    const before = await dump(source.db);
    const after = await dump(target.db);
    expect(withoutInstanceSecrets(after)).toEqual(withoutInstanceSecrets(before));
    expect(after.files.map((row) => row.original_name)).toContain(NON_ASCII_NAME);
    // Issue 29: the sub-task older than its parent, the relations and the template came along.
    expect(after.tasks.find((row) => row.id === 3)).toMatchObject({ parent_id: 11 });
    expect(after.task_relations.map((row) => [row.task_id, row.kind, row.other_task_id])).toEqual([
      [11, 'blocks', 4],
      [3, 'relates_to', 11],
    ]);
    expect(after.templates.map((row) => [row.id, row.user_id, row.name])).toEqual([[4, 2, 'Quarter']]);
    for (const table of [
      'sessions',
      'password_reset_tokens',
      'webauthn_challenges',
      'two_factor_challenges',
      'rate_limits',
    ] as const) {
      expect(await target.db.kysely.selectFrom(table).selectAll().execute(), table).toEqual([]);
    }
    // Every object is in the bucket under the key its row now names, with the same bytes.
    expect(await s3.keys()).toEqual(after.files.map((row) => `${prefix}${row.storage_key}`).sort());
    for (const row of after.files) {
      const content = await readAll(await targetInstance.store.get(row.storage_key as string));
      const original = Object.values(contents)[files.findIndex((file) => file.id === row.id)]!;
      expect(content.length).toBe(original.length);
      expect(sha256(content)).toBe(sha256(original));
    }

    // New rows get fresh ids after the imported ones (PostgreSQL identities were moved on).
    const tasks = createTaskRepository(target.db.kysely, target.db.dialect);
    const created = await tasks.insertAtTop({
      user_id: 2,
      project_id: 3,
      title: 'After the move',
      completed: false,
      archived: false,
      ai_assisted: false,
    });
    expect(created.id).toBeGreaterThan(10);
    const user = await target.db.kysely
      .insertInto('users')
      .values({
        username: 'erin',
        first_name: 'Erin',
        password_hash: 'x',
        is_admin: false,
        is_suspended: false,
        is_bootstrap: false,
        created_at: at(50),
        updated_at: at(50),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(user.id).toBeGreaterThan(4);
  });

  it('reads an uncompressed archive too', async () => {
    await seed(sourceInstance);
    const archive = path.join(work, 'backup.tar');
    await exportSource(archive);
    expect((await fs.readFile(archive)).subarray(257, 262).toString()).toBe('ustar');
    expect(await importIntoTarget(archive)).toMatchObject({ users: 3, tasks: 5, files: 4 });
  });

  describe('a user’s own AI connection', () => {
    let fake: FakeProvider;
    beforeAll(async () => {
      fake = await startFakeProvider();
    });
    afterAll(async () => fake.close());

    it('still works on a target with another AI_SECRET', async () => {
      await seed(sourceInstance, fake.baseUrl);
      const archive = path.join(work, 'backup.tgz');
      await exportSource(archive);
      await importIntoTarget(archive);

      const sealed = await target.db.kysely
        .selectFrom('ai_credentials')
        .select('api_key_encrypted')
        .executeTakeFirstOrThrow();
      expect(createSecretBox({ dataDir: source.dataDir }).decrypt(sealed.api_key_encrypted)).toBeUndefined();

      const config = loadConfig({
        DATA_DIR: target.dataDir,
        AI_SECRET: TARGET_AI_SECRET,
        AI_ALLOW_PRIVATE_BASE_URLS: 'true',
      });
      const agents = createAgentService({
        access: createAccess(target.db.kysely),
        agents: createAgentRepository(target.db.kysely),
        runs: createRunRepository(target.db.kysely),
        secrets: createSecretBox({ secret: config.ai.secret, dataDir: config.dataDir }),
        rateLimiter: createRateLimiter(target.db),
        config: config.ai,
        logger: pino({ level: 'silent' }),
        attachments: { read: async () => ({ prompt: '', notes: [] }) },
      });
      expect(await agents.connection(2)).toEqual({
        connected: true,
        baseUrl: fake.baseUrl,
        model: 'alice-model',
        keyHint: ALICE_API_KEY.slice(-4),
      });
      const { run } = await agents.prepareRun(2, 3, null);
      expect((await run()).result).toBe('Here is the draft.');
      expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${ALICE_API_KEY}`);
      expect(fake.requests.at(-1)?.body.model).toBe('alice-model');
    });
  });

  it('refuses a target that is not empty and changes nothing', async () => {
    await seed(sourceInstance);
    const archive = path.join(work, 'backup.tar.gz');
    await exportSource(archive);
    await target.db.kysely
      .insertInto('users')
      .values({
        id: 1,
        username: 'admin',
        first_name: 'Admin',
        password_hash: 'target-hash',
        is_admin: true,
        is_suspended: false,
        is_bootstrap: true,
        created_at: at(0),
        updated_at: at(0),
      })
      .execute();
    const existing = await targetInstance.store.put(Readable.from([Buffer.from('already here')]));
    const before = await dump(target.db);
    const keysBefore = await s3.keys();

    await expect(importIntoTarget(archive)).rejects.toThrow(/not empty.*nothing was changed/);
    expect(await dump(target.db)).toEqual(before);
    expect(await s3.keys()).toEqual(keysBefore);
    expect(keysBefore).toEqual([`${prefix}${existing.key}`]);
  });

  it.each([
    ['a file’s bytes', (content: Buffer) => content.indexOf(TAMPER_MARKER)],
    ['a table', (content: Buffer) => content.indexOf('"alice"') + 1],
  ])('refuses an archive with one byte of %s changed, leaving the target empty', async (_what, find) => {
    await seed(sourceInstance);
    const archive = path.join(work, 'backup.tar');
    await exportSource(archive);
    const content = await fs.readFile(archive);
    const offset = find(content);
    expect(offset).toBeGreaterThan(0);
    content[offset] = content[offset]! ^ 0x01;
    await fs.writeFile(archive, content);

    await expect(importIntoTarget(archive)).rejects.toThrow(/checksum/);
    await expectTargetEmpty();
  });

  it('refuses an archive cut short, leaving the target empty', async () => {
    await seed(sourceInstance);
    const archive = path.join(work, 'backup.tar.gz');
    await exportSource(archive);
    const content = await fs.readFile(archive);
    await fs.writeFile(archive, content.subarray(0, Math.floor(content.length * 0.9)));

    await expect(importIntoTarget(archive)).rejects.toThrow(/is not a complete Tasklane archive/);
    await expectTargetEmpty();
  });

  it('refuses malformed rows, even with matching checksums, naming the row and column', async () => {
    await seed(sourceInstance);
    const archive = path.join(work, 'backup.tar');
    await exportSource(archive);
    const edited = path.join(work, 'edited.tar');
    await repack(
      archive,
      (name, content) => {
        if (name !== 'tables/tasks.json') return content;
        const rows = JSON.parse(content.toString()) as Array<Record<string, unknown>>;
        rows[1]!.title = 42;
        return Buffer.from(JSON.stringify(rows));
      },
      edited,
    );

    await expect(importIntoTarget(edited)).rejects.toThrow(
      /tables\/tasks\.json in the archive: \[1\]\.title: /,
    );
    await expectTargetEmpty();
  });

  it('imports an archive from before projects, each user getting an Inbox with their tasks', async () => {
    await seed(sourceInstance);
    const archive = path.join(work, 'backup.tar');
    await exportSource(archive);
    const older = path.join(work, 'older.tar');
    const laterTables =
      /^tables\/(projects|project_members|task_assignees|comments|comment_mentions|activity|task_relations|templates)\.json$/;
    await repack(
      archive,
      (name, content) => {
        if (laterTables.test(name)) return null;
        if (name !== 'tables/tasks.json') return content;
        const rows = JSON.parse(content.toString()) as Array<Record<string, unknown>>;
        return Buffer.from(
          JSON.stringify(
            rows.map(({ project_id: _project, comment_count: _comments, parent_id: _parent, ...row }) => row),
          ),
        );
      },
      older,
    );

    await importIntoTarget(older);
    const projects = await target.db.kysely
      .selectFrom('projects')
      .innerJoin('project_members', 'project_members.project_id', 'projects.id')
      .select([
        'projects.owner_id',
        'projects.name',
        'projects.is_inbox',
        'project_members.user_id',
        'project_members.role',
      ])
      .orderBy('projects.owner_id')
      .execute();
    expect(
      projects.map((row) => [row.owner_id, row.name, Boolean(row.is_inbox), row.user_id, row.role]),
    ).toEqual([
      [1, 'Inbox', true, 1, 'owner'],
      [2, 'Inbox', true, 2, 'owner'],
      [4, 'Inbox', true, 4, 'owner'],
    ]);
    const inTheirInbox = await target.db.kysely
      .selectFrom('tasks')
      .innerJoin('projects', 'projects.id', 'tasks.project_id')
      .select(['tasks.id', 'tasks.user_id', 'projects.owner_id', 'projects.is_inbox'])
      .orderBy('tasks.id')
      .execute();
    expect(inTheirInbox.map((row) => [row.id, row.user_id === row.owner_id, Boolean(row.is_inbox)])).toEqual([
      [3, true, true],
      [4, true, true],
      [9, true, true],
      [10, true, true],
      [11, true, true],
    ]);
  });

  it('refuses what is not an archive', async () => {
    const notAnArchive = path.join(work, 'notes.txt');
    await fs.writeFile(
      notAnArchive,
      'just some text, long enough to be more than nothing at all '.repeat(20),
    );
    await expect(importIntoTarget(notAnArchive)).rejects.toThrow(/is not a complete Tasklane archive/);
    await expect(importIntoTarget(path.join(work, 'missing.tar'))).rejects.toThrow(/cannot read .*ENOENT/);
    await expectTargetEmpty();
  });

  it('does not export a file row whose bytes are gone, and leaves no archive behind', async () => {
    await seed(sourceInstance);
    const row = await source.db.kysely
      .selectFrom('files')
      .selectAll()
      .where('id', '=', 3)
      .executeTakeFirstOrThrow();
    await sourceInstance.store.remove(row.storage_key);
    const archive = path.join(work, 'backup.tar.gz');

    await expect(exportSource(archive)).rejects.toThrow(/file 3 .* is missing from the file store/);
    expect(await fs.readdir(work)).toEqual([]);
  });
});

/** Each of these tests starts several processes, each loading the whole server bundle. */
const CLI_TEST_TIMEOUT_MS = 60_000;

describe.each(testDialects)('npm run cli into %s', (dialect) => {
  let build: string;
  beforeAll(async () => {
    build = await tempDir();
    const built = await runNode([path.resolve('scripts/build-server.mjs'), build], {});
    expect(built.code, built.stderr).toBe(0);
  });
  afterAll(async () => fs.rm(build, { recursive: true, force: true }));

  let work: string;
  let target: TestDatabase | undefined;
  beforeEach(async () => {
    work = await tempDir();
  });
  afterEach(async () => {
    await target?.destroy();
    target = undefined;
    await fs.rm(work, { recursive: true, force: true });
  });

  const cli = (args: string[], env: Record<string, string>) =>
    runNode([path.join(build, 'cli.js'), ...args], env);

  /** A stopped embedded instance with the seed's records, and a new target configured for `dialect`. */
  async function prepare(): Promise<{ sourceDir: string; targetEnv: Record<string, string> }> {
    const sourceDir = path.join(work, 'source');
    const db = await openDatabase({ dataDir: sourceDir });
    await seed({ db, dataDir: sourceDir, store: await createFileStore(loadConfig({ DATA_DIR: sourceDir })) });
    await db.close();
    const targetDir = path.join(work, 'target');
    if (dialect === 'sqlite') return { sourceDir, targetEnv: { DATA_DIR: targetDir } };
    target = await createTestDatabase('postgres');
    return { sourceDir, targetEnv: { DATA_DIR: targetDir, DATABASE_URL: target.databaseUrl! } };
  }

  it(
    'exports and imports, ending each with a summary line',
    async () => {
      const { sourceDir, targetEnv } = await prepare();
      const archive = path.join(work, 'backup.tar.gz');

      const exported = await cli(['export', archive], { DATA_DIR: sourceDir });
      // Nothing but the progress lines a slow (busy) machine gets, at most one a second.
      expect(exported.stderr).toMatch(/^(exporting files: .*\n)*$/);
      expect(exported.code).toBe(0);
      expect(exported.stdout).toMatch(/^exported: 3 users, 5 tasks, 4 files \(3\.1 MB\) in \d+\.\d s\n$/);

      const imported = await cli(['import', archive], targetEnv);
      expect(imported.stderr).toMatch(/^(importing files: .*\n)*$/);
      expect(imported.code).toBe(0);
      expect(imported.stdout).toMatch(/^imported: 3 users, 5 tasks, 4 files \(3\.1 MB\) in \d+\.\d s\n$/);

      const again = await cli(['import', archive], targetEnv);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/^import failed: the target instance is not empty \(it has users\)/);
      expect(again.stderr.trim().split('\n')).toHaveLength(1);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'says what is wrong in one line: usage, a running instance, a damaged archive',
    async () => {
      const { sourceDir, targetEnv } = await prepare();
      for (const args of [[], ['backup', 'x.tar'], ['import', 'a.tar', 'extra']]) {
        const usage = await cli(args, { DATA_DIR: sourceDir });
        expect(usage.code, args.join(' ')).toBe(2);
        expect(usage.stderr).toMatch(/^Usage: npm run cli -- <command> <file>/);
      }

      const running = await openDatabase({ dataDir: sourceDir });
      try {
        const locked = await cli(['export', path.join(work, 'backup.tar')], { DATA_DIR: sourceDir });
        expect(locked.code).toBe(1);
        expect(locked.stderr).toMatch(/^DATA_DIR .* is in use by another Tasklane process.*\n$/);
      } finally {
        await running.close();
      }

      const damaged = path.join(work, 'damaged.tar');
      await fs.writeFile(damaged, 'not a tar at all '.repeat(100));
      const refused = await cli(['import', damaged], targetEnv);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^import failed: .* is not a complete Tasklane archive .*\n$/);
      expect(refused.stderr).not.toMatch(/\n\s+at /);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

async function runNode(args: string[], env: Record<string, string>) {
  // Only what the child is given: none of this process's DATABASE_URL, S3_* or AI_SECRET.
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

describe('parentsFirst (issue 29)', () => {
  it('puts every parent before its sub-tasks, in batches as in one statement, keeping the order otherwise', () => {
    const rows = [
      { id: 1, parent_id: 7 },
      { id: 2, parent_id: null },
      { id: 4, parent_id: 1 },
      { id: 7, parent_id: 2 },
      { id: 9, parent_id: null },
    ];
    expect(parentsFirst(rows).map((row) => row.id)).toEqual([2, 9, 7, 1, 4]);
    const flat = [{ id: 3, parent_id: null }];
    expect(parentsFirst(flat)).toBe(flat);
  });
});
