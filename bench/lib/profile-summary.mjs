// Sums a CPU profile's self time by package (or source file of the server) and by function: where
// a request's time goes (issue 28). For a profile of the built server, its bundle's functions are
// named by their source file through the source map beside it.
//
//   BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' BENCH_DIALECTS=sqlite BENCH_PIN=pinned \
//     node bench/throughput.bench.mjs
//   node bench/lib/profile-summary.mjs /tmp/prof/CPU.*.cpuprofile [top] [skip]
//
// skip: the share of the profile's time (0-1) to leave out from its start: the server's start and
// the bench's setup (default 0).
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

const [file, top = '25', skip = '0'] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const maps = new Map();
function sourceMapOf(url) {
  if (!maps.has(url)) {
    let map = null;
    try {
      const mapFile = `${fileURLToPath(url)}.map`;
      if (fs.existsSync(mapFile)) map = new SourceMap(JSON.parse(fs.readFileSync(mapFile, 'utf8')));
    } catch {}
    maps.set(url, map);
  }
  return maps.get(url);
}

/** Where a frame's code comes from: a package, Node itself, a source file of ours, or V8. */
function origin({ url, lineNumber, columnNumber }) {
  if (!url) return null;
  const inPackage = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (inPackage) return { group: inPackage[1], where: url.split('node_modules/').at(-1) };
  if (url.startsWith('node:')) return { group: 'node', where: url };
  const map = url.startsWith('file:') ? sourceMapOf(url) : null;
  const entry = map?.findEntry(lineNumber, columnNumber);
  if (entry?.originalSource) {
    const source = entry.originalSource.replace(/^.*?\/(src|node_modules)\//, '$1/');
    const inPkg = source.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    return {
      group: inPkg ? inPkg[1] : source,
      where: `${source}:${entry.originalLine + 1}`,
    };
  }
  return { group: url, where: `${url}:${lineNumber + 1}` };
}

const self = new Map();
const from = profile.startTime + Number(skip) * (profile.endTime - profile.startTime);
let at = profile.startTime;
profile.samples.forEach((id, i) => {
  at += profile.timeDeltas[i] ?? 0;
  if (at >= from) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const byGroup = new Map();
const byFunction = new Map();
let total = 0;
for (const node of profile.nodes) {
  const micros = self.get(node.id) ?? 0;
  if (!micros) continue;
  const name = node.callFrame.functionName || '(anonymous)';
  if (name === '(idle)') continue;
  total += micros;
  const from = origin(node.callFrame);
  const group = from?.group ?? name;
  const fn = from ? `${name} ${from.where}` : name;
  byGroup.set(group, (byGroup.get(group) ?? 0) + micros);
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
}
const show = (title, map) => {
  console.info(`\n${title} (self time, of ${(total / 1000).toFixed(0)} ms busy)`);
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
    console.info(`${((micros / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
  }
};
show('by package or source file', byGroup);
show('by function', byFunction);
