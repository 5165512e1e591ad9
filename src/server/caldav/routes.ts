import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CALDAV_LIMITS,
  CALDAV_MESSAGES,
  CALDAV_WELL_KNOWN,
  DAV_ROOT,
  davCollectionPath,
  davHomePath,
  davPrincipalPath,
} from '../../common/caldav';
import { TOKEN_MESSAGES } from '../../common/tokens';
import { mayWrite, withTokenLimits } from '../access/token-limits';
import type { UserRow } from '../db/schema';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE,
  forbidden,
  HttpError,
  isDatabaseUnavailable,
} from '../http/errors';
import { authenticateDav, type DavAuthDeps, type DavSignIn } from './auth';
import { type CompFilter, matchesEveryTask, matchesFilter, parseFilter } from './filter';
import { loadCaldavLibraries } from './libraries';
import {
  type DavCaller,
  type DavCollection,
  DavPreconditionError,
  type DavResource,
  type DavStore,
  DavSyncTokenError,
} from './types';
import {
  childOf,
  type DavResponse,
  errorBody,
  multistatus,
  NS,
  type PropName,
  type PropStat,
  parseXml,
  propKey,
  type XmlContent,
  type XmlElement,
} from './xml';

/**
 * The CalDAV server for tasks (issue 30, decision 052): WebDAV and CalDAV over HTTP under /dav/,
 * outside the JSON API (no OpenAPI entry; its answers are XML, iCalendar and plain text). Every
 * path under /dav/ is one route that dispatches on what the path names (the root, the principal,
 * the calendar home, a project's collection, a task's resource); the store does the rest.
 */

export interface CaldavFeatureDeps extends DavAuthDeps {
  store: DavStore;
}

/** WebDAV's methods Fastify does not know; they may all carry a body. */
const EXTRA_METHODS = ['PROPFIND', 'PROPPATCH', 'REPORT', 'MKCALENDAR', 'MKCOL', 'MOVE', 'COPY'] as const;
const METHODS = ['OPTIONS', 'GET', 'PUT', 'DELETE', ...EXTRA_METHODS];
const ALLOW = ['OPTIONS', 'GET', 'HEAD', 'PUT', 'DELETE', ...EXTRA_METHODS].join(', ');
/** RFC 4791 §5.1: class 1 and 3 WebDAV, and CalDAV. */
const DAV_CAPABILITIES = '1, 3, calendar-access';

const XML_TYPE = 'application/xml; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';
const ICS_TYPE = 'text/calendar; charset=utf-8';
const RESOURCE_TYPE = 'text/calendar; charset=utf-8; component=VTODO';

export const DAV_ROUTE_MESSAGES = {
  notFound: 'Nothing is served at this address.',
  notResource: 'Only a task (a .ics resource in a calendar) can be read, written or deleted here.',
  noDelete: 'Calendars are projects, deleted in the app.',
  noMove: 'Tasks cannot be moved or copied here: move them in the app.',
  reportTarget: 'Reports are asked of a calendar collection.',
  unknownReport: 'This server answers calendar-query, calendar-multiget and sync-collection reports.',
  reportBody: 'A REPORT needs an XML body.',
  propfindBody: 'A PROPFIND body is a DAV:propfind element.',
  proppatchBody: 'A PROPPATCH body is a DAV:propertyupdate element.',
  serverError: 'Something went wrong on our side. Please try again.',
} as const;

/** What a path under /dav/ names; the username in it is the caller's (another's is a 404). */
type DavTarget =
  | { kind: 'root' }
  | { kind: 'principal' }
  | { kind: 'home' }
  | { kind: 'collection'; projectId: number }
  | { kind: 'resource'; projectId: number; name: string };

function decodeSegments(pathname: string): string[] | null {
  try {
    return pathname
      .split('/')
      .filter((segment) => segment !== '')
      .map(decodeURIComponent);
  } catch {
    return null;
  }
}

const projectIdOf = (segment: string): number | null =>
  /^[1-9]\d{0,15}$/.test(segment) && Number.isSafeInteger(Number(segment)) ? Number(segment) : null;

/** The target of `/dav/...` for this caller; null when it names nothing of theirs. */
function targetOf(pathname: string, username: string): DavTarget | null {
  const segments = decodeSegments(pathname);
  if (segments?.[0] !== 'dav') return null;
  const [, area, owner, project, name, ...rest] = segments;
  if (area === undefined) return { kind: 'root' };
  if (owner === undefined || owner.toLowerCase() !== username.toLowerCase() || rest.length > 0) return null;
  if (area === 'principals') return project === undefined ? { kind: 'principal' } : null;
  if (area !== 'calendars') return null;
  if (project === undefined) return { kind: 'home' };
  const projectId = projectIdOf(project);
  if (projectId === null) return null;
  return name === undefined ? { kind: 'collection', projectId } : { kind: 'resource', projectId, name };
}

const resourcePath = (username: string, projectId: number, name: string) =>
  `${davCollectionPath(username, projectId)}${encodeURIComponent(name)}`;

/** What a PROPFIND (or a REPORT's DAV:prop) asks for. */
type PropRequest = { kind: 'allprop' } | { kind: 'propname' } | { kind: 'prop'; names: PropName[] };

function propRequestOf(element: XmlElement | null | undefined, fallback: PropRequest): PropRequest {
  if (!element) return fallback;
  if (childOf(element, NS.dav, 'propname')) return { kind: 'propname' };
  if (childOf(element, NS.dav, 'allprop')) return { kind: 'allprop' };
  const prop = childOf(element, NS.dav, 'prop');
  if (!prop) return fallback;
  return { kind: 'prop', names: prop.children.map(({ ns, name }) => ({ ns, name })) };
}

interface Prop {
  name: PropName;
  value: XmlContent;
}

const p = (ns: string, name: string, value: XmlContent): Prop => ({ name: { ns, name }, value });

/** Properties left out of allprop (RFC 4791 §9.6: calendar-data is asked for by name). */
const NOT_IN_ALLPROP = new Set([propKey({ ns: NS.caldav, name: 'calendar-data' })]);

/** The propstats that answer `request` from the properties a target has. */
function propstats(props: Prop[], request: PropRequest, minimal: boolean): PropStat[] {
  if (request.kind === 'allprop')
    return [{ status: 200, props: props.filter(({ name }) => !NOT_IN_ALLPROP.has(propKey(name))) }];
  if (request.kind === 'propname')
    return [{ status: 200, props: props.map(({ name }) => ({ name, value: '' })) }];
  const byKey = new Map(props.map((prop) => [propKey(prop.name), prop]));
  const found: Prop[] = [];
  const missing: Prop[] = [];
  for (const name of request.names) {
    const prop = byKey.get(propKey(name));
    if (prop) found.push(prop);
    else missing.push({ name, value: '' });
  }
  return [{ status: 200, props: found }, ...(minimal ? [] : [{ status: 404, props: missing }])];
}

const privileges = (names: string[]) => ({ 'D:privilege': names.map((name) => ({ [`D:${name}`]: '' })) });
const READ_PRIVILEGES = ['read', 'read-current-user-privilege-set'];
const WRITE_PRIVILEGES = [...READ_PRIVILEGES, 'write', 'write-content', 'write-properties', 'bind', 'unbind'];

const SUPPORTED_REPORTS = {
  'D:supported-report': [
    { 'D:report': { 'C:calendar-query': '' } },
    { 'D:report': { 'C:calendar-multiget': '' } },
    { 'D:report': { 'D:sync-collection': '' } },
  ],
};

function principalProps(user: UserRow): Prop[] {
  const principal = { 'D:href': davPrincipalPath(user.username) };
  return [
    p(NS.dav, 'resourcetype', { 'D:principal': '' }),
    p(NS.dav, 'displayname', user.first_name || user.username),
    p(NS.dav, 'current-user-principal', principal),
    p(NS.dav, 'principal-URL', principal),
    p(NS.caldav, 'calendar-home-set', { 'D:href': davHomePath(user.username) }),
    p(NS.caldav, 'calendar-user-address-set', user.email ? { 'D:href': `mailto:${user.email}` } : ''),
    p(NS.dav, 'current-user-privilege-set', privileges(READ_PRIVILEGES)),
  ];
}

function rootProps(user: UserRow): Prop[] {
  const principal = { 'D:href': davPrincipalPath(user.username) };
  return [
    p(NS.dav, 'resourcetype', { 'D:collection': '' }),
    p(NS.dav, 'current-user-principal', principal),
    p(NS.dav, 'principal-URL', principal),
    // Not a principal's, but simple clients ask the root for it.
    p(NS.caldav, 'calendar-home-set', { 'D:href': davHomePath(user.username) }),
  ];
}

function homeProps(user: UserRow): Prop[] {
  const principal = { 'D:href': davPrincipalPath(user.username) };
  return [
    p(NS.dav, 'resourcetype', { 'D:collection': '' }),
    p(NS.dav, 'displayname', user.first_name || user.username),
    p(NS.dav, 'current-user-principal', principal),
    p(NS.dav, 'owner', principal),
    p(NS.dav, 'current-user-privilege-set', privileges(READ_PRIVILEGES)),
  ];
}

function collectionProps(user: UserRow, collection: DavCollection): Prop[] {
  return [
    p(NS.dav, 'resourcetype', { 'D:collection': '', 'C:calendar': '' }),
    p(NS.dav, 'displayname', collection.displayName),
    p(NS.apple, 'calendar-color', collection.color),
    p(NS.caldav, 'supported-calendar-component-set', { 'C:comp': { '@_name': 'VTODO' } }),
    p(NS.caldav, 'max-resource-size', String(CALDAV_LIMITS.maxBodyBytes)),
    p(NS.calendarServer, 'getctag', collection.ctag),
    p(NS.dav, 'sync-token', collection.syncToken),
    p(
      NS.dav,
      'current-user-privilege-set',
      privileges(collection.writable ? WRITE_PRIVILEGES : READ_PRIVILEGES),
    ),
    p(NS.dav, 'supported-report-set', SUPPORTED_REPORTS),
    p(NS.dav, 'owner', { 'D:href': davPrincipalPath(user.username) }),
    p(NS.dav, 'current-user-principal', { 'D:href': davPrincipalPath(user.username) }),
    p(NS.dav, 'getcontenttype', 'text/calendar; charset=utf-8'),
  ];
}

function resourceProps(resource: DavResource): Prop[] {
  return [
    p(NS.dav, 'resourcetype', ''),
    p(NS.dav, 'getetag', resource.etag),
    p(NS.dav, 'getcontenttype', RESOURCE_TYPE),
    ...(resource.ics === undefined
      ? []
      : [
          p(NS.dav, 'getcontentlength', String(Buffer.byteLength(resource.ics))),
          p(NS.caldav, 'calendar-data', resource.ics),
        ]),
  ];
}

const wantsData = (request: PropRequest) =>
  request.kind === 'prop' &&
  request.names.some(({ ns, name }) => ns === NS.caldav && name === 'calendar-data');

/** Header value, first of a repeated one. */
const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** 'infinity' (and no header, whose default it is) is answered as 1: no deeper tree exists here. */
const depthOf = (request: FastifyRequest): 0 | 1 => (header(request, 'depth')?.trim() === '0' ? 0 : 1);

/** RFC 8144 / Apple's Brief: leave out the 404 propstats. */
const isMinimal = (request: FastifyRequest) =>
  /return=minimal/i.test(String(request.headers.prefer ?? '')) || request.headers.brief === 't';

/** A href a client sent (a path or a full URL) as the name of a resource in the collection, or null. */
function nameInCollection(href: string, username: string, projectId: number): string | null {
  let pathname: string;
  try {
    pathname = new URL(href.trim(), 'http://localhost').pathname;
  } catch {
    return null;
  }
  const target = targetOf(pathname, username);
  return target?.kind === 'resource' && target.projectId === projectId ? target.name : null;
}

const notFound = () => new HttpError(404, DAV_ROUTE_MESSAGES.notFound);

export async function caldavRoutes(app: FastifyInstance, deps: CaldavFeatureDeps): Promise<void> {
  for (const method of EXTRA_METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }
  // A scope of its own: its bodies are text (XML or iCalendar, whatever they are labelled) and its
  // errors are plain text or DAV:error XML, not the API's JSON.
  await app.register(async (scope) => davScope(scope, deps));
}

async function davScope(scope: FastifyInstance, { store, ...auth }: CaldavFeatureDeps): Promise<void> {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: CALDAV_LIMITS.maxBodyBytes },
    (_request, body, done) => done(null, body),
  );
  scope.setErrorHandler(answerDavError);

  // RFC 6764 §5: discovery, by any method, before any sign-in; and a client given the app's own
  // address (python-caldav, Apple's) asks it with PROPFIND.
  const toRoot = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.code(301).header('Location', DAV_ROOT).send();
  scope.all(CALDAV_WELL_KNOWN, toRoot);
  scope.route({ method: 'PROPFIND', url: '/', handler: toRoot });

  for (const url of ['/dav', '/dav/*']) registerDav(scope, url, store, auth);
}

/** Who signed in, per request: from the onRequest hook to the handler. */
const signedIn = new WeakMap<FastifyRequest, DavSignIn>();

function registerDav(scope: FastifyInstance, url: string, store: DavStore, auth: DavAuthDeps) {
  scope.route({
    method: METHODS,
    url,
    // Before the body is read: a request without good credentials costs nothing more.
    onRequest: async (request, reply) => {
      reply.header('DAV', DAV_CAPABILITIES);
      // OPTIONS says what this server speaks, to anyone (clients ask it before signing in).
      if (request.method === 'OPTIONS') return;
      await loadCaldavLibraries();
      signedIn.set(request, await authenticateDav(request, auth));
    },
    handler: async (request, reply) => {
      if (request.method === 'OPTIONS') return reply.header('Allow', ALLOW).code(200).send();
      return serve(request, reply, signedIn.get(request)!, store);
    },
    // The sign-in limits' bookkeeping ran beside the request; it is done before the answer leaves.
    onSend: async (request) => {
      await signedIn.get(request)?.forgotten;
    },
  });
}

async function serve(
  request: FastifyRequest,
  reply: FastifyReply,
  { caller, user }: DavSignIn,
  store: DavStore,
) {
  const pathname = request.url.split('?')[0] ?? '/';
  const target = targetOf(pathname, caller.username);
  const method = request.method;
  if (method === 'MKCALENDAR' || method === 'MKCOL') throw forbidden(CALDAV_MESSAGES.mkcalendar);
  if (method === 'MOVE' || method === 'COPY') throw forbidden(DAV_ROUTE_MESSAGES.noMove);
  if ((method === 'PUT' || method === 'DELETE' || method === 'PROPPATCH') && !mayWrite(caller.limits))
    throw forbidden(TOKEN_MESSAGES.readOnly);
  if (!target) throw notFound();
  const body = typeof request.body === 'string' ? request.body : '';
  // Every store call runs inside the token's limits, where the access module reads them.
  const dav: Dav = { store, caller, user, target, request, reply, body, minimal: isMinimal(request) };
  return withTokenLimits(caller.limits, () => dispatch(dav));
}

interface Dav {
  store: DavStore;
  caller: DavCaller;
  user: UserRow;
  target: DavTarget;
  request: FastifyRequest;
  reply: FastifyReply;
  body: string;
  minimal: boolean;
}

async function dispatch(dav: Dav): Promise<unknown> {
  switch (dav.request.method) {
    case 'PROPFIND':
      return propfind(dav);
    case 'PROPPATCH':
      return proppatch(dav);
    case 'REPORT':
      return report(dav);
    case 'PUT':
      return put(dav);
    case 'DELETE':
      return remove(dav);
    default:
      return get(dav);
  }
}

const sendMultistatus = (reply: FastifyReply, responses: DavResponse[], syncToken?: string) =>
  reply.code(207).type(XML_TYPE).send(multistatus(responses, syncToken));

async function propfind({ store, caller, user, target, request, reply, body, minimal }: Dav) {
  const root = parseXml(body);
  if (root && !(root.ns === NS.dav && root.name === 'propfind'))
    throw new HttpError(400, DAV_ROUTE_MESSAGES.propfindBody);
  const asked = propRequestOf(root, { kind: 'allprop' });
  const depth = depthOf(request);
  const answer = (href: string, props: Prop[]): DavResponse => ({
    href,
    propstats: propstats(props, asked, minimal),
  });
  const responses: DavResponse[] = [];
  switch (target.kind) {
    case 'root':
      responses.push(answer(DAV_ROOT, rootProps(user)));
      break;
    case 'principal':
      responses.push(answer(davPrincipalPath(user.username), principalProps(user)));
      break;
    case 'home': {
      responses.push(answer(davHomePath(user.username), homeProps(user)));
      if (depth === 1) {
        for (const collection of await store.collections(caller))
          responses.push(
            answer(davCollectionPath(user.username, collection.projectId), collectionProps(user, collection)),
          );
      }
      break;
    }
    case 'collection': {
      const collection = await store.collection(caller, target.projectId);
      responses.push(
        answer(davCollectionPath(user.username, target.projectId), collectionProps(user, collection)),
      );
      if (depth === 1) {
        const resources = await store.resources(caller, target.projectId, { withData: wantsData(asked) });
        for (const resource of resources)
          responses.push(
            answer(resourcePath(user.username, target.projectId, resource.href), resourceProps(resource)),
          );
      }
      break;
    }
    case 'resource': {
      const resource = await store.get(caller, target.projectId, target.name);
      responses.push(
        answer(resourcePath(user.username, target.projectId, resource.href), resourceProps(resource)),
      );
      break;
    }
  }
  return sendMultistatus(reply, responses);
}

/** Clients set a calendar's colour or name; those are the project's, set in the app: each is a 403. */
async function proppatch({ store, caller, user, target, reply, body }: Dav) {
  const root = parseXml(body);
  if (!root || root.ns !== NS.dav || root.name !== 'propertyupdate')
    throw new HttpError(400, DAV_ROUTE_MESSAGES.proppatchBody);
  if (target.kind === 'collection' || target.kind === 'resource')
    await store.collection(caller, target.projectId);
  const names = root.children
    .filter((child) => child.ns === NS.dav && (child.name === 'set' || child.name === 'remove'))
    .flatMap((change) => childOf(change, NS.dav, 'prop')?.children ?? [])
    .map(({ ns, name }) => ({ name: { ns, name }, value: '' }));
  const path = (() => {
    switch (target.kind) {
      case 'root':
        return DAV_ROOT;
      case 'principal':
        return davPrincipalPath(user.username);
      case 'home':
        return davHomePath(user.username);
      case 'collection':
        return davCollectionPath(user.username, target.projectId);
      case 'resource':
        return resourcePath(user.username, target.projectId, target.name);
    }
  })();
  return sendMultistatus(reply, [{ href: path, propstats: [{ status: 403, props: names }] }]);
}

async function report(dav: Dav) {
  const { reply, target, body } = dav;
  const root = parseXml(body);
  if (!root) throw new HttpError(400, DAV_ROUTE_MESSAGES.reportBody);
  if (target.kind !== 'collection') throw forbidden(DAV_ROUTE_MESSAGES.reportTarget);
  if (root.ns === NS.caldav && root.name === 'calendar-query')
    return calendarQuery(dav, target.projectId, root);
  if (root.ns === NS.caldav && root.name === 'calendar-multiget')
    return multiget(dav, target.projectId, root);
  if (root.ns === NS.dav && root.name === 'sync-collection')
    return syncCollection(dav, target.projectId, root);
  // RFC 3253 §3.6: a report the resource does not support.
  return reply
    .code(403)
    .type(XML_TYPE)
    .send(errorBody({ ns: NS.dav, name: 'supported-report' }));
}

/** A report's DAV:prop; getetag alone when it names none. */
const reportProps = (root: XmlElement) =>
  propRequestOf(root, { kind: 'prop', names: [{ ns: NS.dav, name: 'getetag' }] });

/** Whether any task can match: a filter on a VEVENT or VJOURNAL matches nothing in a task list. */
const onlyOtherComponents = (filter: CompFilter | null) =>
  filter?.comps.some((comp) => comp.name !== 'VTODO' && !comp.isNotDefined) ?? false;

async function calendarQuery(
  { store, caller, user, reply, minimal }: Dav,
  projectId: number,
  root: XmlElement,
) {
  const asked = reportProps(root);
  const filter = parseFilter(childOf(root, NS.caldav, 'filter'));
  if (onlyOtherComponents(filter)) {
    // Nothing to read, but a collection that is not the caller's is a 404 all the same.
    await store.collection(caller, projectId);
    return sendMultistatus(reply, []);
  }
  const everyTask = matchesEveryTask(filter);
  const resources = await store.resources(caller, projectId, { withData: wantsData(asked) || !everyTask });
  const matching = everyTask
    ? resources
    : resources.filter((resource) => matchesFilter(resource.ics ?? '', filter!));
  const withAsked = wantsData(asked) ? matching : matching.map(({ ics: _, ...rest }) => rest);
  return sendMultistatus(
    reply,
    withAsked.map((resource) => ({
      href: resourcePath(user.username, projectId, resource.href),
      propstats: propstats(resourceProps(resource), asked, minimal),
    })),
  );
}

async function multiget({ store, caller, user, reply, minimal }: Dav, projectId: number, root: XmlElement) {
  const asked = reportProps(root);
  const hrefs = root.children
    .filter((child) => child.ns === NS.dav && child.name === 'href')
    .map((child) => child.text.trim());
  const names = hrefs.map((href) => nameInCollection(href, user.username, projectId));
  const wanted = [...new Set(names.filter((name): name is string => name !== null))];
  const { found } = await store.resourcesByHref(caller, projectId, wanted, { withData: wantsData(asked) });
  const byName = new Map(found.map((resource) => [resource.href, resource]));
  const responses = hrefs.map((href, index): DavResponse => {
    const resource = byName.get(names[index] ?? '');
    if (!resource) return { href, status: 404 };
    return {
      href: resourcePath(user.username, projectId, resource.href),
      propstats: propstats(resourceProps(resource), asked, minimal),
    };
  });
  return sendMultistatus(reply, responses);
}

/** RFC 6578: what changed since the client's token (none: everything), deletions as 404s. */
async function syncCollection(
  { store, caller, user, reply, minimal }: Dav,
  projectId: number,
  root: XmlElement,
) {
  const asked = reportProps(root);
  const token = childOf(root, NS.dav, 'sync-token')?.text.trim() || null;
  const changes = await store.changesSince(caller, projectId, token, { withData: wantsData(asked) });
  const responses: DavResponse[] = [
    ...changes.changed.map((resource) => ({
      href: resourcePath(user.username, projectId, resource.href),
      propstats: propstats(resourceProps(resource), asked, minimal),
    })),
    ...changes.deleted.map((name) => ({ href: resourcePath(user.username, projectId, name), status: 404 })),
  ];
  return sendMultistatus(reply, responses, changes.syncToken);
}

/** The resource a GET, PUT or DELETE names; anything else takes only PROPFIND, REPORT and OPTIONS. */
function resourceTarget(target: DavTarget): Extract<DavTarget, { kind: 'resource' }> {
  if (target.kind === 'resource') return target;
  throw new HttpError(405, DAV_ROUTE_MESSAGES.notResource, {
    Allow: 'OPTIONS, PROPFIND, PROPPATCH, REPORT',
  });
}

async function get({ store, caller, target, reply }: Dav) {
  const { projectId, name } = resourceTarget(target);
  const resource = await store.get(caller, projectId, name);
  return reply.code(200).type(ICS_TYPE).header('ETag', resource.etag).send(resource.ics);
}

const conditionsOf = (request: FastifyRequest) => ({
  ...(header(request, 'if-match') ? { ifMatch: header(request, 'if-match')!.trim() } : {}),
  ...(header(request, 'if-none-match') ? { ifNoneMatch: header(request, 'if-none-match')!.trim() } : {}),
});

async function put({ store, caller, target, request, reply, body }: Dav) {
  const { projectId, name } = resourceTarget(target);
  const { created, etag } = await store.put(caller, projectId, name, body, conditionsOf(request));
  return reply
    .code(created ? 201 : 204)
    .header('ETag', etag)
    .send();
}

async function remove({ store, caller, target, request, reply }: Dav) {
  if (target.kind !== 'resource') throw forbidden(DAV_ROUTE_MESSAGES.noDelete);
  await store.remove(caller, target.projectId, target.name, conditionsOf(request));
  return reply.code(204).send();
}

/**
 * Errors as WebDAV clients read them: a failed precondition as a DAV:error body, anything else as
 * its status with a line of plain text (a `{message}`-like text naming the problem).
 */
function answerDavError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof DavSyncTokenError)
    return reply
      .code(403)
      .type(XML_TYPE)
      .send(errorBody({ ns: NS.dav, name: 'valid-sync-token' }));
  if (error instanceof DavPreconditionError)
    return reply
      .code(error.status)
      .type(XML_TYPE)
      .send(errorBody({ ns: NS.caldav, name: error.condition }));
  if (error instanceof HttpError)
    return reply.code(error.statusCode).headers(error.headers).type(TEXT_TYPE).send(error.message);
  const { statusCode, code } = error as FastifyError;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return reply.code(413).type(TEXT_TYPE).send(CALDAV_MESSAGES.tooLarge);
  if (statusCode !== undefined && statusCode >= 400 && statusCode < 500)
    return reply.code(statusCode).type(TEXT_TYPE).send(error.message);
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ code: (error as { code?: string }).code }, 'database unavailable');
    return reply
      .code(503)
      .header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS))
      .type(TEXT_TYPE)
      .send(DATABASE_UNAVAILABLE);
  }
  request.log.error({ err: error }, 'unhandled CalDAV error');
  return reply.code(500).type(TEXT_TYPE).send(DAV_ROUTE_MESSAGES.serverError);
}
