// npm start: builds only when the sources or the lock file changed since the build in dist/ (or dist/
// lacks one), waiting for a build another start is making, then runs the server in this process
// (decision 048). A server already running from this folder keeps its assets.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, needsBuild } from './builds.mjs';

const root = process.cwd();
const dist = path.join(root, 'dist');
const built = needsBuild(root, dist) && (await build({ root, dist, onlyWhenNeeded: true }));
if (!built)
  console.info('The build in dist/ is up to date (no source or lock file changed since): starting it.');
await import(pathToFileURL(path.join(dist, 'server', 'main.js')).href);
