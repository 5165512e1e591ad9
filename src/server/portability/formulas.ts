/**
 * CSV injection (OWASP): a spreadsheet runs a cell that starts with one of these characters. The
 * export's `escape_formulas` (csv-stringify) puts a `'` before such a cell, which spreadsheets show
 * as text; the import of Tasklane's CSV takes that `'` off again. The list is csv-stringify's.
 */
const FORMULA_START = '=+\\-@\\t\\r\\uFF1D\\uFF0B\\uFF0D\\uFF20';

/** A cell the import reads as escaped: one or more `'`, then a formula character. */
const ESCAPED = new RegExp(`^'+[${FORMULA_START}]`);

/**
 * For the export, before `escape_formulas`: a cell that already looks escaped ('=x typed by hand)
 * gets one more `'`, so the import's single strip gives back what was typed.
 */
export const keepLeadingQuote = (cell: string): string => (ESCAPED.test(cell) ? `'${cell}` : cell);

/** For the import: the `'` the export added taken off; any other leading `'` is the user's and stays. */
export const unescapeFormula = (cell: string): string => (ESCAPED.test(cell) ? cell.slice(1) : cell);
