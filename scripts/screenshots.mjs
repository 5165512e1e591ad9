// The README's screenshots (docs/screenshots/): starts the built app on a fresh data directory,
// fills it with a small team's week through the API, and photographs each view in Chromium, light
// and dark, at 1280 px and at a phone's 390 px.
//
//   npm run build && node scripts/screenshots.mjs
//
// CHROMIUM_PATH (default Debian's).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ADMIN, startApp } from '../bench/lib/app.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium';
const OUT = 'docs/screenshots';
const ZONE = 'Europe/Lisbon';

/** YYYY-MM-DD, `days` from today in ZONE. */
function day(days) {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
  const date = new Date(`${today}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

async function seed(api, { sessionId, user }) {
  const call = async (method, url, data) => {
    const response = await api.fetch(url, { method, data, headers: { 'user-session': sessionId } });
    if (!response.ok()) throw new Error(`${method} ${url}: ${response.status()} ${await response.text()}`);
    return response.status() === 204 ? null : response.json();
  };
  await call('PATCH', '/api/auth/me', { timeZone: ZONE });
  const labels = {};
  for (const [name, color] of [
    ['errands', 'orange'],
    ['writing', 'blue'],
    ['waiting', 'violet'],
  ]) {
    labels[name] = (await call('POST', '/api/labels', { name, color })).id;
  }
  const site = await call('POST', '/api/projects', { name: 'Website relaunch', color: 'teal' });
  const sections = {};
  for (const name of ['Design', 'Build', 'Launch']) {
    sections[name] = (await call('POST', `/api/projects/${site.id}/sections`, { name })).id;
  }
  const task = (title, fields = {}) => call('POST', '/api/tasks', { title, ...fields });
  // The Inbox: a person's own week.
  await task('Renew the passport', { dueDate: day(-1), priority: 1, labelIds: [labels.errands] });
  await task('Call the dentist', { dueDate: day(1), dueTime: '09:30', labelIds: [labels.errands] });
  await task('Water the plants', { dueDate: day(0), recurrence: 'FREQ=WEEKLY;BYDAY=MO,TH' });
  await task('Draft the quarterly report', {
    dueDate: day(1),
    priority: 2,
    labelIds: [labels.writing],
    description: 'Figures from finance first, then the summary.',
  });
  await task('Book flights for the offsite', { dueDate: day(3), priority: 3 });
  await task('Pay the electricity bill', { dueDate: day(5), labelIds: [labels.errands] });
  await task('Read the design review notes', { labelIds: [labels.waiting] });
  // A project with sections, for the board and the calendar.
  const inSite = (title, section, fields = {}) =>
    task(title, { projectId: site.id, sectionId: sections[section] ?? null, ...fields });
  await inSite('Collect feedback on the old site', null, { priority: 3 });
  const palette = await inSite('Choose a colour palette', 'Design', { dueDate: day(0), priority: 2 });
  // Today and Upcoming show the Inbox and what is assigned to you across projects.
  await call('PATCH', `/api/tasks/${palette.id}`, { assigneeIds: [user.id] });
  await inSite('Wireframe the pricing page', 'Design', { dueDate: day(2), labelIds: [labels.writing] });
  await inSite('Icon set for the features', 'Design', { dueDate: day(8) });
  const build = await inSite('Set up the static site build', 'Build', { dueDate: day(1), priority: 1 });
  await call('PATCH', `/api/tasks/${build.id}`, { assigneeIds: [user.id] });
  await inSite('Move the blog posts', 'Build', { dueDate: day(6), labelIds: [labels.waiting] });
  await inSite('Contact form with spam check', 'Build', { dueDate: day(9) });
  await inSite('Write the announcement', 'Launch', { dueDate: day(12), labelIds: [labels.writing] });
  await inSite('Switch the DNS', 'Launch', { dueDate: day(13), dueTime: '07:00', priority: 1 });
  return site;
}

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** Tall enough for a month of six weeks. */
const MONTH = { width: 1280, height: 980 };
/** Each view once in light at 1280 px, then the ones that change most in dark and at 390 px. */
const SHOTS = (site) => [
  { name: 'list', url: '/', ready: 'article[data-task-id]' },
  { name: 'board', url: `/projects/${site.id}?view=board`, ready: 'section[aria-label="Board"] article' },
  { name: 'today', url: '/today', ready: 'main article[data-task-id]' },
  { name: 'upcoming', url: '/upcoming', ready: 'main article[data-task-id]' },
  { name: 'calendar', viewport: MONTH, url: `/projects/${site.id}/calendar`, ready: '[role="grid"] a' },
  {
    name: 'board',
    theme: 'dark',
    url: `/projects/${site.id}?view=board`,
    ready: 'section[aria-label="Board"] article',
  },
  {
    name: 'calendar',
    theme: 'dark',
    viewport: MONTH,
    url: `/projects/${site.id}/calendar`,
    ready: '[role="grid"] a',
  },
  { name: 'today', viewport: PHONE, url: '/today', ready: 'main article[data-task-id]' },
  {
    name: 'calendar',
    theme: 'dark',
    viewport: PHONE,
    url: `/projects/${site.id}/calendar`,
    ready: 'main section[data-day] a',
  },
];

const app = await startApp({ DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-shots-')) });
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
});
try {
  const api = await browser.newContext({ baseURL: app.url });
  const login = await (await api.request.post('/api/auth/login', { data: ADMIN })).json();
  const site = await seed(api.request, login);
  const { cookies } = await api.storageState();
  await api.close();
  fs.mkdirSync(OUT, { recursive: true });
  for (const { name, theme = 'light', viewport = DESKTOP, url, ready } of SHOTS(site)) {
    const context = await browser.newContext({
      baseURL: app.url,
      viewport,
      timezoneId: ZONE,
      locale: 'en-GB',
      serviceWorkers: 'block',
      storageState: {
        cookies,
        origins: [
          {
            origin: app.url,
            localStorage: [
              { name: 'sessionId', value: login.sessionId },
              { name: 'user', value: JSON.stringify(login.user) },
              { name: 'isAuthenticated', value: 'true' },
              { name: 'theme', value: theme },
            ],
          },
        ],
      },
    });
    const page = await context.newPage();
    await page.goto(url);
    await page.locator(ready).first().waitFor({ timeout: 30_000 });
    await page.evaluate(() => document.fonts.ready);
    await page.waitForTimeout(300); // the last transitions (a card's fade-in) end
    const file = `${OUT}/${name}${theme === 'dark' ? '-dark' : ''}${viewport === PHONE ? '-phone' : ''}.png`;
    await page.screenshot({ path: file });
    console.info(file);
    await context.close();
  }
} finally {
  await browser.close();
  await app.stop();
}
