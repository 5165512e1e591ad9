import { describe, expect, it } from 'vitest';
import { searchWithView, shownView } from './view';

describe('a project’s view', () => {
  it('is the address’s when it names one, else the remembered one', () => {
    expect(shownView('?view=board', 'list')).toEqual({ view: 'board', fromAddress: true });
    expect(shownView('?q=rent&view=list', 'board')).toEqual({ view: 'list', fromAddress: true });
    expect(shownView('', 'board')).toEqual({ view: 'board', fromAddress: false });
    expect(shownView('?q=rent', 'list')).toEqual({ view: 'list', fromAddress: false });
    // A word the address does not know is no view; the lists across projects have the List alone.
    expect(shownView('?view=grid', 'board')).toEqual({ view: 'board', fromAddress: false });
    expect(shownView('', undefined)).toEqual({ view: 'list', fromAddress: false });
  });

  it('is written into the address as view=board, the List as no parameter, the others kept', () => {
    expect(searchWithView('', 'board')).toBe('?view=board');
    expect(searchWithView('?q=rent&sort=due', 'board')).toBe('?q=rent&sort=due&view=board');
    expect(searchWithView('?view=board', 'board')).toBe('?view=board');
    expect(searchWithView('?view=board&q=rent', 'list')).toBe('?q=rent');
    expect(searchWithView('?view=board', 'list')).toBe('');
  });
});
