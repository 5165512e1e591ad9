/**
 * IANA time zones (issue 22), checked with Intl alone: small enough for the login screen's bundle
 * (src/common/auth.ts validates PATCH /api/auth/me with it), unlike ./due, which brings zone math.
 */

/** The zone a user without one set is read in. */
export const DEFAULT_TIME_ZONE = 'UTC';

/** Whether `zone` is an IANA time zone this runtime knows ('Europe/Berlin', 'UTC'). */
export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 100) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The zone's canonical IANA name, as Intl resolves it: 'europe/berlin' is 'Europe/Berlin', 'utc'
 * is 'UTC'. Stored so, a zone reads the same to every library (date-fns, the calendar feed's
 * VTIMEZONEs), which may match names exactly. Only for a zone isTimeZone accepts.
 */
export function canonicalTimeZone(zone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
}
