import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CommentMarkdown } from './CommentMarkdown';

const render = (body: string, usernames: string[] = []) =>
  renderToStaticMarkup(<CommentMarkdown body={body} usernames={usernames} />);

describe('a comment rendered', () => {
  it('shows raw HTML as text, never as markup', () => {
    const html = render('<img src=x onerror=alert(1)> <script>alert(2)</script>');
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('turns javascript:, data: and vbscript: links into plain words', () => {
    for (const url of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,hi',
      'vbscript:msgbox(1)',
    ]) {
      const html = render(`[x](${url})`);
      expect(html, url).not.toContain('<a');
      expect(html, url).toContain('<span>x</span>');
    }
  });

  it('opens links apart from the app, telling them nothing', () => {
    expect(render('[plan](https://example.com/plan)')).toContain(
      '<a href="https://example.com/plan" target="_blank" rel="noopener noreferrer"',
    );
  });

  it('does not fetch pictures: an image is a link to it', () => {
    const html = render('![chart](https://example.com/c.png)');
    expect(html).not.toContain('<img');
    expect(html).toContain('>chart</a>');
  });

  it("highlights members' mentions only, and not inside links or code", () => {
    const html = render('@ana and @bob, [@ana](https://example.com) `@ana`', ['ana']);
    expect(html.match(/<mark[^>]*>@ana<\/mark>/g)).toHaveLength(1);
    expect(html).not.toContain('>@bob</mark>');
  });
});
