import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** Packages only some installations or requests use (decision 027). */
const LOADED_ON_FIRST_USE = [
  'pg',
  '@aws-sdk/client-s3',
  '@aws-sdk/lib-storage',
  'nodemailer',
  'openai',
  'openid-client',
  '@simplewebauthn/server',
  'chrono-node',
  'web-push',
  'ical.js',
  'fast-xml-parser',
  '@modelcontextprotocol/sdk/server/mcp.js',
  '@modelcontextprotocol/sdk/server/streamableHttp.js',
];

describe('packages loaded on first use', () => {
  it('are not imported when the server starts, only when first needed', async () => {
    // The server's bundle as scripts/build-server.mjs makes it, packages left to node_modules.
    const { metafile } = await build({
      entryPoints: ['src/server/main.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      write: false,
      outdir: 'dist/server',
      metafile: true,
      logLevel: 'silent',
    });
    const imports = Object.values(metafile.outputs).flatMap((output) => output.imports);
    const atStart = imports.filter((i) => i.kind === 'import-statement').map((i) => i.path);
    const later = imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path);
    expect(atStart.filter((path) => LOADED_ON_FIRST_USE.includes(path))).toEqual([]);
    expect(later).toEqual(expect.arrayContaining(LOADED_ON_FIRST_USE));
  }, 30_000);
});
