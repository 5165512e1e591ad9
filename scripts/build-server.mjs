// Bundles the server's entry points into dist/server (or <outdir>); dependencies stay in node_modules.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const outdir = path.resolve(process.argv[2] ?? 'dist/server');

const options = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
};

await build({
  ...options,
  entryPoints: ['src/server/main.ts', 'src/server/reset-admin-password.ts', 'src/server/cli.ts'],
  outdir,
});

// The attachment reader's worker thread (decision 022): its own file beside main.js, where
// `new URL('./attachment-worker.mjs', import.meta.url)` in the bundle finds it.
await build({
  ...options,
  entryPoints: ['src/server/agents/attachment-worker.mjs'],
  outfile: path.join(outdir, 'attachment-worker.mjs'),
});

// A build outside the project (a second build for parallel browser tests) still finds its packages.
if (path.relative(process.cwd(), outdir).startsWith('..')) {
  const link = path.join(outdir, 'node_modules');
  if (!fs.existsSync(link)) fs.symlinkSync(path.resolve('node_modules'), link, 'dir');
}
