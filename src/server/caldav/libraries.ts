import type * as FastXmlParser from 'fast-xml-parser';
import type ICALModule from 'ical.js';
import { onFirstUse } from '../on-first-use';

/**
 * ical.js and fast-xml-parser, loaded with the first CalDAV request (decision 027): most servers
 * never see one, and together they were a third of a second of every start. The routes and the
 * store await `loadCaldavLibraries()` before their first use; the modules then use them as if
 * imported (`ICAL.Component`, `xmlLibrary().XMLParser`).
 */
let loaded: { ical: typeof ICALModule; xml: typeof FastXmlParser } | undefined;

export const loadCaldavLibraries = onFirstUse(async () => {
  const [ical, xml] = await Promise.all([import('ical.js'), import('fast-xml-parser')]);
  loaded = { ical: ical.default, xml };
});

function libraries() {
  if (!loaded) throw new Error('A CalDAV library was used before loadCaldavLibraries() finished');
  return loaded;
}

/** ical.js's namespace, read from the loaded module at each use. */
export const ICAL = new Proxy({} as typeof ICALModule, {
  get: (_, key) => Reflect.get(libraries().ical, key),
});

export const xmlLibrary = (): typeof FastXmlParser => libraries().xml;
