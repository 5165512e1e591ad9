import path from 'node:path';
import { createSecretBox, loadAiKey } from './agents/crypto';
import { ConfigError, loadConfig } from './config';
import { DataDirLockedError, openDatabase } from './db';
import { createFileStore } from './files/driver';
import { S3SettingsError } from './files/s3-store';
import { type FileProgress, formatSummary, megabytes } from './transfer/archive';
import { exportArchive } from './transfer/export';
import { importArchive } from './transfer/import';

const USAGE = `Usage: npm run cli -- <command> <file>

Run with the same environment as the server (DATA_DIR, DATABASE_URL, S3_*, AI_SECRET), server stopped.

  export <file>   write the whole instance into an archive (gzipped when <file> ends in .gz or .tgz)
  import <file>   load an archive into a new instance, before its first start`;

type Command = 'export' | 'import';

/** At most a line a second, so thousands of small files do not flood the terminal. */
function progressPrinter(verb: string) {
  let last = performance.now();
  return ({ files, totalFiles, bytes }: FileProgress) => {
    const now = performance.now();
    if (now - last < 1000) return;
    last = now;
    const count = totalFiles === undefined ? `${files}` : `${files}/${totalFiles}`;
    process.stderr.write(`${verb} files: ${count} (${megabytes(bytes)})\n`);
  };
}

async function run(command: Command, file: string): Promise<string> {
  const config = loadConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const store = await createFileStore(config);
    await store.check();
    const ai = { secret: config.ai.secret, dataDir: config.dataDir };
    if (command === 'export') {
      const summary = await exportArchive({
        db,
        store,
        aiKey: loadAiKey(ai),
        file,
        onProgress: progressPrinter('exporting'),
      });
      return formatSummary('exported', summary);
    }
    const summary = await importArchive({
      db,
      store,
      secrets: createSecretBox(ai),
      file,
      onProgress: progressPrinter('importing'),
    });
    if (summary.unreadableAiKeys > 0) {
      process.stderr.write(
        `warning: ${summary.unreadableAiKeys} saved AI key(s) could not be read on the source either ` +
          '(sealed under an earlier secret); those people connect their AI again\n',
      );
    }
    return formatSummary('imported', summary);
  } finally {
    await db.close();
  }
}

const [command, file, ...extra] = process.argv.slice(2);
if ((command !== 'export' && command !== 'import') || !file || extra.length > 0) {
  console.error(USAGE);
  process.exit(2);
}
run(command, path.resolve(file)).then(
  (summary) => {
    console.info(summary);
    process.exit(0);
  },
  (error: unknown) => {
    // Configuration, a running server or a bucket that refuses: their own line says what to fix.
    const ownLine =
      error instanceof ConfigError || error instanceof DataDirLockedError || error instanceof S3SettingsError;
    const message = error instanceof Error ? error.message : String(error);
    console.error(ownLine ? message : `${command} failed: ${message}`);
    process.exit(1);
  },
);
