import { tzlib_get_ical_block, tzlib_get_timezones } from 'timezones-ical-library';
import { isTimeZone } from './time-zone';

/**
 * Time zones under the IANA (tzdb) names people know (issue 28, decision 046). `Intl` answers some
 * zones by ICU's old names ('Asia/Kolkata' resolves to 'Asia/Calcutta', 'Europe/Kyiv' to
 * 'Europe/Kiev'), and so does a browser reporting its own zone. The names and links come from
 * timezones-ical-library, released with each tzdb release (decision 043). Its VTIMEZONE data makes
 * it large: the server and the lazily loaded time-zone dialog use this module, not the login screen.
 */

let spellings: Map<string, string> | undefined;
/** Every tzdb name, zones and links, by its lower-case form. */
function tzdbSpellings(): Map<string, string> {
  spellings ??= new Map(tzdbNames().map((name) => [name.toLowerCase(), name]));
  return spellings;
}
function tzdbNames(): string[] {
  const names = tzlib_get_timezones();
  return Array.isArray(names) ? names : [];
}

/** The zone tzdb defines `name` as: itself for a zone, the zone a link points to; null unknown. */
function tzdbZone(name: string): string | null {
  const block = tzlib_get_ical_block(name);
  const tzid = Array.isArray(block) ? block[1] : undefined;
  return tzid?.startsWith('TZID=') ? tzid.slice('TZID='.length) : null;
}

const intlName = (zone: string) =>
  new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;

/**
 * The IANA name of a zone isTimeZone accepts, as tzdb spells it ('europe/berlin' is
 * 'Europe/Berlin'). A name the person gives is kept, a link too ('Europe/Amsterdam' stays, though
 * tzdb links it to Brussels); only ICU's old spelling of a zone gives way to the zone's name: a
 * tzdb link whose zone Intl itself resolves back to it ('Asia/Calcutta' is 'Asia/Kolkata'). 'UTC'
 * stays 'UTC' (not tzdb's 'Etc/UTC').
 */
export function ianaTimeZone(zone: string): string {
  const spelled = tzdbSpellings().get(zone.toLowerCase()) ?? intlName(zone);
  // A name Intl resolves to another is not ICU's own spelling of anything: it is the person's.
  if (intlName(spelled) !== spelled) return spelled;
  const target = tzdbZone(spelled);
  if (!target || target === spelled || target.startsWith('Etc/') || !isTimeZone(target)) return spelled;
  return intlName(target) === spelled ? target : spelled;
}

let offered: string[] | undefined;
/** The zones a person may pick from (Intl's list, under their IANA names), UTC first. */
export function ianaTimeZones(): string[] {
  if (!offered) {
    const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
    const named = zones.map(ianaTimeZone).filter((zone) => zone !== 'UTC');
    offered = ['UTC', ...[...new Set(named)].sort()];
  }
  return offered;
}
