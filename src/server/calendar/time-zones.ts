import { tzlib_get_ical_block } from 'timezones-ical-library';

/**
 * The VTIMEZONE component that defines `zone` (RFC 5545 3.2.19: every TZID a feed names needs
 * one), from timezones-ical-library's rules built from the IANA database (decision 043). The
 * library names some zones by their canonical alias ('UTC' is 'Etc/UTC'); the block is given the
 * name the events use. Null for a zone it does not know: the caller writes that event in UTC.
 */
export function vtimezone(zone: string): string | null {
  const block = tzlib_get_ical_block(zone);
  const text = Array.isArray(block) ? block[0] : '';
  if (!text?.startsWith('BEGIN:VTIMEZONE')) return null;
  return text.replace(/^TZID:.*$/m, `TZID:${zone}`).replace(/^X-LIC-LOCATION:.*$/m, `X-LIC-LOCATION:${zone}`);
}
