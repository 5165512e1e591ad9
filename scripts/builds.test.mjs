import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installBuild, KEEP, needsBuild, readBuildRecord, sourcesHash, withBuildLock } from './builds.mjs';

/**
 * Issue 28 (decision 048): `npm start` builds only when what the build is made of changed, and a
 * build lands in dist/ beside the earlier builds' hashed assets, so pages still open on them keep
 * loading their lazy scripts. Run on a made-up project and made-up builds in a temporary folder.
 */
const DAY = 24 * 60 * 60 * 1000;

let root;
let dist;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-builds-'));
  dist = path.join(root, 'dist');
  write(root, {
    'src/client/index.html': '<div id="root"></div>',
    'src/client/main.tsx': 'render();',
    'src/client/main.test.ts': 'it();',
    'src/server/main.ts': 'listen();',
    'scripts/build-server.mjs': 'build();',
    'package.json': '{"name":"tasklane"}',
    'package-lock.json': '{"lockfileVersion":3}',
    'vite.config.ts': 'export default {};',
    'tsconfig.json': '{}',
    'README.md': '# Tasklane',
  });
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function write(base, files) {
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(base, name)), { recursive: true });
    fs.writeFileSync(path.join(base, name), content);
  }
}
const read = (...parts) => fs.readFileSync(path.join(...parts), 'utf8');
const exists = (...parts) => fs.existsSync(path.join(...parts));
const assetsOnDisk = () => fs.readdirSync(path.join(dist, 'client', 'assets')).sort();

/**
 * A finished build as scripts/build.mjs leaves it before installing: client and server in a folder
 * of their own inside dist. `version` names its hashed assets; `shared` ones keep their name.
 */
function staged(version, { shared = [], extra = {} } = {}) {
  fs.mkdirSync(dist, { recursive: true });
  const staging = fs.mkdtempSync(path.join(dist, '.staging-'));
  const assets = Object.fromEntries([
    [`client/assets/index-${version}.js`, `import('./toast-list-${version}.js')`],
    [`client/assets/index-${version}.js.br`, 'br'],
    [`client/assets/toast-list-${version}.js`, `toasts ${version}`],
    ...shared.map((name) => [`client/assets/${name}`, name]),
  ]);
  write(staging, {
    ...assets,
    'client/index.html': `<script src="/assets/index-${version}.js"></script>`,
    'client/sw.js': `precache ${version}`,
    'client/icons/icon-192.png': 'png',
    'server/main.js': `server ${version}`,
    ...extra,
  });
  return staging;
}

function install(version, now, options = {}) {
  installBuild({ dist, staging: staged(version, options), sources: sourcesHash(root), now, ...options });
}

describe('whether npm start builds', () => {
  it('builds until a build of these very sources is in dist, and again when a source or the lock file changes', () => {
    expect(needsBuild(root, dist)).toBe(true);
    install('a1', Date.now());
    expect(needsBuild(root, dist)).toBe(false);

    for (const [file, changed] of [
      ['src/client/main.tsx', 'render(<App />);'],
      ['src/client/index.html', '<div id="app"></div>'],
      ['src/server/new-route.ts', 'route();'],
      ['package-lock.json', '{"lockfileVersion":3,"packages":{}}'],
      ['package.json', '{"name":"tasklane","version":"2"}'],
      ['vite.config.ts', 'export default { build: {} };'],
      ['tsconfig.json', '{"strict":true}'],
      ['scripts/build-server.mjs', 'build({ minify: true });'],
    ]) {
      const before = read(root, file === 'src/server/new-route.ts' ? 'src/server/main.ts' : file);
      write(root, { [file]: changed });
      expect(needsBuild(root, dist), file).toBe(true);
      if (file === 'src/server/new-route.ts') fs.rmSync(path.join(root, file));
      else write(root, { [file]: before });
      // The content decides, not the time: put back as it was, the build in dist is current again.
      expect(needsBuild(root, dist), `${file} put back`).toBe(false);
    }
  });

  it('does not build for a change to a test, the README or the data folder', () => {
    install('a1', Date.now());
    write(root, { 'src/client/main.test.ts': 'it("again");', 'README.md': '# New', 'data/tasklane.db': 'x' });
    expect(needsBuild(root, dist)).toBe(false);
  });

  it('builds when part of the build is missing from dist', () => {
    install('a1', Date.now());
    fs.rmSync(path.join(dist, 'client', 'index.html'));
    expect(needsBuild(root, dist)).toBe(true);
    install('a1', Date.now());
    fs.rmSync(path.join(dist, 'server', 'main.js'));
    expect(needsBuild(root, dist)).toBe(true);
  });

  it('starts the built server without building when dist is current (scripts/start.mjs)', async () => {
    install('a1', Date.now());
    // A stand-in for the built server: says it runs, as dist/server/main.js does.
    write(dist, { 'server/main.js': "console.info('  Tasklane is running at http://127.0.0.1:3000');" });
    const start = path.resolve(import.meta.dirname, 'start.mjs');
    const { stdout } = await promisify(execFile)(process.execPath, [start], { cwd: root });
    expect(stdout).toContain('up to date');
    expect(stdout).toContain('Tasklane is running at http://127.0.0.1:3000');
    expect(fs.readdirSync(dist).filter((name) => name.startsWith('.staging-'))).toEqual([]);
  });
});

describe('installing a build into dist', () => {
  it('keeps the earlier build’s hashed assets beside the new ones and replaces everything else', () => {
    const t0 = Date.UTC(2026, 10, 1);
    install('a1', t0, { extra: { 'client/old-only.txt': 'gone next time' } });
    install('b2', t0 + 60_000);

    expect(assetsOnDisk()).toEqual([
      'index-a1.js',
      'index-a1.js.br',
      'index-b2.js',
      'index-b2.js.br',
      'toast-list-a1.js',
      'toast-list-b2.js',
    ]);
    expect(read(dist, 'client', 'assets', 'toast-list-a1.js')).toBe('toasts a1');
    expect(read(dist, 'client', 'index.html')).toContain('index-b2.js');
    expect(read(dist, 'client', 'sw.js')).toBe('precache b2');
    expect(read(dist, 'server', 'main.js')).toBe('server b2');
    expect(exists(dist, 'client', 'old-only.txt')).toBe(false);
    expect(exists(dist, 'client', 'icons', 'icon-192.png')).toBe(true);
    // Nothing is left behind of the build's own folder, and the record says what was built from what.
    expect(fs.readdirSync(dist).filter((name) => name.startsWith('.staging-'))).toEqual([]);
    const record = readBuildRecord(dist);
    expect(record.sources).toBe(sourcesHash(root));
    expect(record.builds.map((build) => build.builtAt)).toEqual([t0, t0 + 60_000]);
  });

  it(`drops a build's assets once ${KEEP.builds} newer builds came and it was replaced over ${KEEP.days} days ago`, () => {
    const t0 = Date.UTC(2026, 10, 1);
    install('a1', t0, { shared: ['vendor-same.js'] });
    install('b2', t0 + 60_000, { shared: ['vendor-same.js'] });
    install('c3', t0 + 120_000, { shared: ['vendor-same.js'] });
    install('d4', t0 + 180_000, { shared: ['vendor-same.js'] });
    // Four builds within minutes: all are kept (the oldest was replaced only three minutes ago).
    expect(assetsOnDisk().filter((name) => name.startsWith('toast-list'))).toEqual([
      'toast-list-a1.js',
      'toast-list-b2.js',
      'toast-list-c3.js',
      'toast-list-d4.js',
    ]);

    install('e5', t0 + (KEEP.days + 1) * DAY, { shared: ['vendor-same.js'] });
    // a1 and b2 were replaced over a week ago and are older than the last three builds; c3 was
    // replaced over a week ago too, but is one of the last three.
    expect(assetsOnDisk()).toEqual([
      'index-c3.js',
      'index-c3.js.br',
      'index-d4.js',
      'index-d4.js.br',
      'index-e5.js',
      'index-e5.js.br',
      'toast-list-c3.js',
      'toast-list-d4.js',
      'toast-list-e5.js',
      'vendor-same.js',
    ]);
    expect(readBuildRecord(dist).builds).toHaveLength(3);
  });

  it('keeps a build replaced less than a week ago, however many builds came since', () => {
    const t0 = Date.UTC(2026, 10, 1);
    install('a1', t0);
    for (const [i, version] of ['b2', 'c3', 'd4', 'e5', 'f6'].entries()) install(version, t0 + (i + 1) * DAY);
    // a1 was replaced on day 1, four days ago: still within the week.
    expect(assetsOnDisk()).toContain('toast-list-a1.js');
    install('g7', t0 + 9 * DAY);
    expect(assetsOnDisk()).not.toContain('toast-list-a1.js');
    expect(assetsOnDisk()).toContain('toast-list-d4.js'); // replaced on day 4, five days ago
  });

  it('keeps the assets of a dist built before builds were recorded, as an earlier build', () => {
    const t0 = Date.UTC(2026, 10, 1);
    write(dist, {
      'client/index.html': '<script src="/assets/index-old.js"></script>',
      'client/assets/index-old.js': 'old',
      'client/assets/toast-list-old.js': 'old toasts',
      'server/main.js': 'old server',
    });
    install('a1', t0);
    expect(assetsOnDisk()).toContain('toast-list-old.js');
    for (const [i, version] of ['b2', 'c3', 'd4'].entries()) install(version, t0 + (KEEP.days + 1 + i) * DAY);
    expect(assetsOnDisk()).not.toContain('toast-list-old.js');
  });

  it('keeps the link to node_modules of a build made outside the project', () => {
    write(dist, { 'server/main.js': 'old server' });
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dist, 'server', 'node_modules'), 'dir');
    install('a1', Date.now());
    expect(fs.lstatSync(path.join(dist, 'server', 'node_modules')).isSymbolicLink()).toBe(true);
  });
});

describe('one build at a time', () => {
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  it('makes a second build wait until the first has finished', async () => {
    const steps = [];
    const job = (name) => async () => {
      steps.push(`${name} starts`);
      await sleep(50);
      steps.push(`${name} ends`);
    };
    const waited = [];
    await Promise.all([
      withBuildLock(dist, job('first')),
      sleep(10).then(() => withBuildLock(dist, job('second'), { onWait: (pid) => waited.push(pid) })),
    ]);
    expect(steps).toEqual(['first starts', 'first ends', 'second starts', 'second ends']);
    expect(waited).toEqual([process.pid]);
    expect(exists(dist, '.build.lock')).toBe(false);
  });

  it('takes over a lock left by a build that died, and frees the lock when a build fails', async () => {
    // A process id that was alive once and is not any more.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout;
    write(dist, { '.build.lock': String(gone) });
    let ran = false;
    await withBuildLock(dist, async () => {
      ran = true;
    });
    expect(ran).toBe(true);

    await expect(
      withBuildLock(dist, async () => {
        throw new Error('vite failed');
      }),
    ).rejects.toThrow('vite failed');
    expect(exists(dist, '.build.lock')).toBe(false);
  });
});
