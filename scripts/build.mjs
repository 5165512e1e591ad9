// npm run build: builds the client and the server into dist/ (or <dist>), always, keeping the hashed
// assets of earlier builds for the pages still open on them (decision 048). One build at a time.
import path from 'node:path';
import { build } from './builds.mjs';

await build({ root: process.cwd(), dist: path.resolve(process.argv[2] ?? 'dist') });
