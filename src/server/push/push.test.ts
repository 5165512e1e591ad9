import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUSH_MESSAGES, PUSH_PATHS, type PushPayload, taskUrl } from '../../common/push';
import { buildApp } from '../app';
import { loadConfig } from '../config';
import { openDatabase } from '../db';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { createTestDatabase, testDialects } from '../testing/database';
import { startTestPushService, type TestPushService } from '../testing/push-service';
import { createPushService, PushDeliveryError } from './service';

const payload = (title: string): PushPayload => ({
  title,
  body: 'Reminder: due at 14:30',
  taskId: 7,
  notificationId: 11,
  url: taskUrl(3, 7),
});

describe.each(testDialects)('web push on %s', (dialect) => {
  let t: TestApp;
  let service: TestPushService;
  let ana: TestUser;
  let ben: TestUser;

  beforeAll(async () => {
    service = await startTestPushService();
    t = await createTestApp(dialect, { pushAgent: service.agent });
    [ana, ben] = await Promise.all([t.signUp(), t.signUp()]);
  });
  afterAll(async () => {
    await t?.close();
    await service?.close();
  });

  const endpointsOf = async (userId: number) =>
    (
      await t.ctx.db.kysely
        .selectFrom('push_subscriptions')
        .select('endpoint')
        .where('user_id', '=', userId)
        .orderBy('id')
        .execute()
    ).map((row) => row.endpoint);

  it('answers the public key, the same every time, to a signed-in person only', async () => {
    const first = await ana.request('GET', PUSH_PATHS.publicKey);
    expect(first.statusCode).toBe(200);
    const { publicKey } = first.json<{ publicKey: string }>();
    expect(Buffer.from(publicKey, 'base64url')).toHaveLength(65);
    expect((await ben.request('GET', PUSH_PATHS.publicKey)).json()).toEqual({ publicKey });
    expect((await t.app.inject({ method: 'GET', url: PUSH_PATHS.publicKey })).statusCode).toBe(401);
  });

  it('stores a subscription per endpoint, takes it over on a second sign-in, deletes only your own', async () => {
    const browser = service.subscribe();
    expect((await ana.request('POST', PUSH_PATHS.subscriptions, browser.json)).statusCode).toBe(201);
    expect((await ana.request('POST', PUSH_PATHS.subscriptions, browser.json)).statusCode).toBe(201);
    expect(await endpointsOf(ana.user.id)).toEqual([browser.endpoint]);
    // Ben signs in on the same browser and subscribes: the endpoint is his now.
    expect((await ben.request('POST', PUSH_PATHS.subscriptions, browser.json)).statusCode).toBe(201);
    expect(await endpointsOf(ana.user.id)).toEqual([]);
    expect(await endpointsOf(ben.user.id)).toEqual([browser.endpoint]);
    // Ana cannot remove Ben's.
    const other = await ana.request('DELETE', PUSH_PATHS.subscriptions, { endpoint: browser.endpoint });
    expect(other.statusCode).toBe(204);
    expect(await endpointsOf(ben.user.id)).toEqual([browser.endpoint]);
    const own = await ben.request('DELETE', PUSH_PATHS.subscriptions, { endpoint: browser.endpoint });
    expect(own.statusCode).toBe(204);
    expect(await endpointsOf(ben.user.id)).toEqual([]);
  });

  it.each([
    [
      { endpoint: 'http://push.example.com/x', keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } },
      'endpoint',
    ],
    [{ endpoint: 'https://push.example.com/x', keys: { p256dh: 'short', auth: 'A'.repeat(22) } }, 'p256dh'],
    [{ endpoint: 'https://push.example.com/x', keys: { p256dh: 'B'.repeat(87), auth: 'nope' } }, 'auth'],
    [{ endpoint: 'https://push.example.com/x' }, 'keys'],
    [{}, 'endpoint'],
  ])('refuses %o with 400 naming %s', async (body, field) => {
    const response = await ana.request('POST', PUSH_PATHS.subscriptions, body);
    expect(response.statusCode).toBe(400);
    expect(response.json<{ message: string }>().message).toContain(field);
  });

  it('accepts keys with base64 padding, as some browsers send them', async () => {
    const browser = service.subscribe();
    const padded = {
      ...browser.json,
      keys: { p256dh: `${browser.json.keys.p256dh}=`, auth: `${browser.json.keys.auth}==` },
    };
    expect((await ana.request('POST', PUSH_PATHS.subscriptions, padded)).statusCode).toBe(201);
    await ana.request('DELETE', PUSH_PATHS.subscriptions, { endpoint: browser.endpoint });
    expect(PUSH_MESSAGES.p256dh).toContain('p256dh');
  });

  it("delivers to every device, signed with the server's key, decrypted by the browser's", async () => {
    const phone = service.subscribe();
    const laptop = service.subscribe();
    for (const browser of [phone, laptop]) {
      expect((await ana.request('POST', PUSH_PATHS.subscriptions, browser.json)).statusCode).toBe(201);
    }
    const { publicKey } = (await ana.request('GET', PUSH_PATHS.publicKey)).json<{ publicKey: string }>();
    const before = service.received.length;
    expect(await t.ctx.push.deliver(ana.user.id, payload('Pay the rent'))).toEqual({ sent: 2, removed: 0 });
    const got = service.received.slice(before);
    expect(got.map((push) => push.endpoint).sort()).toEqual([phone.endpoint, laptop.endpoint].sort());
    for (const push of got) {
      expect(JSON.parse(push.payload)).toEqual(payload('Pay the rent'));
      expect(push.vapidKey).toBe(publicKey);
      expect(push.claims.aud).toBe(service.origin);
      expect(push.claims.sub).toBe('mailto:no-reply@localhost');
      expect(push.ttl).toBe('86400');
    }
    expect(service.rejected).toEqual([]);
    // Nobody else's devices, and nothing for someone with none.
    expect(await t.ctx.push.deliver(ben.user.id, payload('Not for Ben'))).toEqual({ sent: 0, removed: 0 });
    expect(await t.ctx.push.hasSubscription(ben.user.id)).toBe(false);
    expect(await t.ctx.push.hasSubscription(ana.user.id)).toBe(true);
    for (const browser of [phone, laptop]) {
      await ana.request('DELETE', PUSH_PATHS.subscriptions, { endpoint: browser.endpoint });
    }
  });

  it('deletes a subscription its push service calls gone (404, 410); other failures throw to be retried', async () => {
    const gone = service.subscribe();
    const expired = service.subscribe();
    const failing = service.subscribe();
    const fine = service.subscribe();
    for (const browser of [gone, expired, failing, fine]) {
      expect((await ben.request('POST', PUSH_PATHS.subscriptions, browser.json)).statusCode).toBe(201);
    }
    gone.setStatus(410);
    expired.setStatus(404);
    failing.setStatus(500);
    const before = service.received.length;
    const error = await t.ctx.push.deliver(ben.user.id, payload('Water the plants')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PushDeliveryError);
    expect((error as PushDeliveryError).statusCodes).toEqual([500]);
    // Every device was tried; the gone ones are forgotten, the failing one kept for the retry.
    expect(service.received.length - before).toBe(4);
    expect((await endpointsOf(ben.user.id)).sort()).toEqual([failing.endpoint, fine.endpoint].sort());
    failing.setStatus(201);
    expect(await t.ctx.push.deliver(ben.user.id, payload('Water the plants'))).toEqual({
      sent: 2,
      removed: 0,
    });
  });

  it('generates the VAPID keys once: instances on one database, and two apps, sign with the same key', async () => {
    const database = await createTestDatabase(dialect);
    try {
      const config = loadConfig({
        DATA_DIR: database.dataDir,
        ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
      });
      const logger = pino({ level: 'silent' });
      const instances = Array.from({ length: 4 }, () =>
        createPushService({ db: database.db.kysely, config, logger, agent: service.agent }),
      );
      // All at once, as instances starting together would.
      const keys = await Promise.all(instances.map((instance) => instance.publicKey()));
      expect(new Set(keys).size).toBe(1);
      expect(await database.db.kysely.selectFrom('push_keys').select('public_key').execute()).toEqual([
        { public_key: keys[0] },
      ]);
      // Two whole app instances read the same one and sign with it: on PostgreSQL each with its own
      // connections (SQLite's DATA_DIR belongs to one process, so there they share it).
      const second =
        dialect === 'postgres'
          ? await openDatabase({ dataDir: database.dataDir, databaseUrl: database.databaseUrl })
          : database.db;
      const apps = await Promise.all(
        [database.db, second].map((db) => buildApp({ config, db, logger: false, pushAgent: service.agent })),
      );
      try {
        const browser = service.subscribe();
        for (const { ctx } of apps) expect(await ctx.push.publicKey()).toBe(keys[0]);
        // A subscription stored through one instance, delivered by the other, signed with the key.
        const owner = await apps[0]!.ctx.db.kysely
          .insertInto('users')
          .values({
            username: 'dana',
            first_name: 'Dana',
            email: 'dana@example.com',
            password_hash: 'x',
            is_admin: false,
            is_suspended: false,
            is_bootstrap: false,
            created_at: new Date().toISOString(),
            updated_at: new Date().toISOString(),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await apps[0]!.ctx.push.subscribe(owner.id, browser.json);
        const before = service.received.length;
        expect(await apps[1]!.ctx.push.deliver(owner.id, payload('From the other instance'))).toEqual({
          sent: 1,
          removed: 0,
        });
        expect(service.received.slice(before).map((push) => push.vapidKey)).toEqual([keys[0]]);
      } finally {
        await Promise.all(apps.map(({ app }) => app.close()));
        if (second !== database.db) await second.close();
      }
    } finally {
      await database.destroy();
    }
  });

  it('signs with VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY when they are set, storing nothing', async () => {
    const fromEnv = await createTestApp(dialect, {
      pushAgent: service.agent,
      env: {
        VAPID_PUBLIC_KEY:
          'BKzmUvlBLfyxut9Y0aYI09dDALUxxkRlsBf85e7NbWnWDcU-X1aO2VImrha8cA1hFAnJxLfq87IhR1PsXfE8z4U',
        VAPID_PRIVATE_KEY: 'WaNYwlVpKNtXwyFJaaRyjfrz6QJA5TIXxaZ_Kvc75m4',
        VAPID_SUBJECT: 'mailto:ops@example.com',
      },
    });
    try {
      const cy = await fromEnv.signUp();
      const { publicKey } = (await cy.request('GET', PUSH_PATHS.publicKey)).json<{ publicKey: string }>();
      expect(publicKey).toBe(
        'BKzmUvlBLfyxut9Y0aYI09dDALUxxkRlsBf85e7NbWnWDcU-X1aO2VImrha8cA1hFAnJxLfq87IhR1PsXfE8z4U',
      );
      const browser = service.subscribe();
      await cy.request('POST', PUSH_PATHS.subscriptions, browser.json);
      const before = service.received.length;
      await fromEnv.ctx.push.deliver(cy.user.id, payload('From the environment'));
      const [push] = service.received.slice(before);
      expect(push?.vapidKey).toBe(publicKey);
      expect(push?.claims.sub).toBe('mailto:ops@example.com');
      expect(await fromEnv.ctx.db.kysely.selectFrom('push_keys').selectAll().execute()).toEqual([]);
    } finally {
      await fromEnv.close();
    }
  });
});
