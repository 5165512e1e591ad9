import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CALDAV_INBOX_NAME,
  CALDAV_LIMITS,
  CALDAV_MESSAGES,
  davCollectionPath,
  davHomePath,
} from '../../common/caldav';
import { TOKEN_MESSAGES } from '../../common/tokens';
import { createTestApp, type TestApp, type TestUser } from '../testing/app';
import { testDialects } from '../testing/database';
import { shareProject, signUpTeam } from '../testing/team';
import { loadCaldavLibraries } from './libraries';
import { DAV_ROUTE_MESSAGES } from './routes';
import { createDavHarness, type DavHarness } from './testing/harness';
import { parseXml, type XmlElement } from './xml';

// The tests read answers with the routes' own XML reader.
beforeAll(loadCaldavLibraries);

const todo = (uid: string, extra = '') =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VTODO',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    `SUMMARY:Task ${uid} & <more>`,
    ...(extra ? [extra] : []),
    'END:VTODO',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

const PROPFIND_COLLECTION = `<?xml version="1.0"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/" xmlns:a="http://apple.com/ns/ical/">
  <d:prop><d:resourcetype/><d:displayname/><a:calendar-color/><c:supported-calendar-component-set/><cs:getctag/>
  <d:sync-token/><d:current-user-privilege-set/><d:supported-report-set/><d:getetag/><d:getcontenttype/><x:nope xmlns:x="urn:x"/></d:prop>
</d:propfind>`;

/** The responses of a multistatus: href, status lines, and the properties found (200) by local name. */
function responsesOf(body: string) {
  const root = parseXml(body)!;
  expect(root.name).toBe('multistatus');
  return root.children
    .filter((child) => child.name === 'response')
    .map((response) => {
      const text = (name: string, within: XmlElement = response) =>
        within.children.find((child) => child.name === name)?.text ?? '';
      const found: Record<string, XmlElement> = {};
      const missing: string[] = [];
      for (const propstat of response.children.filter((child) => child.name === 'propstat')) {
        const ok = text('status', propstat).includes(' 200 ');
        for (const prop of propstat.children.find((child) => child.name === 'prop')?.children ?? []) {
          if (ok) found[prop.name] = prop;
          else missing.push(prop.name);
        }
      }
      return { href: decodeURIComponent(text('href')), status: text('status'), found, missing };
    });
}

describe('CalDAV routes over a fake store', () => {
  let h: DavHarness;
  let ana: ReturnType<DavHarness['user']>;
  const home = '/dav/calendars/ana/';
  const inbox = `${home}10/`;

  const dav = (
    method: string,
    url: string,
    options: { body?: string; headers?: Record<string, string>; auth?: string } = {},
  ) =>
    h.app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(options.auth === '' ? {} : { authorization: options.auth ?? ana.authorization }),
        ...(options.body !== undefined ? { 'content-type': 'application/xml; charset=utf-8' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { payload: options.body } : {}),
    });

  beforeAll(async () => {
    h = await createDavHarness();
    ana = h.user('ana');
    h.store.addCollection(ana.id, 10, { name: 'Your Tasks' });
    h.store.addCollection(ana.id, 11, { name: 'Shared, read only', role: 'viewer' });
  });
  afterAll(async () => {
    await h.app.close();
  });

  describe('discovery', () => {
    it('answers /.well-known/caldav with 301 to /dav/, by GET and PROPFIND, signed in or not', async () => {
      for (const method of ['GET', 'PROPFIND']) {
        const response = await dav(method, '/.well-known/caldav', { auth: '' });
        expect(response.statusCode).toBe(301);
        expect(response.headers.location).toBe('/dav/');
      }
      const app = await dav('PROPFIND', '/', { auth: '' });
      expect([app.statusCode, app.headers.location]).toEqual([301, '/dav/']);
    });

    it('answers OPTIONS anywhere under /dav with the DAV classes and the methods', async () => {
      for (const url of ['/dav/', inbox, `${inbox}a.ics`]) {
        const response = await dav('OPTIONS', url, { auth: '' });
        expect(response.statusCode).toBe(200);
        expect(response.headers.dav).toBe('1, 3, calendar-access');
        expect(String(response.headers.allow)).toContain('PROPFIND');
        expect(String(response.headers.allow)).toContain('REPORT');
      }
    });

    it('leads from /dav/ to the principal and from it to the calendar home', async () => {
      const root = await dav('PROPFIND', '/dav/', {
        headers: { depth: '0' },
        body: '<propfind xmlns="DAV:"><prop><current-user-principal/></prop></propfind>',
      });
      expect(root.statusCode).toBe(207);
      expect(root.headers['content-type']).toBe('application/xml; charset=utf-8');
      const [rootResponse] = responsesOf(root.body);
      expect(rootResponse!.found['current-user-principal']!.children[0]!.text).toBe('/dav/principals/ana/');

      const principal = await dav('PROPFIND', '/dav/principals/ana/', {
        headers: { depth: '0' },
        body: `<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop>
          <d:resourcetype/><c:calendar-home-set/><c:calendar-user-address-set/><d:displayname/><d:principal-URL/>
        </d:prop></d:propfind>`,
      });
      const [me] = responsesOf(principal.body);
      expect(me!.href).toBe('/dav/principals/ana/');
      expect(me!.found.resourcetype!.children.map((child) => child.name)).toEqual(['principal']);
      expect(me!.found['calendar-home-set']!.children[0]!.text).toBe(home);
      expect(me!.found['calendar-user-address-set']!.children[0]!.text).toBe('mailto:ana@example.com');
      expect(me!.found.displayname!.text).toBe('ana');
    });

    it('lists the collections in the home at Depth 1, with their properties', async () => {
      const response = await dav('PROPFIND', home, { headers: { depth: '1' }, body: PROPFIND_COLLECTION });
      expect(response.statusCode).toBe(207);
      const [self, first, second] = responsesOf(response.body);
      expect(self!.href).toBe(home);
      expect(first!.href).toBe(inbox);
      expect(first!.found.displayname!.text).toBe('Your Tasks');
      expect(first!.found.resourcetype!.children.map((child) => child.name).sort()).toEqual([
        'calendar',
        'collection',
      ]);
      expect(first!.found['calendar-color']!.text).toMatch(/^#[0-9A-F]{6}$/);
      const comps = first!.found['supported-calendar-component-set']!.children;
      expect(comps.map((comp) => comp.attributes.name)).toEqual(['VTODO']);
      expect(first!.found.getctag!.text).toMatch(/^"10-\d+"$/);
      expect(first!.found['sync-token']!.text).toMatch(/^urn:tasklane:sync:10:\d+$/);
      const privileges = (r: typeof first) =>
        r!.found['current-user-privilege-set']!.children.flatMap((privilege) =>
          privilege.children.map((c) => c.name),
        );
      expect(privileges(first)).toEqual(
        expect.arrayContaining(['read', 'write', 'write-content', 'bind', 'unbind']),
      );
      expect(second!.href).toBe(`${home}11/`);
      expect(privileges(second)).not.toContain('write');
      expect(privileges(second)).toContain('read');
      const reports = first!.found['supported-report-set']!.children.map(
        (r) => r.children[0]!.children[0]!.name,
      );
      expect(reports.sort()).toEqual(['calendar-multiget', 'calendar-query', 'sync-collection']);
      expect(first!.missing).toEqual(['getetag', 'nope']);
      expect(response.body).toContain('xmlns:X');
    });

    it('answers allprop and propname, and a missing body as allprop', async () => {
      const all = await dav('PROPFIND', inbox, { headers: { depth: '0' } });
      expect(all.statusCode).toBe(207);
      expect(Object.keys(responsesOf(all.body)[0]!.found)).toEqual(
        expect.arrayContaining(['resourcetype', 'displayname', 'getctag', 'sync-token']),
      );
      const names = await dav('PROPFIND', inbox, {
        headers: { depth: '0' },
        body: '<propfind xmlns="DAV:"><propname/></propfind>',
      });
      const [entry] = responsesOf(names.body);
      expect(entry!.found.displayname!.text).toBe('');
      expect(entry!.found.displayname!.children).toEqual([]);
    });
  });

  describe('sign-in', () => {
    it('answers 401 with the realm without credentials, with a wrong token, with a password, as another user', async () => {
      const bea = h.user('bea');
      const cases = [
        '',
        `Basic ${Buffer.from('ana:tl_wrong').toString('base64')}`,
        `Basic ${Buffer.from('ana:secret-password').toString('base64')}`,
        // Bea's own token, with Ana's name.
        `Basic ${Buffer.from(`ana:${bea.token}`).toString('base64')}`,
        `Bearer ${ana.token}`,
        'Basic !!!',
      ];
      for (const auth of cases) {
        const response = await dav('PROPFIND', '/dav/', { auth });
        expect(response.statusCode, auth).toBe(401);
        expect(response.headers['www-authenticate']).toBe('Basic realm="Tasklane"');
        expect(response.body).toBe(CALDAV_MESSAGES.signIn);
      }
    });

    it('takes the username in any case, and refuses a suspended user', async () => {
      const upper = `Basic ${Buffer.from(`ANA:${ana.token}`).toString('base64')}`;
      expect((await dav('PROPFIND', '/dav/', { auth: upper, headers: { depth: '0' } })).statusCode).toBe(207);
      const gone = h.user('gone', { suspended: true });
      expect((await dav('PROPFIND', '/dav/', { auth: gone.authorization })).statusCode).toBe(401);
    });

    it("answers 404 for another user's principal, home and collections", async () => {
      const bea = h.user('bea2');
      h.store.addCollection(bea.id, 20);
      for (const url of ['/dav/principals/bea2/', '/dav/calendars/bea2/', '/dav/calendars/bea2/20/']) {
        expect((await dav('PROPFIND', url, { headers: { depth: '0' } })).statusCode, url).toBe(404);
      }
      // Ana's own path to Bea's project: the store says it is not hers.
      expect((await dav('PROPFIND', `${home}20/`, { headers: { depth: '0' } })).statusCode).toBe(404);
    });

    it('counts failures against the sign-in limits: 429 with Retry-After once over', async () => {
      const limited = await createDavHarness({ maxFailures: 3 });
      const cara = limited.user('cara');
      const wrong = `Basic ${Buffer.from('cara:tl_guess').toString('base64')}`;
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await limited.app.inject({
          method: 'PROPFIND' as 'GET',
          url: '/dav/',
          headers: { authorization: wrong },
        });
        statuses.push(response.statusCode);
        if (response.statusCode === 429) expect(response.headers['retry-after']).toBeDefined();
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      // Not the owner's way in from elsewhere... but from this address the account waits too.
      const right = await limited.app.inject({
        method: 'PROPFIND' as 'GET',
        url: '/dav/',
        headers: { authorization: cara.authorization },
      });
      expect(right.statusCode).toBe(429);
      await limited.app.close();
    });

    it('refuses PUT, DELETE and PROPPATCH with a read-only token (403), and lets it read', async () => {
      const reader = h.user('reader', { write: false });
      h.store.addCollection(reader.id, 30);
      const as = { auth: reader.authorization };
      const base = '/dav/calendars/reader/30/';
      const put = await dav('PUT', `${base}x.ics`, { ...as, body: todo('x') });
      expect(put.statusCode).toBe(403);
      expect(put.body).toBe(TOKEN_MESSAGES.readOnly);
      expect((await dav('DELETE', `${base}x.ics`, as)).statusCode).toBe(403);
      expect(
        (await dav('PROPPATCH', base, { ...as, body: '<propertyupdate xmlns="DAV:"/>' })).statusCode,
      ).toBe(403);
      expect((await dav('PROPFIND', base, { ...as, headers: { depth: '1' } })).statusCode).toBe(207);
    });

    it('shows a project-limited token only its projects', async () => {
      const limitedAna = h.user('ana', { projectIds: [11], id: ana.id });
      const response = await dav('PROPFIND', home, {
        auth: limitedAna.authorization,
        headers: { depth: '1' },
      });
      expect(responsesOf(response.body).map((r) => r.href)).toEqual([home, `${home}11/`]);
      const other = await dav('PROPFIND', inbox, { auth: limitedAna.authorization, headers: { depth: '0' } });
      expect(other.statusCode).toBe(404);
    });
  });

  describe('resources', () => {
    it('creates with PUT (201 and ETag), reads with GET and HEAD, replaces (204), deletes (204)', async () => {
      const created = await dav('PUT', `${inbox}new%20one.ics`, {
        body: todo('new one'),
        headers: { 'content-type': 'text/calendar; charset=utf-8', 'if-none-match': '*' },
      });
      expect(created.statusCode).toBe(201);
      const etag = created.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(h.store.text(10, 'new one.ics')).toBe(todo('new one'));

      const got = await dav('GET', `${inbox}new%20one.ics`);
      expect(got.statusCode).toBe(200);
      expect(got.headers['content-type']).toBe('text/calendar; charset=utf-8');
      expect(got.headers.etag).toBe(etag);
      expect(got.body).toBe(todo('new one'));
      const head = await dav('HEAD', `${inbox}new%20one.ics`);
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');

      const again = await dav('PUT', `${inbox}new%20one.ics`, {
        body: todo('new one', 'STATUS:COMPLETED'),
        headers: { 'content-type': 'text/calendar', 'if-match': etag },
      });
      expect(again.statusCode).toBe(204);
      expect(again.headers.etag).not.toBe(etag);

      const stale = await dav('DELETE', `${inbox}new%20one.ics`, { headers: { 'if-match': etag } });
      expect(stale.statusCode).toBe(412);
      expect(stale.body).toBe(CALDAV_MESSAGES.preconditionFailed);
      expect((await dav('DELETE', `${inbox}new%20one.ics`)).statusCode).toBe(204);
      expect((await dav('GET', `${inbox}new%20one.ics`)).statusCode).toBe(404);
    });

    it('takes long names and names that need encoding, and answers them encoded', async () => {
      const name = `${'040000008200E00074C5B7101A82E008'.repeat(5)} ü&?.ics`;
      const url = `${inbox}${encodeURIComponent(name)}`;
      expect(
        (await dav('PUT', url, { body: todo('long'), headers: { 'content-type': 'text/calendar' } }))
          .statusCode,
      ).toBe(201);
      expect(h.store.text(10, name)).toBe(todo('long'));
      const listing = await dav('PROPFIND', inbox, {
        headers: { depth: '1', prefer: 'return=minimal' },
        body: '<propfind xmlns="DAV:"><prop><getetag/><displayname/></prop></propfind>',
      });
      expect(listing.body).toContain(`<D:href>${url}</D:href>`);
      // return=minimal: no 404 propstat for the resources' missing displayname.
      expect(listing.body).not.toContain('404');
      expect((await dav('DELETE', url)).statusCode).toBe(204);
    });

    it('honours If-None-Match: * (412 when it exists, nothing changed)', async () => {
      await dav('PUT', `${inbox}once.ics`, {
        body: todo('once'),
        headers: { 'content-type': 'text/calendar' },
      });
      const twice = await dav('PUT', `${inbox}once.ics`, {
        body: todo('once', 'STATUS:COMPLETED'),
        headers: { 'content-type': 'text/calendar', 'if-none-match': '*' },
      });
      expect(twice.statusCode).toBe(412);
      expect(h.store.text(10, 'once.ics')).toBe(todo('once'));
    });

    it('answers a bad body 400 in words, a VEVENT 403 with supported-calendar-component, a big one 413', async () => {
      const bad = await dav('PUT', `${inbox}bad.ics`, {
        body: 'hello',
        headers: { 'content-type': 'text/calendar' },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(bad.body).toBe(CALDAV_MESSAGES.notCalendar);
      const event = await dav('PUT', `${inbox}event.ics`, {
        body: todo('e').replace(/VTODO/g, 'VEVENT'),
        headers: { 'content-type': 'text/calendar' },
      });
      expect(event.statusCode).toBe(403);
      const error = parseXml(event.body)!;
      expect([error.ns, error.name]).toEqual(['DAV:', 'error']);
      expect([error.children[0]!.ns, error.children[0]!.name]).toEqual([
        'urn:ietf:params:xml:ns:caldav',
        'supported-calendar-component',
      ]);
      const big = await dav('PUT', `${inbox}big.ics`, {
        body: todo('big', `DESCRIPTION:${'x'.repeat(CALDAV_LIMITS.maxBodyBytes)}`),
        headers: { 'content-type': 'text/calendar' },
      });
      expect(big.statusCode).toBe(413);
      expect(big.body).toBe(CALDAV_MESSAGES.tooLarge);
    });

    it('answers MKCALENDAR and MKCOL 403, MOVE 403, PROPPATCH 207 with each property 403', async () => {
      for (const method of ['MKCALENDAR', 'MKCOL']) {
        const response = await dav(method, `${home}new/`);
        expect(response.statusCode).toBe(403);
        expect(response.body).toBe(CALDAV_MESSAGES.mkcalendar);
      }
      const move = await dav('MOVE', `${inbox}a.ics`);
      expect([move.statusCode, move.body]).toEqual([403, DAV_ROUTE_MESSAGES.noMove]);
      const patch = await dav('PROPPATCH', inbox, {
        body: `<d:propertyupdate xmlns:d="DAV:" xmlns:a="http://apple.com/ns/ical/"><d:set><d:prop>
          <d:displayname>Mine</d:displayname><a:calendar-color>#FF0000</a:calendar-color></d:prop></d:set></d:propertyupdate>`,
      });
      expect(patch.statusCode).toBe(207);
      expect(patch.body).toContain('HTTP/1.1 403 Forbidden');
      expect(patch.body).toContain('calendar-color');
    });

    it('answers malformed XML 400 and never 500', async () => {
      for (const method of ['PROPFIND', 'REPORT', 'PROPPATCH']) {
        for (const body of [
          '<propfind xmlns="DAV:"><prop>',
          'not xml',
          '<a:b/>',
          '<!DOCTYPE x [<!ENTITY e "e">]><x>&e;</x>',
        ]) {
          const response = await dav(method, inbox, { body });
          expect(response.statusCode, `${method} ${body}`).toBe(400);
          expect(response.body.length).toBeGreaterThan(0);
        }
      }
      for (const url of [
        '/dav/%E0%A4%A',
        '/dav/calendars/ana/abc/',
        '/dav/calendars/ana/99999999999999999999/',
        '/dav/x',
      ]) {
        const response = await dav('PROPFIND', url);
        expect(response.statusCode, url).toBeLessThan(500);
      }
    });
  });

  describe('reports', () => {
    const base = '/dav/calendars/ana/40/';
    beforeAll(async () => {
      h.store.addCollection(ana.id, 40);
      const put = (name: string, body: string) =>
        dav('PUT', `${base}${name}`, { body, headers: { 'content-type': 'text/calendar' } });
      await put('open.ics', todo('open', 'DUE:20260110T120000Z\r\nSTATUS:NEEDS-ACTION'));
      await put('done.ics', todo('done', 'STATUS:COMPLETED\r\nCOMPLETED:20260105T100000Z'));
      await put('later.ics', todo('later', 'DUE;VALUE=DATE:20260301'));
    });

    const query = (filter: string, props = '<d:getetag/><c:calendar-data/>') =>
      dav('REPORT', base, {
        headers: { depth: '1' },
        body: `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop>${props}</d:prop>
          <c:filter><c:comp-filter name="VCALENDAR">${filter}</c:comp-filter></c:filter></c:calendar-query>`,
      });
    const names = (body: string) =>
      responsesOf(body)
        .map((r) => r.href.split('/').pop())
        .sort();

    it('calendar-query: every VTODO, with calendar-data as escaped text', async () => {
      const response = await query('<c:comp-filter name="VTODO"/>');
      expect(response.statusCode).toBe(207);
      expect(names(response.body)).toEqual(['done.ics', 'later.ics', 'open.ics']);
      expect(response.body).toContain('Task open &amp; &lt;more&gt;');
      const open = responsesOf(response.body).find((r) => r.href.endsWith('open.ics'))!;
      expect(open.found['calendar-data']!.text.replace(/\r/g, '')).toBe(
        todo('open', 'DUE:20260110T120000Z\r\nSTATUS:NEEDS-ACTION').replace(/\r/g, ''),
      );
      expect(open.found.getetag!.text).toMatch(/^"/);
    });

    it('calendar-query: a VEVENT filter answers nothing; COMPLETED is-not-defined the open ones; a time-range by DUE', async () => {
      expect(names((await query('<c:comp-filter name="VEVENT"/>')).body)).toEqual([]);
      const open = await query(
        '<c:comp-filter name="VTODO"><c:prop-filter name="COMPLETED"><c:is-not-defined/></c:prop-filter></c:comp-filter>',
      );
      expect(names(open.body)).toEqual(['later.ics', 'open.ics']);
      const january = await query(
        '<c:comp-filter name="VTODO"><c:time-range start="20260101T000000Z" end="20260201T000000Z"/></c:comp-filter>',
      );
      expect(names(january.body)).toEqual(['done.ics', 'open.ics']);
      const status = await query(
        '<c:comp-filter name="VTODO"><c:prop-filter name="STATUS"><c:text-match negate-condition="yes">completed</c:text-match></c:prop-filter></c:comp-filter>',
      );
      // RFC 4791 §9.7.2: a text-match needs the property (later.ics has no STATUS).
      expect(names(status.body)).toEqual(['open.ics']);
      const wrong = await query(
        '<c:comp-filter name="VTODO"><c:time-range start="tomorrow"/></c:comp-filter>',
      );
      expect(wrong.statusCode).toBe(400);
    });

    it('calendar-multiget: found ones with their data, missing ones as 404 responses', async () => {
      const response = await dav('REPORT', base, {
        headers: { depth: '1' },
        body: `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>
          <d:href>${base}open.ics</d:href><d:href>http://localhost:3000${base}later.ics</d:href>
          <d:href>${base}gone.ics</d:href><d:href>/dav/calendars/ana/10/open.ics</d:href></c:calendar-multiget>`,
      });
      expect(response.statusCode).toBe(207);
      const responses = responsesOf(response.body);
      expect(responses.map((r) => [r.href, r.status || '200'])).toEqual([
        [`${base}open.ics`, '200'],
        [`${base}later.ics`, '200'],
        [`${base}gone.ics`, 'HTTP/1.1 404 Not Found'],
        ['/dav/calendars/ana/10/open.ics', 'HTTP/1.1 404 Not Found'],
      ]);
      expect(responses[1]!.found['calendar-data']!.text).toContain('UID:later');
    });

    it('sync-collection: everything first, then only what changed, deletions as 404; a bad token 403', async () => {
      const sync = (token: string) =>
        dav('REPORT', base, {
          body: `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level>
            <d:prop><d:getetag/></d:prop></d:sync-collection>`,
        });
      const first = await sync('');
      expect(first.statusCode).toBe(207);
      expect(names(first.body)).toEqual(['done.ics', 'later.ics', 'open.ics']);
      const token = parseXml(first.body)!.children.find((child) => child.name === 'sync-token')!.text;
      expect(token).toMatch(/^urn:tasklane:sync:40:\d+$/);

      const nothing = await sync(token);
      expect(names(nothing.body)).toEqual([]);

      await dav('DELETE', `${base}done.ics`);
      await dav('PUT', `${base}open.ics`, {
        body: todo('open', 'PRIORITY:1'),
        headers: { 'content-type': 'text/calendar' },
      });
      const changes = responsesOf((await sync(token)).body);
      expect(changes.map((r) => [r.href.split('/').pop(), r.status || '200'])).toEqual([
        ['open.ics', '200'],
        ['done.ics', 'HTTP/1.1 404 Not Found'],
      ]);

      const bad = await sync('urn:tasklane:sync:40:999999');
      expect(bad.statusCode).toBe(403);
      const error = parseXml(bad.body)!;
      expect([error.name, error.children[0]!.ns, error.children[0]!.name]).toEqual([
        'error',
        'DAV:',
        'valid-sync-token',
      ]);
    });

    it('answers an unknown report 403 supported-report, a report outside a collection 403', async () => {
      const unknown = await dav('REPORT', base, { body: '<x:foo xmlns:x="urn:x"/>' });
      expect(unknown.statusCode).toBe(403);
      expect(unknown.body).toContain('supported-report');
      const home = await dav('REPORT', '/dav/calendars/ana/', {
        body: '<d:sync-collection xmlns:d="DAV:"/>',
      });
      expect(home.statusCode).toBe(403);
    });

    it('lists the resources at Depth 1 with getetag and the VTODO content type', async () => {
      const response = await dav('PROPFIND', base, {
        headers: { depth: '1' },
        body: '<propfind xmlns="DAV:"><prop><getetag/><getcontenttype/></prop></propfind>',
      });
      const [, ...resources] = responsesOf(response.body);
      expect(resources.length).toBe(2);
      for (const resource of resources) {
        expect(resource.found.getetag!.text).toMatch(/^"/);
        expect(resource.found.getcontenttype!.text).toBe('text/calendar; charset=utf-8; component=VTODO');
      }
    });
  });
});

describe.each(testDialects)('CalDAV routes over the store on %s', (dialect) => {
  let t: TestApp;
  let ana: TestUser;
  let basic: string;
  let inbox: string;

  const tokenFor = async (user: TestUser, body: Record<string, unknown> = {}) => {
    const created = await user.request('POST', '/api/tokens', { name: 'CalDAV app', ...body });
    expect(created.statusCode, created.body).toBe(201);
    const { token } = created.json() as { token: string };
    return `Basic ${Buffer.from(`${user.user.username}:${token}`).toString('base64')}`;
  };
  const dav = (
    method: string,
    url: string,
    options: { body?: string; headers?: Record<string, string>; auth?: string } = {},
  ) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: {
        authorization: options.auth ?? basic,
        ...(options.body !== undefined ? { 'content-type': 'application/xml; charset=utf-8' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { payload: options.body } : {}),
    });
  const ics = (body: string) => ({ body, headers: { 'content-type': 'text/calendar; charset=utf-8' } });
  const sync = (url: string, token: string, auth?: string) =>
    dav('REPORT', url, {
      auth,
      body: `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`,
    });
  const syncTokenOf = (body: string) =>
    parseXml(body)!.children.find((child) => child.name === 'sync-token')!.text;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    ana = await t.signUp();
    basic = await tokenFor(ana);
    inbox = davCollectionPath(ana.user.username, ana.inboxId);
  });
  afterAll(async () => {
    await t.close();
  });

  it('signs in with the username and an API token only: a password or a wrong token is a 401', async () => {
    const password = `Basic ${Buffer.from(`${ana.user.username}:${ana.password}`).toString('base64')}`;
    for (const auth of [
      password,
      `Basic ${Buffer.from(`${ana.user.username}:tl_nope`).toString('base64')}`,
    ]) {
      const response = await dav('PROPFIND', '/dav/', { auth });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Basic realm="Tasklane"');
    }
    const bea = await t.signUp();
    const beas = await tokenFor(bea);
    const asAna = `Basic ${Buffer.from(`${ana.user.username}:${beas.split(':')[1]}`).toString('base64')}`;
    expect((await dav('PROPFIND', '/dav/', { auth: asAna })).statusCode).toBe(401);
    expect(
      (await dav('PROPFIND', davHomePath(bea.user.username), { headers: { depth: '1' } })).statusCode,
    ).toBe(404);
  });

  it('lists the Inbox first as Your Tasks; a task made in the app is a resource; GET answers its text', async () => {
    const created = await ana.request('POST', '/api/tasks', { title: 'From the app' });
    expect(created.statusCode).toBe(201);
    const taskId = (created.json() as { id: number }).id;
    const home = await dav('PROPFIND', davHomePath(ana.user.username), {
      headers: { depth: '1' },
      body: '<propfind xmlns="DAV:"><prop><displayname/><resourcetype/></prop></propfind>',
    });
    expect(home.statusCode).toBe(207);
    const [, first] = responsesOf(home.body);
    expect(first!.href).toBe(inbox);
    expect(first!.found.displayname!.text).toBe(CALDAV_INBOX_NAME);

    const listing = await dav('PROPFIND', inbox, {
      headers: { depth: '1' },
      body: '<propfind xmlns="DAV:"><prop><getetag/></prop></propfind>',
    });
    const resource = responsesOf(listing.body).find((r) => r.href.endsWith(`tasklane-${taskId}.ics`));
    expect(resource).toBeDefined();
    const got = await dav('GET', resource!.href);
    expect(got.statusCode).toBe(200);
    expect(got.headers.etag).toBe(resource!.found.getetag!.text);
    expect(got.body).toContain(`UID:tasklane-${taskId}`);
    expect(got.body).toContain('SUMMARY:From the app');
  });

  it('creates, replaces and deletes a task with PUT and DELETE, honouring If-Match, seen by sync-collection', async () => {
    const start = syncTokenOf((await sync(inbox, '')).body);
    const url = `${inbox}phone-1.ics`;
    const created = await dav('PUT', url, {
      ...ics(todo('phone-1')),
      headers: { ...ics('').headers, 'if-none-match': '*' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const etag = created.headers.etag as string;
    const tasks = await ana.request('GET', `/api/tasks?projectId=${ana.inboxId}`);
    expect(tasks.body).toContain('Task phone-1');

    const afterCreate = await sync(inbox, start);
    expect(responsesOf(afterCreate.body).map((r) => r.href)).toEqual([url]);
    const next = syncTokenOf(afterCreate.body);

    const stale = await dav('PUT', url, {
      ...ics(todo('phone-1', 'PRIORITY:1')),
      headers: { ...ics('').headers, 'if-match': '"stale"' },
    });
    expect(stale.statusCode).toBe(412);
    const replaced = await dav('PUT', url, {
      ...ics(todo('phone-1', 'PRIORITY:1')),
      headers: { ...ics('').headers, 'if-match': etag },
    });
    expect(replaced.statusCode, replaced.body).toBe(204);
    expect(replaced.headers.etag).not.toBe(etag);

    expect((await dav('DELETE', url)).statusCode).toBe(204);
    const afterDelete = responsesOf((await sync(inbox, next)).body);
    expect(afterDelete.map((r) => [r.href, r.status])).toEqual([[url, 'HTTP/1.1 404 Not Found']]);
    expect((await dav('GET', url)).statusCode).toBe(404);
  });

  it('answers 400, 403 supported-calendar-component, 403 valid-sync-token as the issue says', async () => {
    const bad = await dav('PUT', `${inbox}bad.ics`, ics('not a calendar'));
    expect(bad.statusCode).toBe(400);
    expect(bad.body.length).toBeGreaterThan(0);
    const event = await dav('PUT', `${inbox}event.ics`, ics(todo('event').replace(/VTODO/g, 'VEVENT')));
    expect(event.statusCode).toBe(403);
    expect(event.body).toContain('supported-calendar-component');
    const token = await sync(inbox, `urn:tasklane:sync:${ana.inboxId}:999999999999999`);
    expect(token.statusCode).toBe(403);
    expect(token.body).toContain('valid-sync-token');
  });

  it('answers calendar-query and calendar-multiget from the store', async () => {
    await dav('PUT', `${inbox}q-open.ics`, ics(todo('q-open')));
    await dav(
      'PUT',
      `${inbox}q-done.ics`,
      ics(todo('q-done', 'STATUS:COMPLETED\r\nCOMPLETED:20260105T100000Z')),
    );
    const open = await dav('REPORT', inbox, {
      headers: { depth: '1' },
      body: `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter>
        <c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"><c:prop-filter name="COMPLETED"><c:is-not-defined/></c:prop-filter>
        </c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`,
    });
    const hrefs = responsesOf(open.body).map((r) => r.href);
    expect(hrefs).toContain(`${inbox}q-open.ics`);
    expect(hrefs).not.toContain(`${inbox}q-done.ics`);
    const multiget = await dav('REPORT', inbox, {
      body: `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>
        <d:href>${inbox}q-open.ics</d:href><d:href>${inbox}missing.ics</d:href></c:calendar-multiget>`,
    });
    const [found, missing] = responsesOf(multiget.body);
    expect(found!.found['calendar-data']!.text).toContain('UID:q-open');
    expect(missing!.status).toBe('HTTP/1.1 404 Not Found');
  });

  it('gives a viewer read privileges only and 403 on PUT; a read-only token 403; a limited token its projects only', async () => {
    const team = await signUpTeam(t);
    const projectId = await shareProject(team, 'Shared');
    const viewer = await tokenFor(team.viewer);
    const shared = davCollectionPath(team.viewer.user.username, projectId);
    const props = await dav('PROPFIND', shared, {
      auth: viewer,
      headers: { depth: '0' },
      body: '<propfind xmlns="DAV:"><prop><current-user-privilege-set/></prop></propfind>',
    });
    expect(props.statusCode).toBe(207);
    expect(props.body).toContain('read');
    expect(props.body).not.toContain('write-content');
    expect((await dav('PUT', `${shared}v.ics`, { ...ics(todo('v')), auth: viewer })).statusCode).toBe(403);

    const readOnly = await tokenFor(ana, { scopes: ['read'] });
    const put = await dav('PUT', `${inbox}ro.ics`, { ...ics(todo('ro')), auth: readOnly });
    expect(put.statusCode).toBe(403);
    expect((await dav('PROPFIND', inbox, { auth: readOnly, headers: { depth: '0' } })).statusCode).toBe(207);

    const ownerLimited = await tokenFor(team.owner, { projectIds: [projectId] });
    const home = await dav('PROPFIND', davHomePath(team.owner.user.username), {
      auth: ownerLimited,
      headers: { depth: '1' },
      body: '<propfind xmlns="DAV:"><prop><displayname/></prop></propfind>',
    });
    expect(responsesOf(home.body).map((r) => r.href)).toEqual([
      davHomePath(team.owner.user.username),
      davCollectionPath(team.owner.user.username, projectId),
    ]);
    const ownerInbox = davCollectionPath(team.owner.user.username, team.owner.inboxId);
    expect(
      (await dav('PROPFIND', ownerInbox, { auth: ownerLimited, headers: { depth: '0' } })).statusCode,
    ).toBe(404);
  });
});
