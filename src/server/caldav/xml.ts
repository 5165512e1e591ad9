import type { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { badRequest } from '../http/errors';
import { xmlLibrary } from './libraries';

/**
 * WebDAV's XML (RFC 4918 §14) in and out. fast-xml-parser knows prefixes, not namespaces, so the
 * parsed tree is resolved here: each element gets the namespace its prefix (or the default
 * namespace) is bound to where it stands. Answers are written with fixed prefixes for the
 * namespaces we speak and a prefix of its own for any other a client asked about.
 */

export const NS = {
  dav: 'DAV:',
  caldav: 'urn:ietf:params:xml:ns:caldav',
  calendarServer: 'http://calendarserver.org/ns/',
  apple: 'http://apple.com/ns/ical/',
} as const;

const PREFIXES: Record<string, string> = {
  [NS.dav]: 'D',
  [NS.caldav]: 'C',
  [NS.calendarServer]: 'CS',
  [NS.apple]: 'A',
};

/** The namespace declarations every answer carries. */
const DECLARATIONS = Object.fromEntries(
  Object.entries(PREFIXES).map(([ns, prefix]) => [`@_xmlns:${prefix}`, ns]),
);

export interface XmlElement {
  ns: string;
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text, its pieces joined. */
  text: string;
}

/** A property's name: `{ns}name` is its key. */
export interface PropName {
  ns: string;
  name: string;
}

export const propKey = ({ ns, name }: PropName) => `{${ns}}${name}`;

const parserOptions = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Character references (&#13;) are read; named ones beyond XML's five come from no DAV client.
  htmlEntities: true,
};
let parser: XMLParser | undefined;

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

/**
 * The request's XML document, its namespaces resolved; null for an empty body. Malformed XML, or a
 * DTD (which no WebDAV client sends and which could declare entities), is a 400.
 */
export function parseXml(body: string): XmlElement | null {
  if (body.trim() === '') return null;
  if (/<!DOCTYPE/i.test(body)) throw badRequest('The XML body must not have a DOCTYPE.');
  const { XMLParser, XMLValidator } = xmlLibrary();
  const valid = XMLValidator.validate(body);
  if (valid !== true) throw badRequest(`The XML body is not well-formed: ${valid.err.msg}`);
  let nodes: OrderedNode[];
  try {
    parser ??= new XMLParser(parserOptions);
    nodes = parser.parse(body) as OrderedNode[];
  } catch (error) {
    throw badRequest(`The XML body could not be read: ${(error as Error).message}`);
  }
  const root = nodes.map((node) => resolve(node, new Map())).find((element) => element !== null);
  if (!root) throw badRequest('The XML body has no element.');
  return root;
}

function resolve(node: OrderedNode, scope: ReadonlyMap<string, string>): XmlElement | null {
  const tag = Object.keys(node).find((key) => key !== ':@');
  if (!tag || tag === '#text' || tag.startsWith('?') || tag.startsWith('#')) return null;
  const rawAttributes = node[':@'] ?? {};
  const namespaces = new Map(scope);
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(rawAttributes)) {
    if (name === 'xmlns') namespaces.set('', value);
    else if (name.startsWith('xmlns:')) namespaces.set(name.slice(6), value);
    else attributes[name.includes(':') ? name.slice(name.indexOf(':') + 1) : name] = value;
  }
  const colon = tag.indexOf(':');
  const prefix = colon === -1 ? '' : tag.slice(0, colon);
  const ns = namespaces.get(prefix);
  if (ns === undefined && prefix !== '') throw badRequest(`The XML prefix '${prefix}' is not declared.`);
  const children: XmlElement[] = [];
  let text = '';
  for (const child of (node[tag] as OrderedNode[] | undefined) ?? []) {
    if ('#text' in child) text += String(child['#text']);
    else {
      const element = resolve(child, namespaces);
      if (element) children.push(element);
    }
  }
  return { ns: ns ?? '', name: colon === -1 ? tag : tag.slice(colon + 1), attributes, children, text };
}

export const childOf = (element: XmlElement | null | undefined, ns: string, name: string) =>
  element?.children.find((child) => child.ns === ns && child.name === name);

export const childrenOf = (element: XmlElement | null | undefined, ns: string, name: string) =>
  element?.children.filter((child) => child.ns === ns && child.name === name) ?? [];

/** What a property holds, as the builder takes it: '' an empty element, text, or elements (D:href…). */
export type XmlContent = string | Record<string, unknown>;

export interface PropStat {
  status: number;
  props: Array<{ name: PropName; value: XmlContent }>;
}

export interface DavResponse {
  href: string;
  /** The properties by status (200, 403, 404); or `status` alone for a whole resource (a 404). */
  propstats?: PropStat[];
  status?: number;
}

const STATUS_LINES: Record<number, string> = {
  200: 'HTTP/1.1 200 OK',
  403: 'HTTP/1.1 403 Forbidden',
  404: 'HTTP/1.1 404 Not Found',
};

/**
 * `jPath: false`: the builder does not write out each element's path for callbacks we do not pass
 * (a 5,000-response multistatus in a third of the time). fast-xml-builder takes it; the types
 * fast-xml-parser re-exports do not name it yet, hence the options as a variable.
 */
const builderOptions = {
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: true,
  processEntities: true,
  jPath: false,
};
let xmlBuilder: XMLBuilder | undefined;
const builder = () => {
  xmlBuilder ??= new (xmlLibrary().XMLBuilder)(builderOptions);
  return xmlBuilder;
};

const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\n';

/** The properties of one propstat, each under its prefix; one in another namespace gets its own. */
function propElements(props: PropStat['props']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  props.forEach(({ name, value }, index) => {
    const prefix = PREFIXES[name.ns];
    if (prefix) {
      out[`${prefix}:${name.name}`] = value;
      return;
    }
    // A property in a namespace we do not speak (or none) is named as the client named it.
    const own = `X${index}`;
    const attributes = { [name.ns ? `@_xmlns:${own}` : '@_xmlns']: name.ns };
    const content = typeof value === 'string' ? (value === '' ? {} : { '#text': value }) : value;
    out[name.ns ? `${own}:${name.name}` : name.name] = { ...attributes, ...content };
  });
  return out;
}

/** A 207 Multi-Status body (RFC 4918 §13); `syncToken` for a sync-collection answer (RFC 6578). */
export function multistatus(responses: DavResponse[], syncToken?: string): string {
  const body: Record<string, unknown> = {
    ...DECLARATIONS,
    'D:response': responses.map((response) => ({
      'D:href': response.href,
      ...(response.propstats
        ? {
            'D:propstat': response.propstats
              .filter((propstat) => propstat.props.length > 0)
              .map((propstat) => ({
                'D:prop': propElements(propstat.props),
                'D:status': STATUS_LINES[propstat.status] ?? `HTTP/1.1 ${propstat.status}`,
              })),
          }
        : { 'D:status': STATUS_LINES[response.status ?? 404] }),
    })),
    ...(syncToken === undefined ? {} : { 'D:sync-token': syncToken }),
  };
  return XML_DECLARATION + builder().build({ 'D:multistatus': body });
}

/** A DAV:error body naming the precondition that failed (RFC 4918 §16). */
export function errorBody(condition: PropName): string {
  const prefix = PREFIXES[condition.ns] ?? 'X';
  return (
    XML_DECLARATION +
    builder().build({
      'D:error': {
        '@_xmlns:D': NS.dav,
        ...(prefix === 'D' ? {} : { [`@_xmlns:${prefix}`]: condition.ns }),
        [`${prefix}:${condition.name}`]: '',
      },
    })
  );
}
