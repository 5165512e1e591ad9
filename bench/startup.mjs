// Cold start-up to /readyz on a fresh DATA_DIR, and the login screen's JS/CSS as brotli (what the
// server sends a browser: the build's precompressed .br files) and as gzip.
// Targets (issues 2 and 15): start-up < 2 s; login screen < 120 KB compressed JS.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = path.resolve(process.env.BENCH_DIST ?? 'dist');
const RUNS = 3;

async function coldStart() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-bench-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(dist, 'server/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ADMIN_PASSWORD: 'bench-pass',
    },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (response.ok) return performance.now() - started;
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 20_000) throw new Error('server did not become ready in 20 s');
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The entry script, its static imports (modulepreload) and the stylesheets of index.html. */
function loginScreenAssets() {
  const clientDir = path.join(dist, 'client');
  const html = fs.readFileSync(path.join(clientDir, 'index.html'), 'utf8');
  const refs = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  const sizes = { js: 0, css: 0, jsBrotli: 0, cssBrotli: 0 };
  for (const ref of new Set(refs)) {
    const bytes = fs.readFileSync(path.join(clientDir, ref));
    const gz = gzipSync(bytes).length;
    const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    if (ref.endsWith('.js')) {
      sizes.js += gz;
      sizes.jsBrotli += br;
    }
    if (ref.endsWith('.css')) {
      sizes.css += gz;
      sizes.cssBrotli += br;
    }
  }
  return sizes;
}

const times = [];
for (let i = 0; i < RUNS; i++) times.push(await coldStart());
const assets = loginScreenAssets();
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.info('Start-up and login screen');
console.info(
  `  cold start to /readyz (fresh DATA_DIR, ${RUNS} runs): ${times.map((t) => `${t.toFixed(0)} ms`).join(', ')}  (best ${Math.min(...times).toFixed(0)} ms; target < 2000 ms)`,
);
console.info(
  `  login screen JS:  ${kb(assets.jsBrotli)} brotli, as served (target < 120 KB); ${kb(assets.js)} gzip`,
);
console.info(`  login screen CSS: ${kb(assets.cssBrotli)} brotli; ${kb(assets.css)} gzip`);
