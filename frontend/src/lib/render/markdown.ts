// Markdown for model responses: marked with raw HTML shown as text, code
// highlighted by highlight.js, and the result sanitised by DOMPurify.
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import plaintext from 'highlight.js/lib/languages/plaintext';
import python from 'highlight.js/lib/languages/python';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

for (const [name, lang] of Object.entries({
  bash,
  css,
  go,
  javascript,
  json,
  markdown,
  plaintext,
  python,
  shell,
  sql,
  typescript,
  xml,
  yaml,
})) {
  hljs.registerLanguage(name, lang);
}
hljs.registerAliases(['sh', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['py', 'ipython'], { languageName: 'python' });
hljs.registerAliases(['js'], { languageName: 'javascript' });
hljs.registerAliases(['ts'], { languageName: 'typescript' });
hljs.registerAliases(['html'], { languageName: 'xml' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });

export function escapeHTML(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Highlighted HTML of code in language lang (escaped text when unknown). */
export function highlight(code: string, lang: string): string {
  const l = lang.trim().toLowerCase();
  if (l && hljs.getLanguage(l)) {
    return hljs.highlight(code, { language: l, ignoreIllegals: true }).value;
  }
  return escapeHTML(code);
}

/** Whether an image address would load from another host: anything but a
 * path of the app itself, a data: or a blob: URL. */
export function isRemote(href: string): boolean {
  // Browsers drop tabs and newlines inside a URL and read "\\" as "/".
  const h = href.replace(/[\t\n\r]/g, '').trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:/.test(h)) return !h.startsWith('data:') && !h.startsWith('blob:');
  return /^[\\/]{2}/.test(h);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML in a response is shown as text, never interpreted.
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHTML(text);
    },
    // A remote image is never loaded (it could carry data out in its
    // address, and the page's Content-Security-Policy blocks it anyway):
    // it shows as a link the user can open in the browser. Its icon is
    // the app's SVG (lib/icons.ts), put into the empty slot by the view
    // (TextBlock): an emoji needs a font many machines lack.
    image({ href, title, text }: Tokens.Image) {
      if (!isRemote(href)) return false;
      const label = `${text ? `image: ${text}` : 'image'} (remote, not loaded)`;
      return (
        `<a href="${escapeHTML(href)}" class="remote-image" title="${escapeHTML(title ?? href)}" ` +
        `aria-label="${escapeHTML(`${label}: opens in your browser`)}">` +
        `<span class="icon-slot" data-icon="image"></span>${escapeHTML(label)}</a>`
      );
    },
    code({ text, lang }: Tokens.Code) {
      const l = (lang ?? '').split(/\s/)[0] ?? '';
      return `<pre class="code"><code class="hljs">${highlight(text, l)}</code></pre>`;
    },
  },
});

/** Safe HTML for a markdown text. */
export function renderMarkdown(src: string): string {
  const html = marked.parse(src, { async: false });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input'] });
}
