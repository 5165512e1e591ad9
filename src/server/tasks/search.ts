import { sql } from 'kysely';

/**
 * Search folds text the same way on both sides: lower case, accents removed ('Café' -> 'cafe'), so
 * every word of a query is a plain substring test. Neither SQLite nor PostgreSQL (without the
 * unaccent extension) folds accents, so the application stores the folded text (`search_text`).
 */
export const foldForSearch = (text: string): string =>
  text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/** What a task's `search_text` holds: its title, description and notes, folded. */
export const taskSearchText = (task: {
  title: string;
  description: string | null;
  notes: string | null;
}): string => foldForSearch([task.title, task.description, task.notes].filter(Boolean).join('\n'));

/** The query's words, folded; none for an empty or blank query. */
export const searchWords = (query: string | undefined): string[] =>
  query ? foldForSearch(query).split(/\s+/).filter(Boolean) : [];

/** `column LIKE '%word%'` with the word's own % _ and \ taken literally, on both dialects. */
export const containsWord = (column: string, word: string) =>
  sql<boolean>`${sql.ref(column)} like ${`%${word.replace(/[\\%_]/g, (m) => `\\${m}`)}%`} escape '\\'`;
