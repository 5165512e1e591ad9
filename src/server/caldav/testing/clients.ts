import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';

/**
 * Real CalDAV clients for the tests (issue 30): Debian's vdirsyncer, todoman and python3-caldav,
 * which `.ci/run` installs. Each session runs in a temporary folder of its own that is also its
 * HOME and XDG folders, so nothing of the machine's own configuration (or a proxy) leaks in.
 */
export const CLIENT_BINARIES = {
  vdirsyncer: '/usr/bin/vdirsyncer',
  todoman: '/usr/bin/todoman',
  /** Debian's Python, which has python3-caldav: not the pyenv `python3` that may come first on PATH. */
  python: '/usr/bin/python3',
} as const;

/** Where a client signs in: the server's origin, a username and an API token as the password. */
export interface DavAccount {
  origin: string;
  username: string;
  token: string;
}

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** Runs a program to its end; rejects with its command line and output when it exits non-zero. */
export function runClient(
  file: string,
  args: string[],
  options: { dir: string; input?: string; timeoutMs?: number },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.dir,
      env: clientEnv(options.dir),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          new Error(
            `${file} ${args.join(' ')} exited with ${code ?? signal}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`,
          ),
        );
    });
    // A client that does not read its input closes the pipe early: that is not the test's failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

function clientEnv(dir: string): NodeJS.ProcessEnv {
  return {
    PATH: '/usr/bin:/bin',
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, '.config'),
    XDG_CACHE_HOME: path.join(dir, '.cache'),
    XDG_DATA_HOME: path.join(dir, '.local', 'share'),
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    // todoman reads and writes times in the local zone: UTC keeps the expectations plain.
    TZ: 'UTC',
    PYTHONDONTWRITEBYTECODE: '1',
  };
}

/** A fresh folder for one client session; `removeClientDirs` deletes them all. */
const dirs: string[] = [];
export async function clientDir(label: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `tasklane-${label}-`));
  dirs.push(dir);
  return dir;
}
export async function removeClientDirs(): Promise<void> {
  await Promise.all(dirs.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })));
}

/** vdirsyncer's config values are JSON. */
const value = (v: unknown) => JSON.stringify(v);

/**
 * vdirsyncer pairing the server (`a`: a caldav storage) with a local folder of `.ics` files (`b`),
 * one subfolder per collection, named as the collection is in its URL (the project's id).
 */
export class Vdirsyncer {
  readonly calendars: string;
  private readonly config: string;

  private constructor(readonly dir: string) {
    this.calendars = path.join(dir, 'calendars');
    this.config = path.join(dir, 'vdirsyncer.conf');
  }

  /**
   * `collections`: 'from a' (everything the server lists under the calendar home, found from `url`,
   * /dav/ by default) or the names of some collections. `listBy`: how vdirsyncer lists a
   * collection's items, a calendar-query REPORT for VTODOs (item_types, the default) or a PROPFIND
   * Depth 1 (its choice when no item_types are set).
   */
  static async create(
    account: DavAccount,
    options: { collections: 'from a' | string[]; url?: string; listBy?: 'calendar-query' | 'propfind' },
  ): Promise<Vdirsyncer> {
    const sync = new Vdirsyncer(await clientDir('vdirsyncer'));
    const collections = options.collections === 'from a' ? ['from a'] : options.collections;
    const lines = [
      '[general]',
      `status_path = ${value(path.join(sync.dir, 'status/'))}`,
      '',
      '[pair tasklane]',
      'a = "tasklane_remote"',
      'b = "tasklane_local"',
      `collections = ${value(collections)}`,
      'conflict_resolution = "a wins"',
      'metadata = ["displayname", "color"]',
      '',
      '[storage tasklane_remote]',
      'type = "caldav"',
      `url = ${value(options.url ?? `${account.origin}/dav/`)}`,
      `username = ${value(account.username)}`,
      `password = ${value(account.token)}`,
      ...(options.listBy === 'propfind' ? [] : ['item_types = ["VTODO"]']),
      '',
      '[storage tasklane_local]',
      'type = "filesystem"',
      `path = ${value(`${sync.calendars}/`)}`,
      'fileext = ".ics"',
      '',
    ];
    await fs.writeFile(sync.config, lines.join('\n'));
    return sync;
  }

  private run(args: string[], input?: string) {
    return runClient(CLIENT_BINARIES.vdirsyncer, ['-c', this.config, ...args], { dir: this.dir, input });
  }

  /** Finds the collections; creates the local folder of each (the "create it?" prompts say yes). */
  discover() {
    return this.run(['discover'], 'y\n'.repeat(100));
  }

  sync() {
    return this.run(['sync']);
  }

  /** Copies displayname and color (calendar-color) into the local folder's files of those names. */
  metasync() {
    return this.run(['metasync']);
  }

  folder(collection: string | number): string {
    return path.join(this.calendars, String(collection));
  }

  /** The local folder's items: file name to iCalendar text. */
  async files(collection: string | number): Promise<Map<string, string>> {
    const folder = this.folder(collection);
    const names = (await fs.readdir(folder)).filter((name) => name.endsWith('.ics')).sort();
    const texts = await Promise.all(names.map((name) => fs.readFile(path.join(folder, name), 'utf8')));
    return new Map(names.map((name, i) => [name, texts[i] as string]));
  }

  /** The local item whose VTODO has this SUMMARY. */
  async fileWithSummary(
    collection: string | number,
    summary: string,
  ): Promise<{ name: string; ics: string }> {
    for (const [name, ics] of await this.files(collection)) {
      if (todoText(ics, 'SUMMARY') === summary) return { name, ics };
    }
    throw new Error(`no local item with SUMMARY ${summary} in ${this.folder(collection)}`);
  }

  write(collection: string | number, name: string, ics: string) {
    return fs.writeFile(path.join(this.folder(collection), name), ics);
  }

  remove(collection: string | number, name: string) {
    return fs.rm(path.join(this.folder(collection), name));
  }
}

/** One todoman task as `todoman --porcelain list` prints it. */
export interface TodomanTask {
  id: number;
  summary: string;
  list: string;
  completed: boolean;
  due: number | null;
  priority: number;
}

/** todoman working on a vdirsyncer folder (its lists: the collections' folders). */
export class Todoman {
  private readonly config: string;

  constructor(private readonly sync: Vdirsyncer) {
    this.config = path.join(sync.dir, 'todoman.py');
  }

  async init(): Promise<this> {
    const lines = [
      `path = ${value(path.join(this.sync.calendars, '*'))}`,
      'date_format = "%Y-%m-%d"',
      'time_format = "%H:%M"',
      // No due date unless one is given (todoman's default is a day from now).
      'default_due = 0',
      `cache_path = ${value(path.join(this.sync.dir, 'todoman.sqlite3'))}`,
      'color = "never"',
      '',
    ];
    await fs.writeFile(this.config, lines.join('\n'));
    return this;
  }

  run(...args: string[]) {
    return runClient(CLIENT_BINARIES.todoman, ['--config', this.config, ...args], { dir: this.sync.dir });
  }

  /** Every task, done or not. */
  async list(): Promise<TodomanTask[]> {
    const { stdout } = await this.run('--porcelain', 'list', '--status', 'ANY');
    return JSON.parse(stdout) as TodomanTask[];
  }

  /** todoman's id (its cache's) of the task with this summary. */
  async idOf(summary: string): Promise<string> {
    const task = (await this.list()).find((t) => t.summary === summary);
    if (!task) throw new Error(`todoman has no task ${summary}`);
    return String(task.id);
  }
}

/**
 * Runs a Python script with python3-caldav, `client` already made (DAVClient signed in as the
 * account at `url`), `ARGS` the given arguments, `out(value)` printing the answer as JSON.
 */
export async function runCaldavPython<T = unknown>(
  account: DavAccount,
  script: string,
  args: Record<string, unknown> = {},
  url = `${account.origin}/dav/`,
): Promise<T> {
  const dir = await clientDir('caldav-py');
  const preamble = [
    'import json, sys',
    'import caldav',
    'from caldav.lib import error',
    'ARGS = json.loads(sys.argv[1])',
    "client = caldav.DAVClient(url=ARGS['url'], username=ARGS['username'], password=ARGS['password'])",
    'def out(value):',
    "    print('RESULT ' + json.dumps(value))",
    '',
  ];
  const file = path.join(dir, 'script.py');
  await fs.writeFile(file, `${preamble.join('\n')}${script}\n`);
  const { stdout } = await runClient(
    CLIENT_BINARIES.python,
    [file, JSON.stringify({ ...args, url, username: account.username, password: account.token })],
    { dir },
  );
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`the script printed no result:\n${stdout}`);
  return JSON.parse(line.slice('RESULT '.length)) as T;
}

/** The content lines of an iCalendar text, unfolded. */
export function icsLines(ics: string): string[] {
  return ics
    .replace(/\r?\n[ \t]/g, '')
    .split(/\r?\n/)
    .filter((line) => line !== '');
}

export interface IcsProperty {
  name: string;
  /** Parameters as written, upper-cased names: { TZID: 'Europe/Berlin', VALUE: 'DATE' }. */
  params: Record<string, string>;
  value: string;
  /** The whole content line. */
  line: string;
}

function parseLine(line: string): IcsProperty {
  // The value starts at the first colon outside a quoted parameter value.
  let quoted = false;
  let colon = -1;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '"') quoted = !quoted;
    else if (line[i] === ':' && !quoted) {
      colon = i;
      break;
    }
  }
  const head = line.slice(0, colon);
  const [name = '', ...params] = head.split(';');
  return {
    name: name.toUpperCase(),
    params: Object.fromEntries(
      params.map((param) => {
        const [key = '', ...rest] = param.split('=');
        return [key.toUpperCase(), rest.join('=').replace(/^"|"$/g, '')];
      }),
    ),
    value: line.slice(colon + 1),
    line,
  };
}

/** The properties of the VTODO itself (not of its VALARMs), in order. */
export function todoProps(ics: string): IcsProperty[] {
  const stack: string[] = [];
  const props: IcsProperty[] = [];
  for (const line of icsLines(ics)) {
    const upper = line.toUpperCase();
    if (upper.startsWith('BEGIN:')) stack.push(upper.slice(6));
    else if (upper.startsWith('END:')) stack.pop();
    else if (stack.at(-1) === 'VTODO') props.push(parseLine(line));
  }
  return props;
}

export function todoProp(ics: string, name: string): IcsProperty | undefined {
  return todoProps(ics).find((prop) => prop.name === name);
}

/** A TEXT property's value, unescaped (RFC 5545 3.3.11: \\, \; \, and \n). */
export function todoText(ics: string, name: string): string | undefined {
  return todoProp(ics, name)?.value.replace(/\\([\\;,nN])/g, (_, c: string) =>
    c === 'n' || c === 'N' ? '\n' : c,
  );
}

/** The text of each component named `name` (VALARM, VTIMEZONE), BEGIN to END. */
export function components(ics: string, name: string): string[] {
  const found: string[] = [];
  let current: string[] | null = null;
  for (const line of icsLines(ics)) {
    const upper = line.toUpperCase();
    if (upper === `BEGIN:${name}`) current = [];
    if (current) current.push(line);
    if (upper === `END:${name}` && current) {
      found.push(current.join('\r\n'));
      current = null;
    }
  }
  return found;
}

/** A VCALENDAR with one VTODO made of the given content lines (CRLF, as RFC 5545 writes). */
export function vcalendar(todo: string[], extra: string[] = []): string {
  return `${[
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Tasklane tests//real clients//EN',
    ...extra,
    'BEGIN:VTODO',
    'DTSTAMP:20261101T120000Z',
    ...todo,
    'END:VTODO',
    'END:VCALENDAR',
  ].join('\r\n')}\r\n`;
}

/** Europe/Berlin as clients send it with a DUE;TZID=Europe/Berlin. */
export const BERLIN_VTIMEZONE = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];

/** A raw WebDAV request with Basic credentials (fetch takes PROPFIND and REPORT as any method). */
export async function davRequest(
  account: DavAccount,
  method: string,
  pathname: string,
  options: { headers?: Record<string, string>; body?: string; password?: string } = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const credentials = Buffer.from(`${account.username}:${options.password ?? account.token}`).toString(
    'base64',
  );
  const response = await fetch(`${account.origin}${pathname}`, {
    method,
    redirect: 'manual',
    headers: {
      authorization: `Basic ${credentials}`,
      ...(options.body !== undefined && !options.headers?.['content-type']
        ? {
            'content-type':
              method === 'PUT' ? 'text/calendar; charset=utf-8' : 'application/xml; charset=utf-8',
          }
        : {}),
      ...options.headers,
    },
    body: options.body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** One `response` of a 207 Multi-Status: its href (decoded), its status, and its found properties. */
export interface MultistatusEntry {
  href: string;
  /** The response's own status (a sync-collection deletion: 404), else its first propstat's. */
  status: number;
  /** The properties of its 200 propstat, by local name (namespace prefixes dropped). */
  props: Record<string, unknown>;
}

const multistatusParser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  isArray: (name) => name === 'response' || name === 'propstat',
});

const statusCode = (line: unknown) => Number(String(line ?? '').split(' ')[1]);

/** A 207 body: its responses and, for sync-collection, the new sync token. */
export function parseMultistatus(xml: string): { responses: MultistatusEntry[]; syncToken?: string } {
  const root = multistatusParser.parse(xml) as {
    multistatus?: { response?: Array<Record<string, unknown>>; 'sync-token'?: string };
  };
  if (!root.multistatus) throw new Error(`not a multistatus:\n${xml}`);
  const responses = (root.multistatus.response ?? []).map((response): MultistatusEntry => {
    const propstats = (response.propstat ?? []) as Array<{ prop?: Record<string, unknown>; status?: string }>;
    const found = propstats.find((p) => statusCode(p.status) === 200);
    return {
      href: decodeURIComponent(String(response.href)),
      status: response.status ? statusCode(response.status) : statusCode(propstats[0]?.status),
      props: found?.prop ?? {},
    };
  });
  return { responses, syncToken: root.multistatus['sync-token'] };
}
