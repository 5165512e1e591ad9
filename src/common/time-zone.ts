/**
 * IANA time zones (issue 22), checked with Intl alone: small enough for the login screen's bundle
 * (src/common/auth.ts validates PATCH /api/auth/me with it), unlike ./due, which brings zone math.
 */

/**
 * The zone of a due time stored without one (rows from before issue 22). A person's own zone is
 * never missing: the server's default stands in for it (issue 28, config.defaultTimeZone).
 */
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
 * Whether two zone names are the same zone to Intl ('Asia/Kolkata' and the 'Asia/Calcutta' a
 * browser reports; 'europe/berlin' and 'Europe/Berlin'): what decides is the zone, not its spelling.
 */
export function sameTimeZone(a: string, b: string): boolean {
  if (a === b) return true;
  if (!isTimeZone(a) || !isTimeZone(b)) return false;
  return resolved(a) === resolved(b);
}

// A card compares its due time's zone at every render: each name is resolved once.
const resolvedNames = new Map<string, string>();
function resolved(zone: string): string {
  let name = resolvedNames.get(zone);
  if (name === undefined) {
    name = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    resolvedNames.set(zone, name);
  }
  return name;
}
