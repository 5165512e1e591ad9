import { describe, expect, it } from 'vitest';
import { singleMove } from './api';

describe('singleMove', () => {
  it('finds the one task a drag moved, and the task it now follows', () => {
    expect(singleMove([1, 2, 3, 4], [2, 3, 1, 4])).toEqual({ id: 1, afterId: 3 });
    expect(singleMove([1, 2, 3, 4], [4, 1, 2, 3])).toEqual({ id: 4, afterId: null });
    // Two neighbours swapped: either moved; it is told as the first moving down.
    expect(singleMove([1, 2, 3, 4], [1, 2, 4, 3])).toEqual({ id: 3, afterId: 4 });
    expect(singleMove([1, 2], [2, 1])).toEqual({ id: 1, afterId: 2 });
  });

  it('says so when the order changed in more than one move, or not at all', () => {
    expect(singleMove([1, 2, 3, 4], [1, 2, 3, 4])).toBeUndefined();
    expect(singleMove([1, 2, 3, 4], [4, 3, 2, 1])).toBeUndefined();
    expect(singleMove([1, 2, 3], [1, 2, 3, 4])).toBeUndefined();
    expect(singleMove([1, 2, 3, 4], [2, 1, 4, 3])).toBeUndefined();
  });
});
