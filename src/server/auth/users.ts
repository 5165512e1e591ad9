import type { PublicUser } from '../../common/auth';
import type { UserRow } from '../db/schema';
import { toBool, toIso } from '../db/values';

/** The only shape of a user that leaves the server: never a hash. */
export function toPublicUser(row: UserRow): PublicUser {
  return {
    id: row.id,
    username: row.username,
    firstName: row.first_name,
    email: row.email,
    isAdmin: toBool(row.is_admin),
    isSuspended: toBool(row.is_suspended),
    createdAt: toIso(row.created_at),
    twoFactorEnabled: toBool(row.two_factor_enabled),
    timeZone: row.time_zone ?? null,
  };
}
