import { describe, expect, it } from 'vitest';
import { readTags, withoutWords } from './quick-add-tags';

describe('quick add tags', () => {
  it('reads p1-p4 and !1-!4 (the last wins) and @labels, not e-mail addresses', () => {
    expect(readTags('Call Ana p2 tomorrow !1 @work @Home @WORK ana@example.com')).toEqual({
      priority: { text: '!1', value: 1 },
      labels: [
        { text: '@work', name: 'work' },
        { text: '@Home', name: 'Home' },
      ],
    });
    expect(readTags('Buy p5 paper, mp3 player, !0')).toEqual({ priority: null, labels: [] });
    expect(readTags('P4 Someday')).toEqual({ priority: { text: 'P4', value: 4 }, labels: [] });
  });

  it('takes words out of the line, as words only', () => {
    expect(withoutWords('Call Ana p2 @work today', ['p2', '@work'])).toBe('Call Ana today');
    expect(withoutWords('@work Plan @workshop', ['@work'])).toBe('Plan @workshop');
  });
});
