import * as chrono from 'chrono-node';
import { localIsoDate } from './dates';

export type QuickAdd = {
  /** The title to save when the date is kept: the text without the date words. */
  title: string;
  /** The due date read from the text, YYYY-MM-DD in local time, or null. */
  dueDate: string | null;
  /** The words that gave the date, as typed (for the chip); null without a date. */
  dateText: string | null;
};

/** A word that links a title to its date ('Report due Friday') and leaves the title with it. */
const LINKING_WORD = /(?:^|\s)(?:due|on|by)$/i;
const TRAILING_PUNCTUATION = /[\s,;:–—-]+$/;

/**
 * Reads a due date out of a one-line task (issue 13): 'Pay rent tomorrow', 'Call Ana next fri',
 * 'Report due 2027-03-01'. Dates are read forward from `now`, as chrono does. A time alone ('at 5')
 * is not a due date. A text that is only a date keeps its words as the title.
 */
export function parseQuickAdd(text: string, now: Date = new Date()): QuickAdd {
  const line = text.trim().replace(/\s+/g, ' ');
  const found = chrono
    .parse(line, now, { forwardDate: true })
    .filter(({ start }) => start.isCertain('day') || start.isCertain('weekday') || start.isCertain('month'));
  // The last date named is the one a person adds at the end: 'Plan March 3 party by Friday'.
  const result = found.at(-1);
  if (!result) return { title: line, dueDate: null, dateText: null };

  let before = line.slice(0, result.index).trimEnd();
  let dateText = result.text;
  const linking = before.match(LINKING_WORD);
  if (linking) {
    const word = linking[0].trim();
    before = before.slice(0, before.length - linking[0].length);
    dateText = `${word} ${dateText}`;
  }
  before = before.replace(TRAILING_PUNCTUATION, '');
  const after = line.slice(result.index + result.text.length).trim();
  const title = [before, after].filter(Boolean).join(' ');
  return { title: title || line, dueDate: localIsoDate(result.start.date()), dateText };
}
