import type { ProjectRole } from '../../common/projects';
import type { TokenLimits } from '../access';

/**
 * The seams of the CalDAV server (issue 30, decision 052):
 * - `vtodo.ts` maps one iCalendar object to Tasklane's fields and back (pure: ical.js, no database);
 * - `service.ts` (with `repository.ts` and `sync.ts`) is the store: collections, resources, ETags,
 *   sync tokens, and writes through the tasks service;
 * - `routes.ts` (with `xml.ts`, `auth.ts`, `filter.ts`) speaks WebDAV/CalDAV over HTTP.
 */

/** Who is asking: the owner of the API token given as the Basic password, with its limits. */
export interface DavCaller {
  userId: number;
  username: string;
  limits: TokenLimits;
}

/** What a VTODO says, in Tasklane's terms. */
export interface TodoFields {
  uid: string;
  /** SUMMARY; '' when the client sent none. */
  title: string;
  /** DESCRIPTION; null: none. */
  description: string | null;
  /** DUE's date (YYYY-MM-DD, in its own zone), or null. */
  dueDate: string | null;
  /** DUE's wall-clock time 'HH:MM' (null for VALUE=DATE). */
  dueTime: string | null;
  /** DUE's TZID, 'UTC' for a UTC time, null for a floating time or a date alone. */
  dueTimeZone: string | null;
  /** RRULE without the 'RRULE:' prefix, or null. */
  recurrence: string | null;
  /** STATUS:COMPLETED (or a COMPLETED stamp). */
  completed: boolean;
  /** COMPLETED as an ISO instant, or null. */
  completedAt: string | null;
  /** 1 (urgent) to 4 (none), from PRIORITY (src/common/caldav.ts). */
  priority: 1 | 2 | 3 | 4;
  /** CATEGORIES, every value of every such property, trimmed, without repeats (case-folded). */
  categories: string[];
  /** RELATED-TO;RELTYPE=PARENT (or without RELTYPE, whose default is PARENT), or null. */
  parentUid: string | null;
  /**
   * The VALARMs Tasklane can show: a TRIGGER relative to DUE (RELATED=END) before it
   * (relativeMinutes >= 0, whole minutes), or an absolute one (at, ISO). Others are kept as content.
   */
  reminders: Array<{ at: string } | { relativeMinutes: number }>;
  /** X-APPLE-SORT-ORDER, or null. */
  sortOrder: number | null;
}

/** A task as a resource is written: its fields plus what only the server knows. */
export interface TodoRender extends TodoFields {
  /** The task's creation and last change (ISO): CREATED, LAST-MODIFIED and DTSTAMP. */
  createdAt: string;
  updatedAt: string;
  /** The task in the app: URL. */
  url: string;
}

/** One calendar collection: a project the caller can see. */
export interface DavCollection {
  projectId: number;
  /** The project's name ('Your Tasks' for the Inbox). */
  displayName: string;
  /** '#RRGGBB'. */
  color: string;
  role: ProjectRole;
  /** Editor or more, a writable project (not archived) and a token that may write. */
  writable: boolean;
  /** Changes with every change of the collection's content (CalendarServer getctag). */
  ctag: string;
  /** The RFC 6578 token of the collection's current state (a URI). */
  syncToken: string;
}

/** One resource of a collection: `href` is its name in the collection ('<uid>.ics'). */
export interface DavResource {
  href: string;
  /** A strong ETag, with its quotes. */
  etag: string;
  /** The iCalendar text, when asked for. */
  ics?: string;
}

/** What changed since a sync token: the resources changed or added, and the names deleted. */
export interface DavChanges {
  syncToken: string;
  changed: DavResource[];
  deleted: string[];
}

/** The conditions of a PUT or DELETE. */
export interface DavPreconditions {
  /** If-Match: the ETag (quoted) the client last saw, or '*'. */
  ifMatch?: string;
  /** If-None-Match: '*' (create only). */
  ifNoneMatch?: string;
}

/** The store the protocol layer asks: every method throws an HttpError (404, 403, 409, 412, 400). */
export interface DavStore {
  /** The caller's collections: the Inbox first, then the rest by name. */
  collections(caller: DavCaller): Promise<DavCollection[]>;
  /** One collection; 404 when the caller cannot see the project. */
  collection(caller: DavCaller, projectId: number): Promise<DavCollection>;
  /** Every resource of the collection (with its text when `withData`). */
  resources(caller: DavCaller, projectId: number, options: { withData: boolean }): Promise<DavResource[]>;
  /** The named resources (calendar-multiget); a name that is not one is left out of `found`. */
  resourcesByHref(
    caller: DavCaller,
    projectId: number,
    hrefs: string[],
    options: { withData: boolean },
  ): Promise<{ found: DavResource[]; missing: string[] }>;
  /** RFC 6578: what changed since `syncToken` (null or '': everything); 403-ish DavSyncTokenError when unknown. */
  changesSince(
    caller: DavCaller,
    projectId: number,
    syncToken: string | null,
    options: { withData: boolean },
  ): Promise<DavChanges>;
  /** One resource with its text; 404 when there is none by that name. */
  get(caller: DavCaller, projectId: number, href: string): Promise<Required<DavResource>>;
  /** Creates or replaces the resource from an iCalendar text: 400, 403, 409, 412 as the issue says. */
  put(
    caller: DavCaller,
    projectId: number,
    href: string,
    body: string,
    conditions: DavPreconditions,
  ): Promise<{ created: boolean; etag: string }>;
  /** Deletes the resource's task (editor+); 404, 412. */
  remove(caller: DavCaller, projectId: number, href: string, conditions: DavPreconditions): Promise<void>;
}

/** An unknown or too old sync token: the route answers 403 with DAV:valid-sync-token. */
export class DavSyncTokenError extends Error {
  constructor() {
    super('invalid sync token');
    this.name = 'DavSyncTokenError';
  }
}

/**
 * A CalDAV precondition failed (RFC 4791 5.3.2.1): the route answers `status` with the named
 * element in the DAV:error body (e.g. 403 'supported-calendar-component' in the CalDAV namespace).
 */
export class DavPreconditionError extends Error {
  constructor(
    readonly status: number,
    readonly condition: string,
    message: string,
  ) {
    super(message);
    this.name = 'DavPreconditionError';
  }
}
