import crypto from 'node:crypto';
import { CALDAV_MESSAGES } from '../../../common/caldav';
import type { ProjectRole } from '../../../common/projects';
import { projectLimitOf } from '../../access/token-limits';
import { badRequest, forbidden, HttpError, notFound } from '../../http/errors';
import {
  type DavCaller,
  type DavCollection,
  DavPreconditionError,
  type DavResource,
  type DavStore,
  DavSyncTokenError,
} from '../types';

/**
 * An in-memory DavStore for the protocol tests: collections per user, resources with strong
 * ETags, and a change log for sync tokens. It reads a token's project limits as the access module
 * does (projectLimitOf), so a route that forgets withTokenLimits shows in the tests.
 */
interface FakeCollection {
  userId: number;
  projectId: number;
  name: string;
  role: ProjectRole;
  writable: boolean;
  seq: number;
  resources: Map<string, string>;
  /** Each change: the name and its seq; deleted when it is gone. */
  log: Array<{ seq: number; href: string }>;
}

const etagOf = (ics: string) =>
  `"${crypto.createHash('sha256').update(ics).digest('base64url').slice(0, 27)}"`;
const tokenOf = (c: FakeCollection) => `urn:tasklane:sync:${c.projectId}:${c.seq}`;

export interface FakeDavStore extends DavStore {
  addCollection(userId: number, projectId: number, options?: { name?: string; role?: ProjectRole }): void;
  /** The text of a resource, as the test stored or PUT it. */
  text(projectId: number, href: string): string | undefined;
}

export function createFakeDavStore(): FakeDavStore {
  const collections = new Map<number, FakeCollection>();

  const visible = (caller: DavCaller, projectId: number): FakeCollection => {
    const found = collections.get(projectId);
    const limit = projectLimitOf(caller.userId);
    if (!found || found.userId !== caller.userId || (limit && !limit.has(projectId)))
      throw notFound('Project');
    return found;
  };
  const describe = (c: FakeCollection, caller: DavCaller): DavCollection => ({
    projectId: c.projectId,
    displayName: c.name,
    color: '#3B82F6',
    role: c.role,
    writable: c.writable && caller.limits.write,
    ctag: `"${c.projectId}-${c.seq}"`,
    syncToken: tokenOf(c),
  });
  const resource = (c: FakeCollection, href: string, withData: boolean): DavResource => {
    const ics = c.resources.get(href)!;
    return { href, etag: etagOf(ics), ...(withData ? { ics } : {}) };
  };
  const change = (c: FakeCollection, href: string) => {
    c.seq += 1;
    c.log.push({ seq: c.seq, href });
  };
  const checkConditions = (current: string | undefined, ifMatch?: string, ifNoneMatch?: string) => {
    if (ifNoneMatch === '*' && current !== undefined)
      throw new HttpError(412, CALDAV_MESSAGES.preconditionFailed);
    if (ifMatch !== undefined && (current === undefined || (ifMatch !== '*' && ifMatch !== etagOf(current))))
      throw new HttpError(412, CALDAV_MESSAGES.preconditionFailed);
  };

  return {
    addCollection(userId, projectId, { name = `Project ${projectId}`, role = 'owner' } = {}) {
      collections.set(projectId, {
        userId,
        projectId,
        name,
        role,
        writable: role === 'owner' || role === 'admin' || role === 'editor',
        seq: 1,
        resources: new Map(),
        log: [],
      });
    },
    text: (projectId, href) => collections.get(projectId)?.resources.get(href),

    async collections(caller) {
      const limit = projectLimitOf(caller.userId);
      return [...collections.values()]
        .filter((c) => c.userId === caller.userId && (!limit || limit.has(c.projectId)))
        .map((c) => describe(c, caller));
    },
    async collection(caller, projectId) {
      return describe(visible(caller, projectId), caller);
    },
    async resources(caller, projectId, { withData }) {
      const c = visible(caller, projectId);
      return [...c.resources.keys()].map((href) => resource(c, href, withData));
    },
    async resourcesByHref(caller, projectId, hrefs, { withData }) {
      const c = visible(caller, projectId);
      return {
        found: hrefs.filter((href) => c.resources.has(href)).map((href) => resource(c, href, withData)),
        missing: hrefs.filter((href) => !c.resources.has(href)),
      };
    },
    async changesSince(caller, projectId, syncToken, { withData }) {
      const c = visible(caller, projectId);
      let since = 0;
      if (syncToken) {
        const match = /^urn:tasklane:sync:(\d+):(\d+)$/.exec(syncToken);
        if (!match || Number(match[1]) !== projectId || Number(match[2]) > c.seq)
          throw new DavSyncTokenError();
        since = Number(match[2]);
      }
      const names = new Set(c.log.filter((entry) => entry.seq > since).map((entry) => entry.href));
      if (!syncToken) for (const href of c.resources.keys()) names.add(href);
      const changed = [...names].filter((href) => c.resources.has(href));
      return {
        syncToken: tokenOf(c),
        changed: changed.map((href) => resource(c, href, withData)),
        deleted: syncToken ? [...names].filter((href) => !c.resources.has(href)) : [],
      };
    },
    async get(caller, projectId, href) {
      const c = visible(caller, projectId);
      if (!c.resources.has(href)) throw notFound('Task');
      return resource(c, href, true) as Required<DavResource>;
    },
    async put(caller, projectId, href, body, { ifMatch, ifNoneMatch }) {
      const c = visible(caller, projectId);
      if (!c.writable || !caller.limits.write) throw forbidden();
      if (!/^BEGIN:VCALENDAR/.test(body.trimStart())) throw badRequest(CALDAV_MESSAGES.notCalendar);
      if (/BEGIN:VEVENT/.test(body))
        throw new DavPreconditionError(403, 'supported-calendar-component', CALDAV_MESSAGES.onlyTodos);
      if (!/BEGIN:VTODO/.test(body)) throw badRequest(CALDAV_MESSAGES.oneTodo);
      const current = c.resources.get(href);
      checkConditions(current, ifMatch, ifNoneMatch);
      c.resources.set(href, body);
      change(c, href);
      return { created: current === undefined, etag: etagOf(body) };
    },
    async remove(caller, projectId, href, { ifMatch }) {
      const c = visible(caller, projectId);
      if (!c.writable || !caller.limits.write) throw forbidden();
      const current = c.resources.get(href);
      if (current === undefined) throw notFound('Task');
      checkConditions(current, ifMatch);
      c.resources.delete(href);
      change(c, href);
    },
  };
}
