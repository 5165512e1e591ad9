import fs from 'node:fs';
import path from 'node:path';
import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { sql } from 'kysely';
import type { CustomFetch } from 'openid-client';
import { OIDC_PATHS } from '../common/sign-in';
import { createAccess } from './access';
import { activityRoutes } from './activity/routes';
import { adminRoutes } from './admin/routes';
import { createAttachmentReader } from './agents/attachments';
import { createSecretBox } from './agents/crypto';
import { createAgentRepository } from './agents/repository';
import { agentRoutes } from './agents/routes';
import { createSecondFactorGuard, createSignInGuard } from './auth/login-guard';
import { createOidcClient } from './auth/oidc-client';
import { oidcRoutes } from './auth/oidc-routes';
import { createOidcSignIn } from './auth/oidc-service';
import { createPasskeyService } from './auth/passkeys';
import { createPasskeyRepository } from './auth/passkeys-repository';
import { passkeyRoutes } from './auth/passkeys-routes';
import { createUserRepository, type UserRepository } from './auth/repository';
import { authRoutes } from './auth/routes';
import { type AuthService, createAuthService } from './auth/service';
import { createSessionCache } from './auth/session-cache';
import { createSessionStore } from './auth/sessions';
import { createTwoFactorService } from './auth/two-factor';
import { twoFactorRoutes } from './auth/two-factor-routes';
import { caldavRoutes } from './caldav/routes';
import { createCaldavStore } from './caldav/service';
import type { DavStore } from './caldav/types';
import { calendarRoutes, withoutFeedSecret } from './calendar/routes';
import { commentRoutes } from './comments/routes';
import { createCommentService } from './comments/service';
import type { Config } from './config';
import type { Db } from './db';
import { createFileStore } from './files/driver';
import { fileRoutes } from './files/routes';
import type { FileStore } from './files/store';
import { registerCompression } from './http/compression';
import {
  answerClientError,
  answerFrameworkError,
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE,
  registerErrorHandler,
} from './http/errors';
import { createIdempotencyStore, idempotencyPlugin } from './http/idempotency';
import { registerOpenApi } from './http/openapi';
import { createRateLimiter } from './http/rate-limit';
import { registerFallback } from './http/routing';
import { registerSecurityHeaders } from './http/security';
import { sessionPlugin } from './http/session';
import { serializerCompiler, validatorCompiler } from './http/zod';
import { createJobQueue, type JobQueue } from './jobs/queue';
import { labelRoutes } from './labels/routes';
import { createLabelService } from './labels/service';
import { createLiveBus, type LiveBus } from './live/bus';
import { createProjectEvents } from './live/projects';
import { liveRoutes } from './live/routes';
import { createMailer, type Mailer } from './mail/mailer';
import { mcpRoutes } from './mcp/routes';
import { createPushChannel } from './notifications/channels';
import { notificationRoutes } from './notifications/routes';
import { createNotificationService, type NotificationService } from './notifications/service';
import { dataRoutes } from './portability/routes';
import { projectRoutes } from './projects/routes';
import { createProjectService } from './projects/service';
import { pushRoutes } from './push/routes';
import { createPushService, type PushService } from './push/service';
import { relationRoutes } from './relations/routes';
import { createRelationService } from './relations/service';
import { reminderRoutes } from './reminders/routes';
import { createReminderService } from './reminders/service';
import { sectionRoutes } from './sections/routes';
import { createSectionService } from './sections/service';
import { createChecklistService } from './tasks/checklist';
import { tasksRoutes } from './tasks/routes';
import { createTaskService } from './tasks/service';
import { templateRoutes } from './templates/routes';
import { createTemplateService } from './templates/service';
import { type Clock, systemClock } from './time/clock';
import { createTokenRepository } from './tokens/repository';
import { tokenRoutes } from './tokens/routes';
import { createTokenService } from './tokens/service';
import { webhookRoutes } from './webhooks/routes';
import { createWebhookService } from './webhooks/service';

export interface BuildAppOptions {
  config: Config;
  db: Db;
  /** Built SPA (dist/client); API only when absent. */
  clientDir?: string;
  mailer?: Mailer;
  logger?: FastifyBaseLogger | boolean;
  /** Tests only: how single sign-on reaches their provider (one that trusts their CA). */
  oidcFetch?: CustomFetch;
  /** Tests only: a clock they move (issue 22); the system's otherwise. */
  clock?: Clock;
  /** Tests only: an HTTPS agent that trusts their push service's certificate authority. */
  pushAgent?: import('node:https').Agent;
}

/** Every route the app serves: the robustness test walks them all. */
export interface RouteSummary {
  method: string;
  url: string;
}

/**
 * The shared services the app is composed of, for start-up (main.ts) and tests. Features never see
 * this: each is handed what its routes declare they use.
 */
export interface AppServices {
  config: Config;
  db: Db;
  logger: FastifyBaseLogger;
  users: UserRepository;
  auth: AuthService;
  fileStore: FileStore;
  live: LiveBus;
  clock: Clock;
  /** Web Push: `deliver(userId, payload)` for the notifications' push channel (decision 036). */
  push: PushService;
  /** The job queue (decision 034): `runDue()` runs what is due now, as the poller would. */
  jobs: JobQueue;
  /** Notifications and their channels: `addChannel(createPushChannel(push))` adds push. */
  notifications: NotificationService;
  /** The CalDAV store (issue 30): what the WebDAV routes ask, and tests call directly. */
  caldav: DavStore;
}

/** Builds the whole app without listening, so tests can `inject` into a fresh one. */
export async function buildApp(
  options: BuildAppOptions,
): Promise<{ app: FastifyInstance; ctx: AppServices; routes: RouteSummary[] }> {
  const { config, db } = options;
  const clock = options.clock ?? systemClock;
  const app = Fastify({
    logger:
      options.logger === undefined
        ? {
            level: config.logLevel,
            // The calendar feed's secret is in its path: logs keep the path, not the secret.
            serializers: {
              req: (request: FastifyRequest) => ({
                method: request.method,
                url: withoutFeedSecret(request.url),
                host: request.host,
                remoteAddress: request.ip,
                remotePort: request.socket?.remotePort,
              }),
            },
            redact: [
              'req.headers["user-session"]',
              'req.headers["x-session-id"]',
              'req.headers.authorization',
            ],
          }
        : options.logger === true
          ? { level: config.logLevel }
          : options.logger,
    // One compact line per answer instead (below): Fastify's own two lines per request, with
    // their request and response serialised, were a sixth of a list GET's time at info.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustProxy,
    // Idle keep-alive sockets must not hold up a graceful shutdown.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Fastify's 10 s per plugin was passed by a route plugin of the role-table test on a machine
    // at load 15 (CI): a slow start is not a failed one. A plugin that truly hangs still fails.
    pluginTimeout: 60_000,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
  registerRequestLog(app);
  const routes: RouteSummary[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  const hasClient =
    options.clientDir !== undefined && fs.existsSync(path.join(options.clientDir, 'index.html'));
  // Before the routes: it learns which methods each path is served with.
  registerFallback(app, { hasClient });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  await registerSecurityHeaders(app);
  // Before the routes: it adds its hook to each as it is declared.
  await registerCompression(app);
  await app.register(cookie);

  const kysely = db.kysely;
  const logger = app.log;
  const users = createUserRepository(kysely);
  const live = createLiveBus(db, logger);
  const sessions = createSessionStore(kysely, config.sessionTtlMs, { cache: createSessionCache(live) });
  const mailer =
    options.mailer ??
    createMailer({
      smtpUrl: config.mail.smtpUrl,
      from: config.mail.from,
      outboxDir: path.join(config.dataDir, 'outbox'),
      logger,
    });
  const fileStore = await createFileStore(config);
  const rateLimiter = createRateLimiter(db);
  const twoFactor = createTwoFactorService({
    db: kysely,
    sessions,
    loginGuard: createSignInGuard(rateLimiter, config.authRateLimit),
    secondFactorGuard: createSecondFactorGuard(rateLimiter, config.authRateLimit),
    lockoutMs: config.authRateLimit.windowMs,
    mailer,
    appUrl: config.appUrl,
    logger,
    defaultTimeZone: config.defaultTimeZone,
  });
  const auth = createAuthService({
    db: kysely,
    users,
    sessions,
    mailer,
    appUrl: config.appUrl,
    logger,
    twoFactor,
    defaultTimeZone: config.defaultTimeZone,
  });
  const access = createAccess(kysely, { bus: live });
  const idempotency = createIdempotencyStore(kysely, clock);
  const jobs = createJobQueue({
    db: kysely,
    dialect: db.dialect,
    clock,
    logger,
    pollIntervalMs: config.jobs.pollIntervalMs,
    leaseMs: config.jobs.leaseMs,
    beforeEachPass: () => notifications.sweepDigests(),
    alsoPrune: [() => idempotency.prune()],
  });
  const secrets = createSecretBox({ secret: config.ai.secret, dataDir: config.dataDir });
  const webhooks = createWebhookService({
    db: kysely,
    access,
    jobs,
    mailer,
    secrets,
    clock,
    logger,
    appUrl: config.appUrl,
    allowPrivate: config.webhooks.allowPrivate,
    sendTimeoutMs: Math.min(60_000, config.jobs.leaseMs / 2),
  });
  // A change's events reach the webhooks where its live update is published (decision 041).
  const projectEvents = createProjectEvents(access, live, logger, webhooks.emit);
  const notifications = createNotificationService({
    db: kysely,
    access,
    live,
    jobs,
    mailer,
    appUrl: config.appUrl,
    clock,
    logger,
    // A send that outlives its claim could be sent again by whoever takes the job over.
    sendTimeoutMs: Math.min(60_000, config.jobs.leaseMs / 2),
    defaultTimeZone: config.defaultTimeZone,
  });
  // Web Push is the notifications' push channel (decision 036).
  const push = createPushService({ db: kysely, config, logger, clock, agent: options.pushAgent });
  notifications.addChannel(createPushChannel(push));
  const reminders = createReminderService({ db: kysely, access, jobs, notifications, clock, logger });
  const sections = createSectionService({ db: kysely, access, projectEvents });
  const tasks = createTaskService({
    db: kysely,
    dialect: db.dialect,
    projectEvents,
    access,
    fileStore,
    logger,
    notifications,
    reminders,
    clock,
    sections,
    defaultTimeZone: config.defaultTimeZone,
  });
  const checklists = createChecklistService({ db: kysely, access, projectEvents, tasks });
  const tokens = createTokenService({ tokens: createTokenRepository(kysely), access });
  const passkeys = createPasskeyService({
    passkeys: createPasskeyRepository(kysely),
    sessions,
    appUrl: config.appUrl,
    defaultTimeZone: config.defaultTimeZone,
  });
  await app.register(sessionPlugin, { sessions, tokens, appUrl: config.appUrl });
  // After the session (keys are per person), before the routes.
  await app.register(idempotencyPlugin, { store: idempotency });
  // Before the routes: it learns each one as it is added, and writes the document at ready.
  await registerOpenApi(app, { appUrl: config.appUrl });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await sql`select 1`.execute(kysely);
      return { status: 'ready' };
    } catch {
      return reply
        .code(503)
        .header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS))
        .send({ message: DATABASE_UNAVAILABLE });
    }
  });

  await authRoutes(app, { auth, sessions, rateLimiter, config });
  await twoFactorRoutes(app, { twoFactor, config });
  await oidcRoutes(app, {
    oidc: createOidc(config, kysely, users, logger, options.oidcFetch),
    sessions,
    config,
  });
  await passkeyRoutes(app, { passkeys, rateLimiter, config });
  await adminRoutes(app, {
    db: kysely,
    users,
    sessions,
    mailer,
    fileStore,
    live,
    appUrl: config.appUrl,
    logger,
    defaultTimeZone: config.defaultTimeZone,
  });
  const projects = createProjectService({
    db: kysely,
    fileStore,
    access,
    live,
    notifications,
    logger,
    changes: webhooks.emit,
    tasks,
  });
  await projectRoutes(app, { projects });
  await sectionRoutes(app, { sections });
  await templateRoutes(app, {
    templates: createTemplateService({
      db: kysely,
      access,
      live,
      clock,
      defaultTimeZone: config.defaultTimeZone,
      projects,
      sections,
    }),
  });
  await tasksRoutes(app, { tasks, checklists });
  const labels = createLabelService({ db: kysely, live, projectEvents });
  await labelRoutes(app, { labels });
  const caldav = createCaldavStore({
    db: kysely,
    access,
    tasks,
    labels,
    reminders,
    clock,
    appUrl: config.appUrl,
  });
  await tokenRoutes(app, { tokens });
  await calendarRoutes(app, { db: kysely, access, appUrl: config.appUrl });
  // Outside /api (no OpenAPI entry): WebDAV/CalDAV for task apps, signed in with an API token.
  await caldavRoutes(app, {
    store: caldav,
    tokens,
    loginGuard: createSignInGuard(rateLimiter, config.authRateLimit),
  });
  await dataRoutes(app, {
    db: kysely,
    live,
    access,
    projectEvents,
    defaultTimeZone: config.defaultTimeZone,
    warmList: tasks.warmList,
  });
  await commentRoutes(app, {
    comments: createCommentService({ db: kysely, access, projectEvents, notifications }),
  });
  const relations = createRelationService({ db: kysely, access, projectEvents });
  await relationRoutes(app, { relations });
  await reminderRoutes(app, { reminders });
  await notificationRoutes(app, { notifications });
  await activityRoutes(app, { db, access });
  await liveRoutes(app, { live, access });
  await pushRoutes(app, { push, access });
  await webhookRoutes(app, { webhooks });
  await agentRoutes(app, {
    db: kysely,
    access,
    projectEvents,
    tasks,
    checklists,
    secrets,
    rateLimiter,
    config: config.ai,
    logger,
    attachments: createAttachmentReader({
      db: kysely,
      store: fileStore,
      budgetChars: config.ai.contextChars,
      maxPdfBytes: config.maxUploadBytes,
      logger,
    }),
  });
  await fileRoutes(app, {
    db: kysely,
    store: fileStore,
    access,
    projectEvents,
    maxUploadBytes: config.maxUploadBytes,
    logger,
  });
  // Outside /api: its own bearer check, and no OpenAPI entry (the document covers /api only).
  await mcpRoutes(app, {
    tokens,
    tasks,
    checklists,
    agents: createAgentRepository(kysely),
    projects,
    relations,
    logger,
  });

  if (hasClient) await serveClient(app, options.clientDir!);
  // Every instance polls for due jobs once it is ready; closing stops it first (before the mailer).
  app.addHook('onReady', async () => jobs.start());
  app.addHook('preClose', async () => jobs.stop());
  app.addHook('onClose', async () => mailer.close());
  app.addHook('onClose', async () => live.close());
  return {
    app,
    ctx: { config, db, logger, users, auth, fileStore, live, clock, jobs, notifications, push, caldav },
    routes,
  };
}

/**
 * At info (the default level) and below, one line per answer: method, path (a calendar feed's
 * secret left out), status, milliseconds and the client's address, with the request id. Errors
 * are logged where they are handled (http/errors.ts), whatever the level.
 */
function registerRequestLog(app: FastifyInstance) {
  const log = app.log as FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };
  if (!log.isLevelEnabled?.('info')) return;
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: withoutFeedSecret(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ip: request.ip,
      },
      'request',
    );
    done();
  });
}

/** Single sign-on's client and sign-in rules when OIDC_ISSUER is set; its metadata is fetched now, in the background. */
function createOidc(
  config: Config,
  db: Db['kysely'],
  users: UserRepository,
  logger: FastifyBaseLogger,
  fetch?: CustomFetch,
) {
  if (!config.oidc) return undefined;
  const client = createOidcClient({
    issuer: config.oidc.issuer,
    clientId: config.oidc.clientId,
    clientSecret: config.oidc.clientSecret,
    redirectUri: `${config.appUrl}${OIDC_PATHS.callback}`,
    logger,
    fetch,
  });
  client.warmUp();
  const signIn = createOidcSignIn({
    db,
    users,
    autoCreate: config.oidc.autoCreate,
    providerName: config.oidc.name,
    logger,
  });
  return { client, signIn };
}

/**
 * The built SPA's files; hashed assets are cached for good, the rest revalidated: index.html, and
 * the service worker /sw.js and /manifest.webmanifest (decision 020), so a new build reaches
 * installed apps on their next visit. /assets/ is read at each request, not listed at start: a build
 * installed beside a running server (decision 048) adds assets that its new index.html names, and
 * keeps earlier builds' assets for the pages still open on them.
 */
async function serveClient(app: FastifyInstance, clientDir: string) {
  const files = {
    wildcard: false,
    index: false,
    // scripts/compress-client.mjs writes .br and .gz beside each asset at build time.
    preCompressed: true,
  } as const;
  await app.register(fastifyStatic, {
    ...files,
    root: clientDir,
    globIgnore: ['assets/**'],
    setHeaders: (reply) => reply.header('Cache-Control', 'no-cache'),
  });
  await app.register(fastifyStatic, {
    ...files,
    root: path.join(clientDir, 'assets'),
    prefix: '/assets/',
    wildcard: true,
    decorateReply: false,
    // A folder is no asset: a 404 like any missing file (decision 028), not send's 403.
    allowedPath: (pathname) => !pathname.endsWith('/'),
    setHeaders: (reply) => reply.header('Cache-Control', 'public, max-age=31536000, immutable'),
  });
}
