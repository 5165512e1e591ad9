// Bundles the server into dist/server/main.js (or <outdir>/main.js); dependencies stay in node_modules.
import { build } from 'esbuild';

const outdir = process.argv[2] ?? 'dist/server';

await build({
  entryPoints: ['src/server/main.ts'],
  outfile: `${outdir}/main.js`,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
