import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown';

describe('renderMarkdown', () => {
  it('renders markdown and highlights code', () => {
    const html = renderMarkdown('**bold**\n\n```python\nx = 1\n```');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('hljs-');
  });
  it('shows raw HTML as text and strips scripts', () => {
    const html = renderMarkdown('<img src=x onerror=alert(1)> <script>alert(1)</script> [a](javascript:alert(1))');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('&lt;script&gt;');
  });
});
