// Bundles the server's entry points into dist/server (or <outdir>); dependencies stay in node_modules.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const outdir = path.resolve(process.argv[2] ?? 'dist/server');

await build({
  entryPoints: ['src/server/main.ts', 'src/server/reset-admin-password.ts', 'src/server/cli.ts'],
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});

// A build outside the project (a second build for parallel browser tests) still finds its packages.
if (path.relative(process.cwd(), outdir).startsWith('..')) {
  const link = path.join(outdir, 'node_modules');
  if (!fs.existsSync(link)) fs.symlinkSync(path.resolve('node_modules'), link, 'dir');
}
