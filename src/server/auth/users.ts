import type { PublicUser } from '../../common/auth';
import { isTimeZone } from '../../common/time-zone';
import type { UserRow } from '../db/schema';
import { toBool, toIso } from '../db/values';

/**
 * The zone a user's days and times are read in (issue 28): the one they or their browser set, else
 * the server's default (config.defaultTimeZone). Every account has one.
 */
export const userTimeZone = (zone: string | null, defaultTimeZone: string): string =>
  zone && isTimeZone(zone) ? zone : defaultTimeZone;

/** The only shape of a user that leaves the server: never a hash; always a time zone. */
export function toPublicUser(row: UserRow, defaultTimeZone: string): PublicUser {
  return {
    id: row.id,
    username: row.username,
    firstName: row.first_name,
    email: row.email,
    isAdmin: toBool(row.is_admin),
    isSuspended: toBool(row.is_suspended),
    createdAt: toIso(row.created_at),
    twoFactorEnabled: toBool(row.two_factor_enabled),
    timeZone: userTimeZone(row.time_zone, defaultTimeZone),
    timeZoneChosen: toBool(row.time_zone_chosen),
  };
}
