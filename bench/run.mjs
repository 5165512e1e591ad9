// Runs every benchmark in bench/ in turn (each prints its own figures). Needs `npm run build` first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const benches = fs
  .readdirSync('bench')
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs')
  .sort();
for (const bench of benches) {
  console.info(`\n=== bench/${bench}`);
  const result = spawnSync(process.execPath, [`bench/${bench}`], { stdio: 'inherit' });
  if (result.status !== 0) process.exitCode = 1;
}
