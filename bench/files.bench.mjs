// Upload and download throughput of one large file through the built server, next to `cp` of the
// same file on the same disk (and a plain Node stream copy), and the server's memory growth meanwhile
// (targets: upload at least 0.3 of `cp`, download at least half the stream copy; memory growth under
// 50 MB, as uploads and downloads stream).
//
//   npm run build && node bench/files.bench.mjs
//
// The same upload and download then go through a second server whose files live in an S3 bucket
// (s3rver, an S3-compatible server from npm, in its own process on this machine).
//
// BENCH_DIST: the build to run (default dist). BENCH_FILE_MB: file size (default 200).
// BENCH_RUNS: runs of the measures, medians are shown (default 5).
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { startProcess } from './lib/app.mjs';

const DIST = path.resolve(process.env.BENCH_DIST ?? 'dist');
/** Each child listens on a free port of the loopback interface. */
const FREE_PORT = { PORT: '0', HOST: '127.0.0.1' };
const FILE_MB = Number(process.env.BENCH_FILE_MB ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ADMIN = { username: 'bench', password: 'bench-password' };
const TARGETS = { uploadOfCp: 0.3, ratio: 0.5, memoryGrowthMb: 50 };
const MB = 1024 * 1024;

const print = (line) => process.stdout.write(`${line}\n`);

/**
 * The floor under any Node server: plain node:http streaming the file out, and a request body
 * straight to disk (no multipart parsing, no session, no database).
 */
const BARE_SERVER = `
import fs from 'node:fs';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-length': fs.statSync(process.env.BARE_FILE).size });
    fs.createReadStream(process.env.BARE_FILE).pipe(res);
  } else {
    pipeline(req, fs.createWriteStream(process.env.BARE_UPLOAD)).then(() => res.writeHead(201).end('[{"id":0}]'));
  }
});
server.listen(0, '127.0.0.1', () => console.info('running at http://127.0.0.1:' + server.address().port));
`;

/** s3rver in a child process with one bucket, so its work does not count as the app server's. */
const S3_SERVER = `
import S3rver from 's3rver';
const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: process.env.S3_DIR,
  configureBuckets: [{ name: 'bench', configs: [] }] });
const { port } = await server.run();
console.info('running at http://127.0.0.1:' + port);
`;

const main = path.join(DIST, 'server', 'main.js');
if (!fs.existsSync(main)) {
  console.error(`${main} is missing: run npm run build first`);
  process.exit(1);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-files-bench-'));
const source = path.join(work, 'source.bin');
let server;
let bare;
let s3;
let s3Server;

try {
  await writeSourceFile(source, FILE_MB * MB);
  const sourceHash = await sha256(source);
  const warmFile = path.join(work, 'warm-source.bin');
  await writeSourceFile(warmFile, 12 * MB);

  server = await startServer(path.join(work, 'data'));
  bare = await startBareServer(source, path.join(work, 'bare-upload.bin'));
  s3 = await startProcess(
    ['--input-type=module', '-e', S3_SERVER],
    { ...FREE_PORT, S3_DIR: path.join(work, 's3') },
    's3rver',
  );
  s3Server = await startServer(path.join(work, 'data-s3'), {
    S3_BUCKET: 'bench',
    S3_ENDPOINT: s3.url,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  const session = await signIn(server.url);
  const taskId = await createTask(server.url, session);
  const s3Session = await signIn(s3Server.url);
  const s3TaskId = await createTask(s3Server.url, s3Session);
  // Warm up the routes and the multipart parser, so the baseline holds everything loaded once. 12 MB
  // is over two of the S3 driver's 5 MiB parts, so its multipart upload code is loaded too.
  for (const [url, id, task] of [
    [server.url, session, taskId],
    [s3Server.url, s3Session, s3TaskId],
  ]) {
    const warm = await upload(url, id, task, warmFile);
    await download(url, id, warm.id, path.join(work, 'warm.bin'));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));

  const baseline = memory(server.pid);
  const s3Baseline = memory(s3Server.pid);
  let peakRss = baseline.rssKb;
  let s3PeakRss = s3Baseline.rssKb;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, memory(server.pid).rssKb);
    s3PeakRss = Math.max(s3PeakRss, memory(s3Server.pid).rssKb);
  }, 20);

  // The measures take turns in each run, so that load from elsewhere on the machine weighs
  // on all of them alike; ratios are taken within a run.
  const runs = [];
  const downloadTarget = path.join(work, 'downloaded.bin');
  let uploaded;
  let s3Uploaded;
  const s3Target = path.join(work, 'downloaded-s3.bin');
  for (let run = 0; run < RUNS; run++) {
    const cp = await timed(
      () =>
        new Promise((resolve, reject) =>
          execFile('cp', [source, path.join(work, 'cp.bin')], (error) => (error ? reject(error) : resolve())),
        ),
    );
    fs.rmSync(path.join(work, 'cp.bin'));
    const copyFile = await timed(() => fs.promises.copyFile(source, path.join(work, 'copy.bin')));
    const streamCopy = await timed(() =>
      pipeline(fs.createReadStream(source), fs.createWriteStream(path.join(work, 'stream-copy.bin'))),
    );
    const uploadMs = await timed(async () => {
      uploaded = await upload(server.url, session, taskId, source);
    });
    const downloadMs = await timed(() => download(server.url, session, uploaded.id, downloadTarget));
    const bareUploadMs = await timed(() => upload(bare.url, session, taskId, source));
    const bareDownloadMs = await timed(() => download(bare.url, session, 0, path.join(work, 'bare.bin')));
    const s3UploadMs = await timed(async () => {
      s3Uploaded = await upload(s3Server.url, s3Session, s3TaskId, source);
    });
    const s3DownloadMs = await timed(() => download(s3Server.url, s3Session, s3Uploaded.id, s3Target));
    runs.push({
      cp,
      copyFile,
      streamCopy,
      uploadMs,
      downloadMs,
      bareUploadMs,
      bareDownloadMs,
      s3UploadMs,
      s3DownloadMs,
    });
    fs.rmSync(path.join(work, 'copy.bin'));
    fs.rmSync(path.join(work, 'stream-copy.bin'));
  }
  clearInterval(sampler);
  const end = memory(server.pid);
  peakRss = Math.max(peakRss, end.rssKb);
  const s3End = memory(s3Server.pid);
  s3PeakRss = Math.max(s3PeakRss, s3End.rssKb);

  const cp = median(runs.map((r) => r.cp));
  const copyFile = median(runs.map((r) => r.copyFile));
  const streamCopy = median(runs.map((r) => r.streamCopy));
  const uploadMs = median(runs.map((r) => r.uploadMs));
  const downloadMs = median(runs.map((r) => r.downloadMs));
  const bareUploadMs = median(runs.map((r) => r.bareUploadMs));
  const bareDownloadMs = median(runs.map((r) => r.bareDownloadMs));
  const s3UploadMs = median(runs.map((r) => r.s3UploadMs));
  const s3DownloadMs = median(runs.map((r) => r.s3DownloadMs));
  const intact =
    uploaded.fileSize === FILE_MB * MB &&
    (await sha256(downloadTarget)) === sourceHash &&
    s3Uploaded.fileSize === FILE_MB * MB &&
    (await sha256(s3Target)) === sourceHash;
  const rate = (ms) => (FILE_MB / (ms / 1000)).toFixed(0).padStart(6);
  const uploadRatio = median(runs.map((r) => r.streamCopy / r.uploadMs));
  const uploadOfCp = runs.map((r) => r.cp / r.uploadMs);
  const downloadRatio = median(runs.map((r) => r.streamCopy / r.downloadMs));
  const growthMb = (peakRss - baseline.rssKb) / 1024;
  const s3GrowthMb = (s3PeakRss - s3Baseline.rssKb) / 1024;

  const bareRatio = (ms, bareMs) => (bareMs / ms).toFixed(2);
  print(`file: ${FILE_MB} MB, median of ${RUNS} runs, node ${process.version}, ${os.cpus().length} CPUs`);
  print(`  cp                     ${rate(cp)} MB/s   the upload's reference`);
  print(`  fs.copyFile            ${rate(copyFile)} MB/s`);
  print(`  stream copy            ${rate(streamCopy)} MB/s   the reference: read + write through Node`);
  print(
    `  upload (multipart)     ${rate(uploadMs)} MB/s   ratio ${median(uploadOfCp).toFixed(2)} of cp (min ${Math.min(...uploadOfCp).toFixed(2)}),` +
      ` ${uploadRatio.toFixed(2)} of the stream copy, ${bareRatio(uploadMs, bareUploadMs)} of bare node:http`,
  );
  print(
    `  download               ${rate(downloadMs)} MB/s   ratio ${downloadRatio.toFixed(2)} of the stream copy,` +
      ` ${bareRatio(downloadMs, bareDownloadMs)} of bare node:http`,
  );
  print(`  bare node:http upload  ${rate(bareUploadMs)} MB/s   body straight to disk, no parsing`);
  print(`  bare node:http dl      ${rate(bareDownloadMs)} MB/s   file piped to the response`);
  print(`  S3 driver upload       ${rate(s3UploadMs)} MB/s   through s3rver (its own process, same disk)`);
  print(`  S3 driver download     ${rate(s3DownloadMs)} MB/s`);
  print(`  bytes intact after the round trips: ${intact ? 'yes' : 'NO'}`);
  print(
    `server memory: baseline RSS ${(baseline.rssKb / 1024).toFixed(1)} MB, peak RSS ${(peakRss / 1024).toFixed(1)} MB` +
      ` (growth ${growthMb.toFixed(1)} MB), VmHWM ${(end.hwmKb / 1024).toFixed(1)} MB`,
  );
  print(
    `S3 server memory: baseline RSS ${(s3Baseline.rssKb / 1024).toFixed(1)} MB, peak RSS ${(s3PeakRss / 1024).toFixed(1)} MB` +
      ` (growth ${s3GrowthMb.toFixed(1)} MB)`,
  );
  const ratioOk = median(uploadOfCp) >= TARGETS.uploadOfCp && downloadRatio >= TARGETS.ratio;
  const memoryOk = Math.max(growthMb, s3GrowthMb) < TARGETS.memoryGrowthMb;
  print(
    `targets: upload >= ${TARGETS.uploadOfCp} of cp, download >= ${TARGETS.ratio} of the stream copy ${ratioOk ? 'met' : 'MISSED'}; memory growth < ${TARGETS.memoryGrowthMb} MB ${memoryOk ? 'met' : 'MISSED'}`,
  );
  if (!intact || !ratioOk || !memoryOk) process.exitCode = 1;
} finally {
  await server?.stop();
  await s3Server?.stop();
  await bare?.stop();
  await s3?.stop();
  fs.rmSync(work, { recursive: true, force: true });
}

/** Incompressible bytes, written in 1 MB chunks. */
async function writeSourceFile(file, bytes) {
  const out = fs.createWriteStream(file);
  for (let written = 0; written < bytes; written += MB) {
    if (!out.write(crypto.randomBytes(Math.min(MB, bytes - written)))) {
      await new Promise((resolve) => out.once('drain', resolve));
    }
  }
  await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
}

async function sha256(file) {
  const hash = crypto.createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/**
 * How long `work` takes, started with no unwritten data in the page cache: each measure writes
 * 200 MB, and the kernel's write-back of the previous one would otherwise slow whichever comes next.
 */
async function timed(work) {
  await new Promise((resolve, reject) => execFile('sync', (error) => (error ? reject(error) : resolve())));
  const started = performance.now();
  await work();
  return performance.now() - started;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** VmRSS and VmHWM of a process, in kB, from /proc (Linux). */
function memory(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0);
  return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
}

function startServer(dataDir, env = {}) {
  return startProcess(
    [main],
    {
      ...FREE_PORT,
      DATA_DIR: dataDir,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      MAX_UPLOAD_BYTES: String(2 * FILE_MB * MB),
      LOG_LEVEL: 'warn',
      ...env,
    },
    'Tasklane',
  );
}

function startBareServer(file, uploadTarget) {
  return startProcess(
    ['--input-type=module', '-e', BARE_SERVER],
    { ...FREE_PORT, BARE_FILE: file, BARE_UPLOAD: uploadTarget },
    'bare server',
  );
}

async function signIn(url) {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return (await res.json()).sessionId;
}

async function createTask(url, session) {
  const res = await fetch(`${url}/api/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-session': session },
    body: JSON.stringify({
      userId: 1,
      title: 'Bench',
      description: null,
      dueDate: null,
      completed: false,
      archived: false,
      position: 0,
      contextId: null,
    }),
  });
  if (!res.ok) throw new Error(`task not created: ${res.status} ${await res.text()}`);
  return (await res.json()).id;
}

/**
 * Uploads `file` as a browser would (multipart/form-data, field "files") with curl: a native client
 * that keeps up with the server. Node's own client, sharing the two cores, was itself the limit
 * (250-450 MB/s where curl sends 700-1,000 to the same server).
 */
function upload(url, session, taskId, file) {
  return new Promise((resolve, reject) =>
    execFile(
      'curl',
      [
        '--silent',
        '--show-error',
        '--fail-with-body',
        // No "Expect: 100-continue" round trip before the body.
        '--header',
        'Expect:',
        '--header',
        `user-session: ${session}`,
        '--form',
        `files=@${file};filename=bench.bin;type=application/octet-stream`,
        `${url}/api/tasks/${taskId}/files`,
      ],
      { maxBuffer: MB },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`upload failed: ${stderr || error.message} ${stdout}`))
          : resolve(JSON.parse(stdout)[0]),
    ),
  );
}

/** Streams a download to disk. */
function download(url, session, fileId, target) {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}/api/files/${fileId}/download`, { headers: { 'user-session': session } }, (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`download failed: ${response.statusCode}`));
          return;
        }
        pipeline(response, fs.createWriteStream(target)).then(resolve, reject);
      })
      .on('error', reject);
  });
}
