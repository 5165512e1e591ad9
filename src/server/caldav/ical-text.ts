import type ICAL from 'ical.js';

/**
 * The text of an iCalendar object as vtodo.ts reads and writes it (RFC 5545 3.1): CRLF line ends,
 * lines folded at 75 octets, and each property the render leaves alone written back exactly as the
 * client wrote it, which ical.js alone would not do.
 */

type Component = ICAL.Component;
type Property = ICAL.Property;

const CRLF = '\r\n';

/** The client's text, with CRLF line ends (RFC 5545 3.1) and a final one. */
export function keptText(text: string): string {
  const lines = text.replace(/^\uFEFF/, '').replace(/\r\n|\r|\n/g, CRLF);
  return lines.endsWith(CRLF) ? lines : lines + CRLF;
}

/** A stored property: its line as the client wrote it (unfolded), and as ical.js writes it. */
export interface Original {
  line: string;
  written: string;
}

/** A component's content lines as they stand in a text, unfolded, without reading their values. */
interface RawComponent {
  name: string;
  lines: string[];
  children: RawComponent[];
}

function rawComponents(text: string): RawComponent[] {
  const root: RawComponent = { name: '', lines: [], children: [] };
  const open = [root];
  const unfolded = keptText(text)
    .replace(/\r\n[ \t]/g, '')
    .split(CRLF);
  for (const line of unfolded) {
    if (!line) continue;
    const parent = open[open.length - 1] as RawComponent;
    const boundary = /^(BEGIN|END):(.*)$/i.exec(line);
    if (boundary?.[1]?.toUpperCase() === 'BEGIN') {
      const child: RawComponent = { name: (boundary[2] ?? '').trim().toLowerCase(), lines: [], children: [] };
      parent.children.push(child);
      open.push(child);
    } else if (boundary && open.length > 1) open.pop();
    else parent.lines.push(line);
  }
  return root.children;
}

/**
 * Pairs each property ical.js read from `text` with its line as sent. ical.js writes some things
 * its own way (it drops a VALUE parameter that names the default type, escapes a ';' in TEXT,
 * quotes parameters as it likes); a property the render does not change is written back as the
 * client wrote it. Properties pair up in order; a component whose count differs is left unpaired.
 */
export function originalsOf(calendar: Component, text: string): WeakMap<Property, Original> {
  const originals = new WeakMap<Property, Original>();
  const pair = (component: Component, raw: RawComponent) => {
    if (component.name !== raw.name) return;
    const properties = component.getAllProperties();
    if (properties.length === raw.lines.length) {
      for (const [index, property] of properties.entries()) {
        originals.set(property, { line: raw.lines[index] as string, written: property.toICALString() });
      }
    }
    const children = component.getAllSubcomponents();
    if (children.length === raw.children.length) {
      for (const [index, child] of children.entries()) pair(child, raw.children[index] as RawComponent);
    }
  };
  const [raw] = rawComponents(text);
  if (raw) pair(calendar, raw);
  return originals;
}

/** The object's text: CRLF line ends, each line folded at 75 octets (RFC 5545 3.1), a final CRLF. */
export function serialise(calendar: Component, originals = new WeakMap<Property, Original>()): string {
  const out: string[] = [];
  const write = (component: Component) => {
    out.push(`BEGIN:${component.name.toUpperCase()}`);
    for (const property of component.getAllProperties()) {
      const written = property.toICALString();
      const original = originals.get(property);
      out.push(fold(original && original.written === written ? original.line : written));
    }
    for (const child of component.getAllSubcomponents()) write(child);
    out.push(`END:${component.name.toUpperCase()}`);
  };
  write(calendar);
  return out.join(CRLF) + CRLF;
}

const FOLD_OCTETS = 75;

/** Folds a content line so that no line, its leading space included, is over 75 octets. */
function fold(line: string): string {
  if (Buffer.byteLength(line) <= FOLD_OCTETS) return line;
  const parts: string[] = [];
  let part = '';
  let octets = 0;
  let limit = FOLD_OCTETS;
  for (const char of line) {
    const size = Buffer.byteLength(char);
    if (octets + size > limit) {
      parts.push(part);
      part = '';
      octets = 0;
      limit = FOLD_OCTETS - 1;
    }
    part += char;
    octets += size;
  }
  parts.push(part);
  return parts.join(`${CRLF} `);
}
