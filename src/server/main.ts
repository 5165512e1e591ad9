import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';
import { DataDirLockedError, openDatabase } from './db';
import { S3SettingsError } from './files/s3-store';
import { createFileSweeper } from './files/sweeper';

const SHUTDOWN_GRACE_MS = 10_000;

/** Start-up: config, database (migrated), app, listen; SIGTERM drains and closes cleanly. */
async function main() {
  const config = loadConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const clientDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../client');
  const { app, ctx } = await buildApp({ config, db, clientDir });
  await ctx.fileStore.check();
  const bootstrap = await ctx.auth.ensureBootstrapAdmin(config.admin);
  // This instance's own partial uploads were cleared when its store opened; what no row claims is
  // swept now and then periodically, by one instance at a time.
  const sweeper = createFileSweeper({
    db,
    store: ctx.fileStore,
    minAgeMs: config.fileSweep.minAgeMs,
    logger: app.log,
  });
  sweeper.sweepOnce().catch((error) => app.log.warn({ err: error }, 'file sweep failed'));
  const stopSweeping = sweeper.start(config.fileSweep.intervalMs);
  app.addHook('onClose', async () => stopSweeping());

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: draining requests');
    // In-flight requests get a grace period; a keep-alive socket that missed the idle sweep
    // (one that finished a response as closing began) must not hold the exit for its full timeout.
    setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
    try {
      await app.close();
    } finally {
      await db.close();
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
  const lines = [
    '',
    `  Tasklane is running at ${url}`,
    `  Database: ${db.dialect === 'sqlite' ? `SQLite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'}`,
    bootstrap.generatedPassword
      ? `  Sign in as "${config.admin.username}" with password "${bootstrap.generatedPassword}" (shown only this once; change it from the settings menu).`
      : `  Sign in as "${config.admin.username}" with ${config.admin.password ? 'ADMIN_PASSWORD' : 'the password printed on first start'}.`,
    '',
  ];
  console.info(lines.join('\n'));
}

main().catch((error) => {
  if (
    error instanceof ConfigError ||
    error instanceof DataDirLockedError ||
    error instanceof S3SettingsError
  ) {
    console.error(error.message);
  } else {
    console.error('Tasklane could not start:', error instanceof Error ? error.message : error);
  }
  process.exit(1);
});
