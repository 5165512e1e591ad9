// Builds of the app in dist/ (issue 28, decision 048): a build is made in a folder of its own and
// moved into dist file by file, beside the hashed assets of the builds before it, which pages opened
// on those builds still ask for. dist/build.json records what each build was made from and holds.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * How long an earlier build's assets stay: while it is one of the last `builds` builds, or was
 * replaced less than `days` ago. Either keeps it, so a burst of rebuilds cannot take the assets
 * from under a tab opened this morning, and a tab left open over a long weekend still finds its own.
 */
export const KEEP = { builds: 3, days: 7 };
const DAY_MS = 24 * 60 * 60 * 1000;

/** What a build is made of, relative to the project: a change in any of these may change the app. */
const INPUTS = ['src', 'scripts', 'vite.config.ts', 'tsconfig.json', 'package.json', 'package-lock.json'];
/** Tests are in src/ and scripts/ but in no build. */
const NOT_BUILT = /\.test\.[cm]?[jt]sx?$/;

const RECORD = 'build.json';
const LOCK = '.build.lock';
/** A build's own folder in dist, while it is made: on the same file system, so each file moves by rename. */
const STAGING_PREFIX = '.staging-';
/** The client's files that name the others: they land last, once what they name is there. */
const LAST = ['sw.js', 'index.html'];

/** Every file under `dir`, as paths relative to it ('/'-separated, sorted); a symbolic link is a file. */
function filesUnder(dir, base = dir) {
  if (!fs.existsSync(dir)) return [];
  const files = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(full, base));
    else files.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return files.sort();
}

/** SHA-256 of the build's inputs: each file's path and content, tests left out. */
export function sourcesHash(root) {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    const full = path.join(root, input);
    if (!fs.existsSync(full)) continue;
    const files = fs.statSync(full).isDirectory()
      ? filesUnder(full).map((file) => `${input}/${file}`)
      : [input];
    for (const file of files) {
      if (NOT_BUILT.test(file)) continue;
      hash.update(`${file}\0`);
      hash.update(fs.readFileSync(path.join(root, file)));
      hash.update('\0');
    }
  }
  return hash.digest('hex');
}

/** dist/build.json: the inputs' hash of the build in dist, and the builds whose assets are kept (oldest first). */
export function readBuildRecord(dist) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dist, RECORD), 'utf8'));
  } catch {
    return { sources: null, builds: [] };
  }
}

/** Whether dist lacks a build of the project as it is now (the server or the client missing counts). */
export function needsBuild(root, dist) {
  if (!fs.existsSync(path.join(dist, 'server', 'main.js'))) return true;
  if (!fs.existsSync(path.join(dist, 'client', 'index.html'))) return true;
  return readBuildRecord(dist).sources !== sourcesHash(root);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Runs `work` holding dist's build lock (dist/.build.lock, holding the process id), so two builds
 * into one dist never run at once: a second waits, `onWait(pid)` told once. A lock whose process is
 * gone (a build killed midway) is taken over.
 */
export async function withBuildLock(dist, work, { onWait } = {}) {
  fs.mkdirSync(dist, { recursive: true });
  const lock = path.join(dist, LOCK);
  let told = false;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    let holder;
    try {
      holder = Number(fs.readFileSync(lock, 'utf8'));
    } catch {
      continue; // freed meanwhile
    }
    // A lock being written has no number yet: wait for it like any other.
    if (holder > 0 && !alive(holder)) {
      fs.rmSync(lock, { force: true });
      continue;
    }
    if (!told) onWait?.(holder);
    told = true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** Moves `from/<file>` to `to/<file>` by rename (atomic: a reader sees the old file or the new, whole). */
function move(from, to, file) {
  fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
  fs.renameSync(path.join(from, file), path.join(to, file));
}

/** Which builds' assets stay: the last KEEP.builds, and any replaced (by the next build) less than KEEP.days ago. */
function keptBuilds(builds, now, keep) {
  return builds.filter(
    (_, i) => i >= builds.length - keep.builds || now - builds[i + 1].builtAt < keep.days * DAY_MS,
  );
}

/**
 * Installs the build in `staging` (its client/ and server/, made inside dist) into dist, in an order
 * that never leaves a running server without a file it names: the new hashed assets beside the old
 * ones, then the other client files (the service worker and index.html last), then the server's
 * files. Files the new build does not have go, except earlier builds' assets: those stay as KEEP
 * says, and the record names them. Assets found in dist without a record (a dist built before this)
 * count as an earlier build.
 */
export function installBuild({ dist, staging, sources, now = Date.now(), keep = KEEP }) {
  const client = path.join(dist, 'client');
  const assets = path.join(client, 'assets');
  const newClient = path.join(staging, 'client');
  const newAssets = filesUnder(path.join(newClient, 'assets'));

  const { builds } = readBuildRecord(dist);
  const recorded = new Set([...builds.flatMap((build) => build.assets), ...newAssets]);
  const unrecorded = filesUnder(assets).filter((file) => !recorded.has(file));
  if (unrecorded.length > 0) builds.push({ builtAt: now, assets: unrecorded });
  builds.push({ builtAt: now, assets: newAssets });

  // Hashed names never collide: one already there is this very file.
  for (const file of newAssets) {
    if (!fs.existsSync(path.join(assets, file))) move(path.join(newClient, 'assets'), assets, file);
  }
  const others = filesUnder(newClient).filter((file) => !file.startsWith('assets/'));
  const rank = (file) => LAST.findIndex((name) => file === name || file.startsWith(`${name}.`));
  for (const file of filesUnder(client)) {
    if (!file.startsWith('assets/') && !others.includes(file)) fs.rmSync(path.join(client, file));
  }
  for (const file of others.sort((a, b) => rank(a) - rank(b))) move(newClient, client, file);

  const server = path.join(dist, 'server');
  const newServer = filesUnder(path.join(staging, 'server'));
  for (const file of filesUnder(server)) {
    // A build outside the project links its node_modules here (scripts/build-server.mjs).
    if (file !== 'node_modules' && !newServer.includes(file)) fs.rmSync(path.join(server, file));
  }
  for (const file of newServer) move(path.join(staging, 'server'), server, file);

  const kept = keptBuilds(builds, now, keep);
  const keptAssets = new Set(kept.flatMap((build) => build.assets));
  for (const file of filesUnder(assets)) {
    if (!keptAssets.has(file)) fs.rmSync(path.join(assets, file));
  }
  const record = path.join(dist, RECORD);
  fs.writeFileSync(`${record}.new`, `${JSON.stringify({ sources, builds: kept }, null, 2)}\n`);
  fs.renameSync(`${record}.new`, record);
  fs.rmSync(staging, { recursive: true, force: true });
}

function run(root, script, args) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${path.basename(script)} ${args.join(' ')} failed`);
}

/**
 * Builds the client (Vite, then its .br and .gz) and the server (esbuild) into a folder of their own
 * and installs them into dist, holding dist's lock. With `onlyWhenNeeded`, nothing is built when
 * dist already holds a build of these sources (checked again once the lock is held: a start that
 * waited for another's build finds it done). Returns whether it built.
 */
export async function build({ root, dist, onlyWhenNeeded = false, log = console }) {
  return withBuildLock(
    dist,
    async () => {
      if (onlyWhenNeeded && !needsBuild(root, dist)) return false;
      // Hashed before building: a file changed while Vite runs makes the next start build again.
      const sources = sourcesHash(root);
      const staging = fs.mkdtempSync(path.join(dist, STAGING_PREFIX));
      try {
        run(root, path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), [
          'build',
          '--outDir',
          path.join(staging, 'client'),
        ]);
        run(root, path.join(root, 'scripts', 'compress-client.mjs'), [path.join(staging, 'client')]);
        run(root, path.join(root, 'scripts', 'build-server.mjs'), [path.join(staging, 'server')]);
        installBuild({ dist, staging, sources });
      } finally {
        fs.rmSync(staging, { recursive: true, force: true });
      }
      return true;
    },
    {
      onWait: (pid) =>
        log.info(`Waiting for the build in ${path.relative(root, dist) || dist} (process ${pid}) to finish…`),
    },
  );
}
