import { createHash } from 'node:crypto';
import type ICALModule from 'ical.js';
import { CALDAV_MESSAGES, priorityFromIcal, priorityToIcal } from '../../common/caldav';
import { instantInZone, isTimeZone } from '../../common/due';
import { LABEL_LIMITS } from '../../common/labels';
import { REMINDER_LIMITS } from '../../common/notifications';
import { normalizeRecurrence } from '../../common/recurrence';
import { sameTimeZone } from '../../common/time-zone';
import { vtimezone } from '../calendar/time-zones';
import { badRequest } from '../http/errors';
import { keptText, originalsOf, serialise } from './ical-text';
import { ICAL } from './libraries';
import { DavPreconditionError, type TodoFields, type TodoRender } from './types';

/**
 * One iCalendar object ↔ one task (issue 30, 'What maps to what'). Pure: ical.js and the clock
 * the caller passes in `updatedAt`. The client's text is kept as it was sent; when the task changes
 * in the app, only the mapped properties of its VTODO are rewritten, so everything else a client
 * sent (X- properties, parameters, DTSTART, alarms we cannot show, time zones, overrides of a
 * recurrence) goes back to it unchanged.
 */

type Component = ICALModule.Component;
type Property = ICALModule.Property;
type Time = ICALModule.Time;
type Reminder = TodoFields['reminders'][number];
type Due = Pick<TodoFields, 'dueDate' | 'dueTime' | 'dueTimeZone'>;

const PRODID = '-//Tasklane//Tasklane//EN';

/** The strong ETag of a rendered text: `"` + sha256 base64url, first 27 characters, + `"`. */
export function etagOf(text: string): string {
  return `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
}

/**
 * Reads a client's iCalendar object: the task's fields and the text to keep (the client's own,
 * lines ending CRLF). Throws 400 (not iCalendar, not one VTODO, no UID, a mapped value that is not
 * valid) or 403 supported-calendar-component (events or journals).
 */
export function parseCalendarObject(text: string): { fields: TodoFields; ical: string } {
  const calendar = readCalendar(text);
  const todo = masterTodo(calendar);
  return { fields: fieldsOf(todo, calendar), ical: keptText(text) };
}

/**
 * The iCalendar text of a task: the stored client object with its mapped properties brought up to
 * date, or a fresh object when there is none. The same task gives the same text (DTSTAMP and
 * LAST-MODIFIED are its updatedAt), so the ETag changes only when the task does.
 */
export function renderCalendarObject(task: TodoRender, stored: string | null): string {
  const calendar = stored === null ? null : storedCalendar(stored);
  if (calendar && stored !== null) {
    const originals = originalsOf(calendar, stored);
    update(calendar, masterTodo(calendar), task);
    return serialise(calendar, originals);
  }
  return serialise(fresh(task));
}

// ---- Reading -------------------------------------------------------------------------------

function readCalendar(text: string): Component {
  const body = typeof text === 'string' ? text.replace(/^\uFEFF/, '') : '';
  const firstLine = body.trimStart().split(/\r\n|\r|\n/, 1)[0] ?? '';
  if (firstLine.trim().toUpperCase() !== 'BEGIN:VCALENDAR') {
    throw badRequest(CALDAV_MESSAGES.notCalendar);
  }
  if (tooDeep(body)) throw badRequest(`${CALDAV_MESSAGES.notCalendar}: components nested too deep`);
  let jcal: unknown;
  try {
    jcal = ICAL.parse(body);
  } catch (error) {
    throw badRequest(`${CALDAV_MESSAGES.notCalendar}: ${(error as Error).message}`);
  }
  // Several top-level components (two VCALENDARs, or text after END:VCALENDAR) come as a list.
  if (!Array.isArray(jcal) || jcal[0] !== 'vcalendar') throw badRequest(CALDAV_MESSAGES.notCalendar);
  return new ICAL.Component(jcal);
}

/**
 * Real objects nest three deep (VCALENDAR, VTODO, VALARM); thousands of nested components would
 * overflow the stack of whatever walks them.
 */
const MAX_DEPTH = 10;
function tooDeep(body: string): boolean {
  let depth = 0;
  for (const [, boundary] of body.matchAll(/^(BEGIN|END):/gim)) {
    depth += boundary?.toUpperCase() === 'BEGIN' ? 1 : -1;
    if (depth > MAX_DEPTH) return true;
  }
  return false;
}

/** A stored text was accepted once, so it parses; should it not, the task is written afresh. */
function storedCalendar(stored: string): Component | null {
  try {
    const calendar = readCalendar(stored);
    masterTodo(calendar);
    return calendar;
  } catch {
    return null;
  }
}

/**
 * The VTODO that is the task: the only one, or the master of a recurrence whose overrides
 * (RECURRENCE-ID, same UID) stay as content.
 */
function masterTodo(calendar: Component): Component {
  const components = calendar.getAllSubcomponents();
  if (components.some((c) => c.name === 'vevent' || c.name === 'vjournal')) {
    throw new DavPreconditionError(403, 'supported-calendar-component', CALDAV_MESSAGES.onlyTodos);
  }
  const todos = components.filter((c) => c.name === 'vtodo');
  if (todos.length === 0) throw badRequest(CALDAV_MESSAGES.oneTodo);
  const uids = todos.map(uidOf);
  if (uids.some((uid) => !uid)) throw badRequest(CALDAV_MESSAGES.noUid);
  if (new Set(uids).size > 1) throw badRequest(CALDAV_MESSAGES.oneTodo);
  const masters = todos.filter((todo) => !todo.hasProperty('recurrence-id'));
  if (masters.length !== 1) throw badRequest(CALDAV_MESSAGES.oneTodo);
  return masters[0] as Component;
}

function uidOf(todo: Component): string {
  return text(todo.getFirstProperty('uid')) ?? '';
}

function fieldsOf(todo: Component, calendar: Component): TodoFields {
  const completed = isCompleted(todo);
  const completedProperty = todo.getFirstProperty('completed');
  return {
    uid: uidOf(todo),
    title: text(todo.getFirstProperty('summary')) ?? '',
    description: text(todo.getFirstProperty('description')) || null,
    ...dueOf(todo.getFirstProperty('due'), calendar),
    recurrence: recurrenceOf(todo),
    completed,
    completedAt: completed && completedProperty ? instantOf(completedProperty, calendar).toISOString() : null,
    priority: priorityOf(todo),
    categories: categoriesOf(todo).labels,
    parentUid: text(parentProperty(todo)) || null,
    reminders: remindersOf(todo).map(([, reminder]) => reminder),
    sortOrder: sortOrderOf(todo),
  };
}

/** A property's value as ical.js reads it; a value it cannot read is the client's error: 400. */
function readValue(property: Property): unknown {
  try {
    return property.getFirstValue();
  } catch {
    throw badRequest(`The VTODO's ${property.name.toUpperCase()} is not a valid value`);
  }
}

function text(property: Property | null): string | null {
  if (!property) return null;
  const value = readValue(property);
  return value === null || value === undefined ? null : String(value).trim();
}

function timeOf(property: Property): Time {
  const value = readValue(property);
  if (!(value instanceof ICAL.Time)) {
    throw badRequest(`The VTODO's ${property.name.toUpperCase()} is not a date or a date-time`);
  }
  return value;
}

const pad = (n: number) => String(n).padStart(2, '0');
const dateOf = (time: Time) => `${time.year}-${pad(time.month)}-${pad(time.day)}`;
const clockOf = (time: Time) => `${pad(time.hour)}:${pad(time.minute)}`;
const NO_DUE: Due = { dueDate: null, dueTime: null, dueTimeZone: null };

/**
 * DUE in Tasklane's terms: a date alone; a UTC time; the wall clock in an IANA zone as the client
 * named it; a zone only its own VTIMEZONE defines (Outlook's 'W. Europe Standard Time') as the
 * same instant in UTC; a floating time (or a TZID nothing defines) without a zone. Seconds drop.
 */
function dueOf(property: Property | null, calendar: Component): Due {
  if (!property) return NO_DUE;
  const time = timeOf(property);
  if (time.isDate) return { dueDate: dateOf(time), dueTime: null, dueTimeZone: null };
  const tzid = property.getFirstParameter('tzid');
  if (tzid && knownZone(tzid)) return { dueDate: dateOf(time), dueTime: clockOf(time), dueTimeZone: tzid };
  if (tzid && usableZone(calendar, tzid)) {
    const utc = time.convertToZone(ICAL.Timezone.utcTimezone);
    return { dueDate: dateOf(utc), dueTime: clockOf(utc), dueTimeZone: 'UTC' };
  }
  const utc = !tzid && time.zone === ICAL.Timezone.utcTimezone;
  return { dueDate: dateOf(time), dueTime: clockOf(time), dueTimeZone: utc ? 'UTC' : null };
}

// Asking Intl whether a name is a zone costs a quarter of a millisecond, and a first sync reads and
// writes thousands of tasks in a handful of zones: each name is asked once (up to a bound, as the
// names come from clients).
const zoneNames = new Map<string, boolean>();
function knownZone(zone: string): boolean {
  let known = zoneNames.get(zone);
  if (known === undefined) {
    known = isTimeZone(zone);
    if (zoneNames.size < 1000) zoneNames.set(zone, known);
  }
  return known;
}

function zoneOf(calendar: Component, tzid: string): Component | undefined {
  return calendar
    .getAllSubcomponents('vtimezone')
    .find((zone) => zone.getFirstPropertyValue('tzid') === tzid);
}

const definedZone = (calendar: Component, tzid: string) => zoneOf(calendar, tzid) !== undefined;

/**
 * Whether a client's own VTIMEZONE (a zone IANA does not name) can be used to find an instant.
 * ical.js expands a zone's rules from their start to the time asked, so a rule a real zone never
 * has (FREQ=SECONDLY since 1601, a day that never comes) would hold the server for minutes: only
 * the yearly rules of real zones are followed, in a few observances. Another zone is as if
 * absent: the time is read as the wall clock it says.
 */
function usableZone(calendar: Component, tzid: string): boolean {
  const observances = zoneOf(calendar, tzid)?.getAllSubcomponents() ?? [];
  if (observances.length === 0 || observances.length > 12) return false;
  return observances.every((observance) => observance.getAllProperties('rrule').every(isZoneRule));
}

/** The parts of a real zone's yearly rule, each with one value ('BYMONTH=10;BYDAY=-1SU'). */
const ZONE_RULE_PARTS: Record<string, RegExp> = {
  BYMONTH: /^([1-9]|1[0-2])$/,
  BYDAY: /^([+-]?[1-5])?(MO|TU|WE|TH|FR|SA|SU)$/,
  BYMONTHDAY: /^-?([1-9]|1\d|2[0-8])$/,
};

function isZoneRule(property: Property): boolean {
  let rule: unknown;
  try {
    rule = property.getFirstValue();
  } catch {
    return false;
  }
  if (!(rule instanceof ICAL.Recur) || rule.freq !== 'YEARLY' || rule.interval !== 1) return false;
  return Object.entries(rule.parts).every(([name, values]) => {
    const allowed = ZONE_RULE_PARTS[name];
    const list = Array.isArray(values) ? values : [values];
    // BYMONTHDAY=8,9,…,14;BYDAY=SU is how some write 'the second Sunday'.
    return (
      allowed !== undefined &&
      (list.length === 1 || name === 'BYMONTHDAY') &&
      list.every((v) => allowed.test(String(v)))
    );
  });
}

/** The instant a date-time names (a date: its midnight in UTC; floating: read as UTC). */
function instantOf(property: Property, calendar: Component): Date {
  const time = timeOf(property);
  const tzid = property.getFirstParameter('tzid');
  if (tzid && !time.isDate && knownZone(tzid)) {
    const at = instantInZone(dateOf(time), clockOf(time), tzid);
    if (at) return new Date(at.getTime() + time.second * 1000);
  }
  const utc = tzid && usableZone(calendar, tzid) ? time.convertToZone(ICAL.Timezone.utcTimezone) : time;
  return new Date(Date.UTC(utc.year, utc.month - 1, utc.day, utc.hour, utc.minute, utc.second));
}

/**
 * RRULE as the app writes a recurrence (normalizeRecurrence), when the app can hold it: a rule the
 * app does not repeat by (COUNT, HOURLY) or one without a DUE to repeat is content, and stays.
 */
function recurrenceOf(todo: Component): string | null {
  const property = todo.getFirstProperty('rrule');
  if (!property) return null;
  const value = readValue(property);
  if (!(value instanceof ICAL.Recur) || !value.freq) {
    throw badRequest("The VTODO's RRULE is not a valid recurrence rule");
  }
  if (!todo.hasProperty('due')) return null;
  return appRule(value.toString());
}

// normalizeRecurrence probes the rule for thirty years of dates (a dozen milliseconds for a weekly
// one); clients use few rules, and a sync reads the same ones again and again: each is checked once.
const appRules = new Map<string, string | null>();
function appRule(rule: string): string | null {
  let normal = appRules.get(rule);
  if (normal === undefined) {
    const parsed = normalizeRecurrence(rule);
    normal = parsed.ok ? parsed.rule : null;
    if (appRules.size < 1000) appRules.set(rule, normal);
  }
  return normal;
}

/**
 * STATUS:COMPLETED, or a COMPLETED stamp without a STATUS that says otherwise (NEEDS-ACTION is the
 * issue's way to reopen, whatever stamp a client left behind).
 */
function isCompleted(todo: Component): boolean {
  const status = (text(todo.getFirstProperty('status')) ?? '').toUpperCase();
  if (status === 'COMPLETED') return true;
  if (status === 'NEEDS-ACTION') return false;
  return todo.hasProperty('completed');
}

function priorityOf(todo: Component): TodoFields['priority'] {
  const property = todo.getFirstProperty('priority');
  return priorityFromIcal(property ? Number(readValue(property)) : null);
}

/**
 * CATEGORIES, every value of every such property, trimmed, without repeats in another case: the
 * ones a task can hold as labels (LABEL_LIMITS: 20, of at most 50 characters), and the others,
 * which are content and are written again with whatever labels the task has.
 */
function categoriesOf(todo: Component): { labels: string[]; others: string[] } {
  const seen = new Set<string>();
  const labels: string[] = [];
  const others: string[] = [];
  for (const property of todo.getAllProperties('categories')) {
    for (const value of property.getValues()) {
      const name = String(value ?? '').trim();
      const key = name.toLowerCase();
      if (!name || seen.has(key)) continue;
      seen.add(key);
      const fits = labels.length < LABEL_LIMITS.perTask && name.length <= LABEL_LIMITS.nameMax;
      (fits ? labels : others).push(name);
    }
  }
  return { labels, others };
}

/** RELATED-TO;RELTYPE=PARENT, or without RELTYPE (RFC 5545: PARENT is the default). */
function parentProperty(todo: Component): Property | null {
  return (
    todo.getAllProperties('related-to').find((property) => {
      const reltype = property.getFirstParameter('reltype');
      return !reltype || reltype.toUpperCase() === 'PARENT';
    }) ?? null
  );
}

/**
 * The VALARMs that are the task's reminders, with what each says: the first ten (a task's most,
 * REMINDER_LIMITS) that Tasklane can show. Any other alarm is content and stays as sent, so the
 * same alarms are reminders when a client's object is read and when it is written again.
 */
function remindersOf(todo: Component): Array<[Component, Reminder]> {
  const due = todo.getFirstProperty('due');
  const timed = due !== null && !timeOf(due).isDate;
  const found: Array<[Component, Reminder]> = [];
  for (const alarm of todo.getAllSubcomponents('valarm')) {
    const reminder = reminderOf(alarm, timed);
    if (reminder) found.push([alarm, reminder]);
    if (found.length === REMINDER_LIMITS.perTask) break;
  }
  return found;
}

/**
 * A VALARM Tasklane can show: a TRIGGER relative to a DUE with a time (RELATED=END) at or up to
 * four weeks before it, in whole minutes, or at a UTC instant. Anything else (relative to DTSTART,
 * the default; after DUE; to a date alone) is content, as is an alarm whose trigger ical.js cannot
 * read.
 */
function reminderOf(alarm: Component, timedDue: boolean): Reminder | null {
  const trigger = alarm.getFirstProperty('trigger');
  if (!trigger) return null;
  let value: unknown;
  try {
    value = trigger.getFirstValue();
  } catch {
    return null;
  }
  if (value instanceof ICAL.Duration) {
    if (!timedDue || (trigger.getFirstParameter('related') ?? 'START').toUpperCase() !== 'END') return null;
    const seconds = value.toSeconds();
    if (seconds > 0 || seconds % 60 !== 0 || -seconds / 60 > REMINDER_LIMITS.relativeMinutesMax) return null;
    return { relativeMinutes: seconds === 0 ? 0 : -seconds / 60 };
  }
  if (value instanceof ICAL.Time && !value.isDate && value.zone === ICAL.Timezone.utcTimezone) {
    return { at: new Date(value.toUnixTime() * 1000).toISOString() };
  }
  return null;
}

function sortOrderOf(todo: Component): number | null {
  const value = text(todo.getFirstProperty('x-apple-sort-order'));
  if (!value || !/^[+-]?\d+$/.test(value)) return null;
  const order = Number(value);
  return Number.isSafeInteger(order) ? order : null;
}

// ---- Writing -------------------------------------------------------------------------------

/** A new object for a task made in the app (RFC 5545's required and usual properties). */
function fresh(task: TodoRender): Component {
  const calendar = new ICAL.Component(['vcalendar', [], []]);
  calendar.addPropertyWithValue('version', '2.0');
  calendar.addPropertyWithValue('prodid', PRODID);
  calendar.addPropertyWithValue('calscale', 'GREGORIAN');
  const todo = new ICAL.Component('vtodo');
  calendar.addSubcomponent(todo);
  todo.addPropertyWithValue('uid', task.uid);
  todo.addProperty(utcProperty('dtstamp', task.updatedAt));
  todo.addProperty(utcProperty('created', task.createdAt));
  todo.addProperty(utcProperty('last-modified', task.updatedAt));
  todo.addPropertyWithValue('status', task.completed ? 'COMPLETED' : 'NEEDS-ACTION');
  update(calendar, todo, task);
  todo.addPropertyWithValue('url', task.url);
  return calendar;
}

/** Brings the mapped properties of `todo` to the task's values; the rest stays as it is. */
function update(calendar: Component, todo: Component, task: TodoRender): void {
  if (uidOf(todo) !== task.uid) {
    for (const each of calendar.getAllSubcomponents('vtodo')) each.updatePropertyWithValue('uid', task.uid);
  }
  setProperty(todo, 'dtstamp', utcProperty('dtstamp', task.updatedAt));
  setProperty(todo, 'last-modified', utcProperty('last-modified', task.updatedAt));
  setText(todo, 'summary', task.title);
  // What the alarms and RRULE said before DUE changes (an alarm relative to a DUE that loses its
  // time was a reminder, and goes with it). A rule written as the task has it is not checked again.
  const reminders = remindersOf(todo);
  const rule = todo.getFirstProperty('rrule');
  const recurrence =
    rule && ruleKey(String(rule.getFirstValue())) === ruleKey(task.recurrence)
      ? task.recurrence
      : recurrenceOf(todo);
  if (setText(todo, 'description', task.description)) {
    // Thunderbird's HTML copy of the description would show the old text in its place.
    todo.removeAllProperties('x-alt-desc');
  }
  updateDue(calendar, todo, task);
  if (recurrence !== task.recurrence) writeRecurrence(todo, task.recurrence, task.dueTime === null);
  updateCompletion(calendar, todo, task);
  if (priorityOf(todo) !== task.priority) {
    todo.removeAllProperties('priority');
    if (task.priority !== 4) todo.addPropertyWithValue('priority', priorityToIcal(task.priority));
  }
  const categories = categoriesOf(todo);
  if (!sameNames(categories.labels, task.categories)) {
    const labels = new Set(task.categories.map((name) => name.toLowerCase()));
    const names = [
      ...task.categories,
      ...categories.others.filter((name) => !labels.has(name.toLowerCase())),
    ];
    todo.removeAllProperties('categories');
    if (names.length > 0) {
      const property = new ICAL.Property('categories');
      property.setValues(names);
      todo.addProperty(property);
    }
  }
  updateParent(todo, task.parentUid);
  updateReminders(todo, task, reminders);
  if (sortOrderOf(todo) !== task.sortOrder) {
    todo.removeAllProperties('x-apple-sort-order');
    if (task.sortOrder !== null) todo.addPropertyWithValue('x-apple-sort-order', String(task.sortOrder));
  }
}

function utcProperty(name: string, iso: string): Property {
  const property = new ICAL.Property(name);
  property.setValue(ICAL.Time.fromJSDate(new Date(iso), true));
  return property;
}

/** Replaces the property `name` unless it already says the same (then its parameters survive). */
function setProperty(todo: Component, name: string, next: Property | null): void {
  const current = todo.getFirstProperty(name);
  if (current && next && valueText(current) === valueText(next)) return;
  todo.removeAllProperties(name);
  if (next) todo.addProperty(next);
}

/** A property's value and parameters as written, without its name. */
function valueText(property: Property): string {
  return property.toICALString().replace(/^[^;:]*/, '');
}

/**
 * A text property: a changed value keeps the property's parameters (LANGUAGE…). True when it
 * changed.
 */
function setText(todo: Component, name: string, value: string | null): boolean {
  const current = todo.getFirstProperty(name);
  const wanted = value?.trim() ?? '';
  if ((text(current) ?? '') === wanted) return false;
  if (!wanted) todo.removeAllProperties(name);
  else if (current) {
    current.setValue(value as string);
    // An ALTREP (a link to another rendering of the old text) no longer says the same.
    current.removeParameter('altrep');
  } else todo.addPropertyWithValue(name, value as string);
  return true;
}

function sameDue(a: Due, b: Due): boolean {
  return (
    a.dueDate === b.dueDate &&
    a.dueTime === b.dueTime &&
    (a.dueTimeZone === b.dueTimeZone ||
      (a.dueTimeZone !== null && b.dueTimeZone !== null && sameTimeZone(a.dueTimeZone, b.dueTimeZone)))
  );
}

/**
 * DUE, rewritten only when it says something else. A DTSTART that was the old DUE (ours, written
 * for a recurrence, or a client's that mirrors DUE) moves with it; any other DTSTART is the
 * client's and stays. A recurrence needs a DTSTART (RFC 5545 3.8.5.3): one equal to DUE is added.
 */
function updateDue(calendar: Component, todo: Component, task: TodoRender): void {
  const current = todo.getFirstProperty('due');
  if (!sameDue(dueOf(current, calendar), task)) {
    const start = todo.getFirstProperty('dtstart');
    const startFollows = start !== null && current !== null && valueText(start) === valueText(current);
    const next = dueProperty(task);
    todo.removeAllProperties('due');
    // DUE and DURATION must not both be there (RFC 5545 3.6.2): the due date the task has wins.
    if (next) todo.removeAllProperties('duration');
    if (next) todo.addProperty(next);
    if (startFollows && next) setProperty(todo, 'dtstart', renamed(next, 'dtstart'));
  }
  const due = todo.getFirstProperty('due');
  if (!due) return;
  if (task.recurrence && !todo.hasProperty('dtstart')) todo.addProperty(renamed(due, 'dtstart'));
  const tzid = due.getFirstParameter('tzid');
  if (tzid && !definedZone(calendar, tzid)) addTimeZone(calendar, tzid);
}

/** DUE as Tasklane holds it: a date, a UTC time, a zone's wall clock (UTC if no VTIMEZONE), floating. */
function dueProperty(due: Due): Property | null {
  if (!due.dueDate) return null;
  const [year, month, day] = due.dueDate.split('-').map(Number) as [number, number, number];
  const property = new ICAL.Property('due');
  if (!due.dueTime) {
    property.setValue(ICAL.Time.fromData({ year, month, day, isDate: true }));
    return property;
  }
  const [hour, minute] = due.dueTime.split(':').map(Number) as [number, number];
  const zone = due.dueTimeZone;
  if (zone === null) {
    property.setValue(ICAL.Time.fromData({ year, month, day, hour, minute, second: 0 }));
  } else if (zone !== 'UTC' && zoneDefinition(zone) !== null) {
    property.setParameter('tzid', zone);
    property.setValue(ICAL.Time.fromData({ year, month, day, hour, minute, second: 0 }));
  } else {
    const at = zone === 'UTC' ? null : instantInZone(due.dueDate, due.dueTime, zone);
    property.setValue(
      ICAL.Time.fromJSDate(at ?? new Date(Date.UTC(year, month - 1, day, hour, minute)), true),
    );
  }
  return property;
}

function renamed(property: Property, name: string): Property {
  const [, parameters, type, ...values] = property.toJSON() as [string, object, string, ...unknown[]];
  return new ICAL.Property([name, { ...parameters }, type, ...values]);
}

// Building a VTIMEZONE takes about a millisecond and a first sync renders thousands of tasks in a
// handful of zones: each IANA zone's definition is built once (null: none, the time goes in UTC).
const zoneDefinitions = new Map<string, unknown[] | null>();
function zoneDefinition(zone: string): unknown[] | null {
  if (!knownZone(zone)) return null;
  let jcal = zoneDefinitions.get(zone);
  if (jcal === undefined) {
    const block = vtimezone(zone);
    jcal = block ? (ICAL.parse(block) as unknown[]) : null;
    zoneDefinitions.set(zone, jcal);
  }
  return jcal;
}

/** Adds the zone's VTIMEZONE after the object's own ones, before its VTODOs. */
function addTimeZone(calendar: Component, zone: string): void {
  const jcal = zoneDefinition(zone);
  if (!jcal) return;
  const definition = new ICAL.Component(structuredClone(jcal));
  // A copy: ical.js hands out its own list, which removeAllSubcomponents empties.
  const components = [...calendar.getAllSubcomponents()];
  const at = components.findIndex((component) => component.name !== 'vtimezone');
  components.splice(at === -1 ? components.length : at, 0, definition);
  calendar.removeAllSubcomponents();
  for (const component of components) calendar.addSubcomponent(component);
}

/** The RRULE's parts, in any order: 'FREQ=WEEKLY;BYDAY=MO' is 'BYDAY=MO;FREQ=WEEKLY'. */
function ruleKey(rule: string | null): string {
  return rule ? rule.toUpperCase().split(';').filter(Boolean).sort().join(';') : '';
}

/**
 * Replaces the RRULE, the client's included: the task's recurrence is the one now. Repeating a
 * date alone, UNTIL is a date too (RFC 5545 3.3.10: the same kind of value as the start).
 */
function writeRecurrence(todo: Component, recurrence: string | null, onDates: boolean): void {
  todo.removeAllProperties('rrule');
  if (!recurrence) return;
  let rule: ICALModule.Recur;
  try {
    rule = ICAL.Recur.fromString(recurrence);
  } catch {
    return;
  }
  if (!rule.freq) return;
  if (onDates && rule.until && !rule.until.isDate) {
    const { year, month, day } = rule.until;
    rule.until = ICAL.Time.fromData({ year, month, day, isDate: true });
  }
  todo.addPropertyWithValue('rrule', rule);
}

/**
 * Completed: STATUS:COMPLETED with its COMPLETED stamp (and a PERCENT-COMPLETE, if the client
 * keeps one, at 100). Reopened: STATUS:NEEDS-ACTION, no stamp, no PERCENT-COMPLETE of 100.
 */
function updateCompletion(calendar: Component, todo: Component, task: TodoRender): void {
  const status = (text(todo.getFirstProperty('status')) ?? '').toUpperCase();
  const percent = todo.getFirstProperty('percent-complete');
  if (task.completed) {
    if (status !== 'COMPLETED') setProperty(todo, 'status', statusProperty('COMPLETED'));
    const stamp = todo.getFirstProperty('completed');
    const at = task.completedAt ?? task.updatedAt;
    // The same second, however the client wrote it (a TZID, a floating time), is the same stamp.
    const second = (time: number) => Math.floor(time / 1000);
    if (!stamp || second(instantOf(stamp, calendar).getTime()) !== second(Date.parse(at))) {
      setProperty(todo, 'completed', utcProperty('completed', at));
    }
    if (percent && Number(percent.getFirstValue()) !== 100) percent.setValue(100);
    return;
  }
  if (status === 'COMPLETED') setProperty(todo, 'status', statusProperty('NEEDS-ACTION'));
  todo.removeAllProperties('completed');
  if (percent && Number(percent.getFirstValue()) === 100) todo.removeProperty(percent);
}

function statusProperty(value: string): Property {
  const property = new ICAL.Property('status');
  property.setValue(value);
  return property;
}

function sameNames(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  const names = new Set(a);
  return b.every((name) => names.has(name));
}

/** RELATED-TO;RELTYPE=PARENT; CHILD and SIBLING relations are content and stay. */
function updateParent(todo: Component, parentUid: string | null): void {
  const current = parentProperty(todo);
  if ((text(current) || null) === parentUid) return;
  if (current && parentUid) current.setValue(parentUid);
  else if (current) todo.removeProperty(current);
  else if (parentUid) {
    const property = new ICAL.Property('related-to');
    property.setParameter('reltype', 'PARENT');
    property.setValue(parentUid);
    todo.addProperty(property);
  }
}

function sameReminder(a: Reminder, b: Reminder): boolean {
  if ('at' in a && 'at' in b) return Date.parse(a.at) === Date.parse(b.at);
  return 'relativeMinutes' in a && 'relativeMinutes' in b && a.relativeMinutes === b.relativeMinutes;
}

/**
 * A stored alarm that matches a reminder stays as the client wrote it; one that was a reminder the
 * task no longer has is dropped; a reminder left over gets a new DISPLAY alarm. A new reminder
 * relative to DUE needs a DUE with a time (RFC 5545 3.8.6.3; the app asks the same): without one it
 * is not written.
 */
function updateReminders(todo: Component, task: TodoRender, stored: Array<[Component, Reminder]>): void {
  const wanted = [...task.reminders];
  for (const [alarm, reminder] of stored) {
    const index = wanted.findIndex((each) => sameReminder(each, reminder));
    if (index === -1) todo.removeSubcomponent(alarm);
    else wanted.splice(index, 1);
  }
  for (const reminder of wanted) {
    if ('at' in reminder || task.dueTime !== null) todo.addSubcomponent(alarmOf(reminder, task.title));
  }
}

function alarmOf(reminder: Reminder, title: string): Component {
  const alarm = new ICAL.Component('valarm');
  alarm.addPropertyWithValue('action', 'DISPLAY');
  alarm.addPropertyWithValue('description', title.trim() || 'Reminder');
  const trigger = new ICAL.Property('trigger');
  if ('at' in reminder) {
    trigger.resetType('date-time');
    trigger.setValue(ICAL.Time.fromJSDate(new Date(reminder.at), true));
  } else {
    trigger.setParameter('related', 'END');
    trigger.setValue(ICAL.Duration.fromSeconds(-reminder.relativeMinutes * 60));
  }
  alarm.addProperty(trigger);
  return alarm;
}
