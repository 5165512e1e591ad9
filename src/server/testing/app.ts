import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { CustomFetch } from 'openid-client';
import type { LoginResponse } from '../../common/auth';
import { type AppServices, buildApp, type RouteSummary } from '../app';
import { hashPassword } from '../auth/passwords';
import { loadConfig } from '../config';
import type { DialectName } from '../db';
import type { Mailer } from '../mail/mailer';
import type { Clock } from '../time/clock';
import { createTestDatabase, type TestDatabase } from './database';

export interface TestApp {
  app: FastifyInstance;
  routes: RouteSummary[];
  ctx: AppServices;
  dataDir: string;
  /** Creates a user directly and signs in through the API. */
  signUp(options?: {
    username?: string;
    password?: string;
    isAdmin?: boolean;
    email?: string;
  }): Promise<TestUser>;
  close(): Promise<void>;
}

export interface TestUser extends LoginResponse {
  password: string;
  /** Headers that authenticate as this user. */
  headers: { 'user-session': string };
  /** The user's Inbox: where their tasks go unless put elsewhere (issue 21). */
  inboxId: number;
  /** `app.inject` as this user; a JSON body is sent as JSON. */
  request(method: string, url: string, body?: unknown): Promise<LightMyRequestResponse>;
}

let userCounter = 0;

/** scrypt's N for fixture accounts: signing in hundreds of them at full cost is most of a test run. */
export const FIXTURE_HASH_COST = 2 ** 10;

/** A fresh app on a fresh database; env overrides the configuration as DESIGN.md §3 names it. */
export async function createTestApp(
  dialect: DialectName,
  options: {
    env?: Record<string, string>;
    mailer?: Mailer;
    oidcFetch?: CustomFetch;
    clock?: Clock;
    pushAgent?: import('node:https').Agent;
    /** An existing database (reopenTestDatabase: a second instance, or a restart); closed with the app. */
    database?: TestDatabase;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase(dialect));
  const config = loadConfig({
    DATA_DIR: database.dataDir,
    APP_URL: 'http://localhost:3000',
    LOG_LEVEL: 'silent',
    AUTH_RATE_LIMIT_PER_IP: '1000',
    AUTH_RATE_LIMIT_PER_ACCOUNT: '1000',
    ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
    ...options.env,
  });
  const { app, ctx, routes } = await buildApp({
    config,
    db: database.db,
    logger: false,
    mailer: options.mailer,
    oidcFetch: options.oidcFetch,
    clock: options.clock,
    pushAgent: options.pushAgent,
  });
  await app.ready();

  return {
    app,
    routes,
    ctx,
    dataDir: database.dataDir,
    async signUp({ username, password = 'secret-password', isAdmin = false, email } = {}) {
      userCounter += 1;
      const name = username ?? `user${userCounter}_${Date.now().toString(36)}`;
      await ctx.users.insert({
        username: name,
        first_name: name,
        email: email ?? `${name}@example.com`,
        password_hash: await hashPassword(password, FIXTURE_HASH_COST),
        is_admin: isAdmin,
        is_suspended: false,
        is_bootstrap: false,
      });
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: name, password },
      });
      if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.body}`);
      const login = response.json() as LoginResponse;
      const headers = { 'user-session': login.sessionId };
      const inbox = await ctx.db.kysely
        .selectFrom('projects')
        .select('id')
        .where('owner_id', '=', login.user.id)
        .where('is_inbox', '=', true)
        .executeTakeFirstOrThrow();
      return {
        ...login,
        password,
        headers,
        inboxId: inbox.id,
        request: (method, url, body) =>
          app.inject({
            method: method as 'GET',
            url,
            headers,
            ...(body === undefined ? {} : { payload: body as object }),
          }),
      };
    },
    async close() {
      await app.close();
      await database.destroy();
    },
  };
}
