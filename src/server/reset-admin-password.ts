import pino from 'pino';
import { generatePassword, hashPassword } from './auth/passwords';
import { createUserRepository } from './auth/repository';
import { createSessionCache } from './auth/session-cache';
import { createSessionStore } from './auth/sessions';
import { createTwoFactorRepository } from './auth/two-factor-repository';
import { ConfigError, loadConfig } from './config';
import { DataDirLockedError, openDatabase } from './db';
import { createLiveBus } from './live/bus';

/**
 * `npm run reset-admin-password`: gives the bootstrap administrator a new password
 * (ADMIN_PASSWORD, or a generated one printed here), turns their two-factor sign-in off (the
 * way back in after a lost phone: no one else can reset it) and ends their sessions.
 * Run it with the same configuration as the server; on SQLite, stop the server first.
 */
async function main() {
  const config = loadConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const admin = await db.kysely
      .selectFrom('users')
      .selectAll()
      .where('is_bootstrap', '=', true)
      .executeTakeFirst();
    if (!admin)
      throw new Error('There is no bootstrap administrator yet: start the server once to create it.');
    const password = config.admin.password ?? generatePassword();
    await createUserRepository(db.kysely).setPasswordHash(admin.id, await hashPassword(password));
    await db.kysely.updateTable('users').set({ is_suspended: false }).where('id', '=', admin.id).execute();
    await createTwoFactorRepository(db.kysely).disable(admin.id);
    // Running instances (PostgreSQL) forget the administrator's cached sessions too.
    const live = createLiveBus(db, pino({ level: 'warn' }));
    await createSessionStore(db.kysely, config.sessionTtlMs, {
      cache: createSessionCache(live),
    }).endAllForUser(admin.id);
    await live.close();
    console.info(
      config.admin.password
        ? `The password of "${admin.username}" is now ADMIN_PASSWORD.`
        : `The password of "${admin.username}" is now "${password}" (shown once).`,
    );
    if (admin.two_factor_enabled) {
      console.info('Two-factor sign-in is off for this account; turn it on again from Security.');
    }
  } finally {
    await db.close();
  }
}

main().catch((error) => {
  const known = error instanceof ConfigError || error instanceof DataDirLockedError;
  console.error(
    known ? error.message : `Could not reset the password: ${error instanceof Error ? error.message : error}`,
  );
  process.exit(1);
});
