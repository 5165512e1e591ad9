import { describe, expect, it } from 'vitest';
import { PROJECT_ROLES, roleWithArticle } from './projects';

describe('a role in a sentence', () => {
  it('takes the article its sound needs: an editor, an admin, a viewer (issue 28)', () => {
    expect(PROJECT_ROLES.map(roleWithArticle)).toEqual([
      'a viewer',
      'a commenter',
      'an editor',
      'an admin',
      'an owner',
    ]);
  });
});
