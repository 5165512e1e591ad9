import { badRequest } from '../http/errors';
import { ICAL } from './libraries';
import { childOf, childrenOf, NS, type XmlElement } from './xml';

/**
 * calendar-query filters (RFC 4791 §9.7), as far as a task list needs them: comp-filter
 * VCALENDAR > VTODO (a VEVENT or VJOURNAL filter matches nothing here, as we hold only tasks),
 * time-range on a VTODO by RFC 4791 §9.9's table, and prop-filter with is-not-defined, text-match
 * or time-range (e.g. COMPLETED is-not-defined: the open tasks). A param-filter is not applied.
 */

interface TimeRange {
  /** Unix milliseconds; -Infinity / Infinity when open. */
  start: number;
  end: number;
}

interface TextMatch {
  text: string;
  negate: boolean;
  caseSensitive: boolean;
}

interface PropFilter {
  name: string;
  isNotDefined: boolean;
  timeRange?: TimeRange;
  textMatch?: TextMatch;
}

export interface CompFilter {
  name: string;
  isNotDefined: boolean;
  timeRange?: TimeRange;
  props: PropFilter[];
  comps: CompFilter[];
}

/** '20260101T000000Z' (RFC 4791 §9.9: UTC date-times). */
function parseUtc(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value.trim());
  if (!match)
    throw badRequest(`A time-range must be a UTC date-time such as 20260101T000000Z, not '${value}'.`);
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}

function timeRangeOf(element: XmlElement): TimeRange | undefined {
  const range = childOf(element, NS.caldav, 'time-range');
  if (!range) return undefined;
  const result = {
    start: parseUtc(range.attributes.start, Number.NEGATIVE_INFINITY),
    end: parseUtc(range.attributes.end, Number.POSITIVE_INFINITY),
  };
  if (range.attributes.start === undefined && range.attributes.end === undefined)
    throw badRequest('A time-range needs a start or an end.');
  return result;
}

function propFilterOf(element: XmlElement): PropFilter {
  const textMatch = childOf(element, NS.caldav, 'text-match');
  return {
    name: (element.attributes.name ?? '').toUpperCase(),
    isNotDefined: childOf(element, NS.caldav, 'is-not-defined') !== undefined,
    timeRange: timeRangeOf(element),
    textMatch: textMatch && {
      text: textMatch.text,
      negate: textMatch.attributes['negate-condition'] === 'yes',
      caseSensitive: textMatch.attributes.collation === 'i;octet',
    },
  };
}

function compFilterOf(element: XmlElement): CompFilter {
  return {
    name: (element.attributes.name ?? '').toUpperCase(),
    isNotDefined: childOf(element, NS.caldav, 'is-not-defined') !== undefined,
    timeRange: timeRangeOf(element),
    props: childrenOf(element, NS.caldav, 'prop-filter').map(propFilterOf),
    comps: childrenOf(element, NS.caldav, 'comp-filter').map(compFilterOf),
  };
}

/** The C:filter of a calendar-query: its one comp-filter, which must name VCALENDAR. */
export function parseFilter(filter: XmlElement | undefined): CompFilter | null {
  if (!filter) return null;
  const [top, ...more] = childrenOf(filter, NS.caldav, 'comp-filter');
  if (!top || more.length > 0 || top.attributes.name?.toUpperCase() !== 'VCALENDAR')
    throw badRequest('A calendar-query filter holds one comp-filter named VCALENDAR.');
  return compFilterOf(top);
}

/** Whether every task matches without reading one: VCALENDAR, or VCALENDAR > VTODO, with nothing more. */
export function matchesEveryTask(filter: CompFilter | null): boolean {
  if (!filter) return true;
  if (filter.isNotDefined || filter.timeRange || filter.props.length > 0) return false;
  return filter.comps.every(
    (comp) =>
      comp.name === 'VTODO' &&
      !comp.isNotDefined &&
      !comp.timeRange &&
      comp.props.length === 0 &&
      comp.comps.length === 0,
  );
}

type Component = InstanceType<(typeof ICAL)['Component']>;

const instant = (component: Component, name: string): number | undefined => {
  const value = component.getFirstPropertyValue(name);
  return value instanceof ICAL.Time ? value.toUnixTime() * 1000 : undefined;
};

/** RFC 4791 §9.9: does the VTODO overlap the range? */
function todoOverlaps(todo: Component, { start, end }: TimeRange): boolean {
  const dtstart = instant(todo, 'dtstart');
  const due = instant(todo, 'due');
  const duration = todo.getFirstPropertyValue('duration');
  const completed = instant(todo, 'completed');
  const created = instant(todo, 'created');
  if (dtstart !== undefined && duration instanceof ICAL.Duration) {
    const until = dtstart + duration.toSeconds() * 1000;
    return start <= until && (end > dtstart || end >= until);
  }
  if (dtstart !== undefined && due !== undefined)
    return (start < due || start <= dtstart) && (end > dtstart || end >= due);
  if (dtstart !== undefined) return start <= dtstart && end > dtstart;
  if (due !== undefined) return start < due && end >= due;
  if (completed !== undefined && created !== undefined)
    return (start <= created || start <= completed) && (end >= created || end >= completed);
  if (completed !== undefined) return start <= completed && end >= completed;
  if (created !== undefined) return end > created;
  return true;
}

function propMatches(component: Component, filter: PropFilter): boolean {
  const properties = component.getAllProperties(filter.name.toLowerCase());
  if (filter.isNotDefined) return properties.length === 0;
  if (properties.length === 0) return false;
  if (filter.timeRange) {
    const { start, end } = filter.timeRange;
    const inRange = properties.some((property) => {
      const value = property.getFirstValue();
      if (!(value instanceof ICAL.Time)) return false;
      const at = value.toUnixTime() * 1000;
      return at >= start && at < end;
    });
    if (!inRange) return false;
  }
  if (filter.textMatch) {
    const { text, negate, caseSensitive } = filter.textMatch;
    const fold = (value: string) => (caseSensitive ? value : value.toLowerCase());
    const found = properties.some((property) =>
      property.getValues().some((value) => fold(String(value)).includes(fold(text))),
    );
    if (found === negate) return false;
  }
  return true;
}

function componentMatches(component: Component, filter: CompFilter): boolean {
  if (filter.timeRange && component.name === 'vtodo' && !todoOverlaps(component, filter.timeRange))
    return false;
  if (!filter.props.every((prop) => propMatches(component, prop))) return false;
  return filter.comps.every((sub) => {
    const found = component.getAllSubcomponents(sub.name.toLowerCase());
    if (sub.isNotDefined) return found.length === 0;
    return found.some((child) => componentMatches(child, sub));
  });
}

/** Whether the iCalendar object matches the filter; text that cannot be read matches nothing. */
export function matchesFilter(ics: string, filter: CompFilter): boolean {
  let calendar: Component;
  try {
    calendar = new ICAL.Component(ICAL.parse(ics));
  } catch {
    return false;
  }
  if (filter.isNotDefined) return false;
  return componentMatches(calendar, filter);
}
