/** Turns the dialects' different column values into the one shape the app uses. */

export const toBool = (value: boolean | number): boolean => value === true || value === 1;

/** What nowIso() writes: returned as is, because a parse per timestamp dominated listing 1,000 tasks. */
const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const toIso = (value: Date | string): string =>
  value instanceof Date
    ? value.toISOString()
    : CANONICAL_ISO.test(value)
      ? value
      : new Date(value).toISOString();

export const toIsoOrNull = (value: Date | string | null): string | null =>
  value === null ? null : toIso(value);

export const toNumber = (value: number | string): number =>
  typeof value === 'number' ? value : Number(value);

/** The current time as the ISO string every timestamp column is written with. */
export const nowIso = (): string => new Date().toISOString();

/** A unique index refused the row: SQLite and PostgreSQL say so differently. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}
