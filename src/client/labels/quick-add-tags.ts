import type { Priority } from '../../common/tasks';

/** A word of quick add that tags the task: `p1`...`p4` or `!1`...`!4`, and `@label`. */
export type QuickTag = { text: string };
export type QuickTags = {
  /** The last priority word, if any. */
  priority: (QuickTag & { value: Priority }) | null;
  /** Each `@name` once (case aside), in the order typed. */
  labels: Array<QuickTag & { name: string }>;
};

const PRIORITY_WORD = /(?:^|\s)((?:[pP]|!)([1-4]))(?=\s|$)/g;
/** `@name`, not an e-mail address ('ana@example.com'): the @ starts a word. */
const LABEL_WORD = /(?:^|\s)(@([^\s@]{1,50}))(?=\s|$)/g;

/** The tags in a quick-add line (issue 23). */
export function readTags(text: string): QuickTags {
  let priority: QuickTags['priority'] = null;
  for (const match of text.matchAll(PRIORITY_WORD)) {
    priority = { text: match[1]!, value: Number(match[2]) as Priority };
  }
  const labels: QuickTags['labels'] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(LABEL_WORD)) {
    const name = match[2]!;
    const key = name.toLocaleLowerCase('en');
    if (seen.has(key)) continue;
    seen.add(key);
    labels.push({ text: match[1]!, name });
  }
  return { priority, labels };
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The line without these words (each wherever it stands as a word), spaces tidied. */
export function withoutWords(text: string, words: string[]): string {
  let line = text;
  for (const word of words) {
    line = line.replace(new RegExp(`(^|\\s)${literal(word)}(?=\\s|$)`, 'gi'), '$1');
  }
  return line.replace(/\s+/g, ' ').trim();
}
