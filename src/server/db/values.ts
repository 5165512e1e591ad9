/** Turns the dialects' different column values into the one shape the app uses. */

export const toBool = (value: boolean | number): boolean => value === true || value === 1;

export const toIso = (value: Date | string): string =>
  value instanceof Date ? value.toISOString() : new Date(value).toISOString();

export const toIsoOrNull = (value: Date | string | null): string | null =>
  value === null ? null : toIso(value);

export const toNumber = (value: number | string): number =>
  typeof value === 'number' ? value : Number(value);

/** The current time as the ISO string every timestamp column is written with. */
export const nowIso = (): string => new Date().toISOString();
