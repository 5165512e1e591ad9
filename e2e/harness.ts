import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import type { LoginResponse } from '../src/common/auth';
import { LIVE_EVENTS_PATH } from '../src/common/live';
import { THEME_STORAGE_KEY } from '../src/common/spec';
import type { Task } from '../src/common/tasks';
import { budget } from './time-budget';

export { budget } from './time-budget';

/**
 * Browser tests drive the built app (npm run build) in Debian's Chromium.
 * E2E_DIST_DIR points at another build (default: dist).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium';
export const DIST = path.resolve(process.env.E2E_DIST_DIR ?? 'dist');

export const ADMIN = { username: 'admin', password: 'admin-password' } as const;

const chromiumFound = fs.existsSync(CHROMIUM);
if (!chromiumFound) {
  if (process.env.CI === 'true')
    throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install chromium)`);
  console.warn(
    `\n!!! Chromium not found at ${CHROMIUM}: browser tests are SKIPPED. apt-get install -y chromium\n`,
  );
}

/** `describe` when Chromium is there; a loud skip otherwise (never under CI=true). */
export const describeBrowser = chromiumFound ? describe : describe.skip;

export interface RunningServer {
  url: string;
  dataDir: string;
  output: () => string;
  /** kill -9: the process ends at once, mid-request, as in a crash. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartServerOptions {
  /**
   * Serve at http://localhost:<port>, with APP_URL saying so, instead of http://127.0.0.1:<port>:
   * passkeys need a host name (and localhost is a secure context over plain HTTP).
   */
  hostName?: boolean;
  /** Serve this build instead of DIST: a copy a test changes under the running server. */
  dist?: string;
}

/** A port nobody listens on now, for a server that must know its own address before it starts. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts the built server on a free port with a fresh DATA_DIR. */
export async function startServer(
  env: Record<string, string> = {},
  { hostName = false, dist = DIST }: StartServerOptions = {},
): Promise<RunningServer> {
  const main = path.join(dist, 'server', 'main.js');
  if (!fs.existsSync(main)) throw new Error(`${main} is missing: run npm run build first`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-e2e-'));
  const port = hostName ? await freePort() : 0;
  const atHostName = hostName ? { PORT: String(port), APP_URL: `http://localhost:${port}` } : {};
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      AUTH_RATE_LIMIT_PER_IP: '10000',
      AUTH_RATE_LIMIT_PER_ACCOUNT: '10000',
      ...atHostName,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    // Generous: with several browser test files at once, a start can wait its turn for a core.
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), budget(45_000));
    const check = () => {
      const match = output.match(/running at (http:\/\/[^\s]+)/);
      if (match) {
        clearTimeout(timer);
        resolve(hostName ? `http://localhost:${port}` : match[1]!);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    dataDir,
    output: () => output,
    async crash() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface OpenPage {
  context: BrowserContext;
  page: Page;
  /**
   * Console errors, uncaught exceptions and Content-Security-Policy violations seen in the page; tests
   * assert it stays empty.
   */
  errors: string[];
}

/** What a file's browser tests share: one server, one browser, and the pages its tests opened. */
export interface BrowserSuite {
  readonly server: RunningServer;
  readonly browser: Browser;
  /** Pages a test opened: all are closed after each test (and must have seen no error, unless told). */
  readonly opened: OpenPage[];
}

/**
 * Starts the server and the browser before a file's tests and stops them after. A file whose tests
 * make requests fail on purpose (the browser logs each failed load) says `expectNoErrors: false`.
 */
export function browserSuite({
  env = {},
  expectNoErrors = true,
}: {
  env?: Record<string, string>;
  expectNoErrors?: boolean;
} = {}): BrowserSuite {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const opened: OpenPage[] = [];
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(env), launchBrowser()]);
  });
  afterEach(async () => {
    const closing = opened.splice(0);
    if (expectNoErrors) for (const { errors } of closing) expect(errors).toEqual([]);
    await Promise.all(closing.map(({ context }) => context.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  return {
    get server() {
      return server!;
    },
    get browser() {
      return browser!;
    },
    opened,
  };
}

/** Playwright's own time-out (for an element, a click, a navigation), stretched on a busy machine. */
export const PLAYWRIGHT_TIMEOUT = budget(30_000);

/**
 * A browser context with the app's service worker blocked: the worker's precache (the whole client)
 * would load in every context of every test, and the offline behaviour has a test of its own
 * (installable.e2e.ts), which opens its contexts with the worker allowed.
 */
export async function openContext(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ serviceWorkers: 'block', ...options });
  context.setDefaultTimeout(PLAYWRIGHT_TIMEOUT);
  return context;
}

/** The page's uncaught exceptions and console errors (not the browser's own 4xx load notices), as they come. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) errors.push(message.text());
  });
  return errors;
}

/**
 * A page in a context of its own on the suite's server, in `theme`, watched for errors and closed
 * (its errors asserted) after the test, like every page in `suite.opened`. Not yet navigated.
 */
export async function openThemedPage(
  suite: BrowserSuite,
  { theme = 'light', ...contextOptions }: BrowserContextOptions & { theme?: 'light' | 'dark' } = {},
): Promise<Page> {
  const context = await openContext(suite.browser, { baseURL: suite.server.url, ...contextOptions });
  await context.addInitScript(
    ([key, value]) => localStorage.setItem(key!, value!),
    [THEME_STORAGE_KEY, theme],
  );
  const page = await context.newPage();
  suite.opened.push({ context, page, errors: watchErrors(page) });
  return page;
}

/** A new browser context (its own storage) on the server, with clipboard access. */
export async function openPage(
  browser: Browser,
  server: RunningServer,
  urlPath = '/',
  contextOptions: BrowserContextOptions = {},
): Promise<OpenPage> {
  const context = await openContext(browser, {
    baseURL: server.url,
    viewport: { width: 1280, height: 900 },
    ...contextOptions,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const page = await context.newPage();
  const errors = watchErrors(page);
  // A violation the page's code catches (as Zod's probe for eval did) reaches no console event: the
  // page's own securitypolicyviolation event is what every violation raises.
  await page.exposeFunction('reportCspViolation', (text: string) => errors.push(text));
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (event) =>
      (window as unknown as { reportCspViolation(text: string): void }).reportCspViolation(
        `CSP violation: ${event.effectiveDirective} blocked ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`,
      ),
    ),
  );
  await page.goto(urlPath);
  return { context, page, errors };
}

/** Every input, select and textarea on the page without an id or a name (autofill and DevTools want one). */
export function unnamedFormFields(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea')]
      .filter((field) => !field.id && !field.getAttribute('name'))
      .map((field) => field.outerHTML.replace(/ class="[^"]*"/, '')),
  );
}

/** Signs in through the login screen and waits for the main screen. */
export async function signIn(
  page: Page,
  username: string = ADMIN.username,
  password: string = ADMIN.password,
) {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await page.getByRole('heading', { name: 'Your Tasks' }).waitFor();
}

/** Calls the API from inside the page, as the signed-in user. */
export async function apiFromPage<T = unknown>(
  page: Page,
  method: string,
  url: string,
  body?: unknown,
): Promise<T> {
  return page.evaluate(
    async ({ method, url, body }) => {
      const response = await fetch(url, {
        method,
        credentials: 'include',
        headers: {
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          'user-session': localStorage.getItem('sessionId') ?? '',
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${response.status}: ${text}`);
      return text ? JSON.parse(text) : null;
    },
    { method, url, body },
  ) as Promise<T>;
}

/** Deletes every task of the signed-in user, active and archived, so a test starts from none. */
export async function deleteAllTasks(page: Page): Promise<number> {
  const tasks = [
    ...(await apiFromPage<Task[]>(page, 'GET', '/api/tasks')),
    ...(await apiFromPage<Task[]>(page, 'GET', '/api/tasks/archived')),
  ];
  for (const task of tasks) await apiFromPage(page, 'DELETE', `/api/tasks/${task.id}`);
  return tasks.length;
}

/** The body the app's own form sends for a new task (spec §7), `extra` on top. */
export const newTaskBody = (title: string, extra: Record<string, unknown> = {}) => ({
  userId: 1,
  title,
  description: null,
  dueDate: null,
  completed: false,
  archived: false,
  position: 0,
  contextId: null,
  ...extra,
});

/** Creates a task through the API with the body the app's own form sends (spec §7). */
export function createTaskFromPage(
  page: Page,
  title: string,
  extra: Partial<Pick<Task, 'description' | 'dueDate' | 'contextId'>> = {},
): Promise<Task> {
  return apiFromPage<Task>(page, 'POST', '/api/tasks', newTaskBody(title, extra));
}

/**
 * The API as `credentials`, in a session of its own, called from the test rather than the page: it
 * works whatever the browser's network (the offline tests).
 */
export async function apiAs(url: string, credentials: { username: string; password: string }) {
  const login = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  if (!login.ok) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`);
  const { sessionId, user } = (await login.json()) as LoginResponse;
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        'user-session': sessionId,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }
  const createTask = (title: string, extra: Record<string, unknown> = {}) =>
    call<Task>('POST', '/api/tasks', newTaskBody(title, extra));
  return { user, call, createTask };
}
export type ApiSession = Awaited<ReturnType<typeof apiAs>>;

/**
 * Saves a screenshot under e2e/screenshots (ignored by git) for a person to look at. Under CI nobody
 * looks, and a full-page PNG costs a second of a busy core, so CI takes none.
 */
export async function screenshot(page: Page, name: string) {
  if (process.env.CI === 'true') return;
  fs.mkdirSync('e2e/screenshots', { recursive: true });
  await page.screenshot({ path: `e2e/screenshots/${name}.png`, fullPage: true });
}

/**
 * Waits until every running CSS animation and transition on the page has finished (a fading dialog
 * has no contrast yet). Endless ones (a spinner, a skeleton's pulse) never finish and are not waited for.
 */
export async function animationsSettled(page: Page) {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter(
          (animation) =>
            animation.playState === 'running' &&
            animation.effect?.getComputedTiming().iterations !== Infinity,
        )
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
}

/**
 * Best-practice rules (outside the WCAG tags) held to as strictly as the serious ones, whatever axe's
 * impact: 'heading-order' (moderate) is what Lighthouse reports as skipped heading levels.
 */
const ENFORCED_RULES = ['heading-order'];

/**
 * axe (WCAG 2.2 A and AA, and ENFORCED_RULES) on what the page shows now, once animations have settled:
 * fails naming every serious or critical violation, and every ENFORCED_RULES one, with its elements.
 * `include` narrows it to one part of the page. `bestPractice: false` leaves ENFORCED_RULES out, for a
 * page whose markup is not ours (Swagger UI's API reference).
 */
export async function expectAccessible(
  page: Page,
  what: string,
  include?: string,
  { bestPractice = true }: { bestPractice?: boolean } = {},
) {
  await animationsSettled(page);
  const enforced = bestPractice ? ENFORCED_RULES : [];
  let builder = new AxeBuilder({ page })
    .options({ rules: Object.fromEntries(enforced.map((id) => [id, { enabled: true }])) })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'])
    // axe.run in the page itself: the default runs axe in parts and joins them in a new blank page
    // (for iframes of other origins, which the app has none of), 1.9 s a pass against 1.1 s here.
    .setLegacyMode();
  if (include) builder = builder.include(include);
  const results = await builder.analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical' || enforced.includes(v.id))
    .map(
      (v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).join('\n    ')}`,
    );
  expect(serious, what).toEqual([]);
}

/**
 * `listening` resolves once the page's live-update stream (GET /api/events) listens: the server
 * subscribes first, then sends its first bytes (': connected'), which no page script can see. Call
 * before the page opens the stream (a load or a reload): a stream opened before is not counted.
 */
export async function watchLiveStream(page: Page): Promise<{ listening: Promise<void> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  // Only a stream asked for from now on: one the page opened before (its answer may still be on
  // its way on a busy machine) would resolve `listening` while the page reloads.
  const asked = new Set<string>();
  const streams = new Set<string>();
  const listening = new Promise<void>((resolve) => {
    cdp.on('Network.requestWillBeSent', (event) => {
      if (new URL(event.request.url).pathname === LIVE_EVENTS_PATH) asked.add(event.requestId);
    });
    cdp.on('Network.responseReceived', (event) => {
      if (asked.has(event.requestId)) streams.add(event.requestId);
    });
    cdp.on('Network.dataReceived', (event) => {
      if (streams.has(event.requestId)) resolve();
    });
  });
  return { listening };
}

/**
 * Waits until the page has drawn two more frames: what a key, a scroll or a focus set off (handlers,
 * React's render, a virtualizer's next rows) is on the page. For checks that something did NOT happen.
 */
export function framesDrawn(page: Page): Promise<void> {
  return page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
}

/**
 * What @hello-pangea/dnd last told screen readers ('You have lifted an item in position 1', 'You have
 * moved the item from position 1 to position 2'): each step of a drag, to wait for with expect.poll.
 */
export const dragAnnouncement = (page: Page) => page.locator('[id^="rfd-announcement"]').textContent();

/** A drag saves the one moved task (POST /api/tasks/{id}/move), or a whole order (/reorder). */
export const ORDER_SAVE = /^\/api\/tasks\/(reorder|\d+\/move)$/;
export const savesOrder = (response: { url(): string }) => ORDER_SAVE.test(new URL(response.url()).pathname);
