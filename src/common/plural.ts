const rules = new Intl.PluralRules('en-US');

/**
 * The word for a count as people write it: plural(1, 'File', 'Files') is 'File', 2 gives 'Files'.
 * The spec's 'N File(s)' is notation for this, not text to print (issue 10).
 */
export function plural(count: number, one: string, other: string): string {
  return rules.select(count) === 'one' ? one : other;
}

/** The count and its word: counted(3, 'file', 'files') is '3 files'. */
export const counted = (count: number, one: string, other: string): string =>
  `${count} ${plural(count, one, other)}`;
