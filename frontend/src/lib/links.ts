// The window never follows a link. Markdown the model wrote, or a
// notebook's cells, can hold any address; the web view going there would
// hand that page the app's bindings. One capture-phase handler on the
// document takes every click on a link (left, middle, with modifiers, or
// Enter on a focused one) before anything else sees it, prevents the
// navigation, and hands a web address to the user's browser. window.open
// does the same. The Go side refuses any navigation away from the app's
// page as well (app/internal/webview); this is the way a click is meant
// to go.

/** Installs the handlers on win; returns the function that removes them. */
export function guardLinks(win: Window, open: (url: string) => void): () => void {
  const doc = win.document;
  function onClick(e: MouseEvent) {
    const target = e.target as Element | null;
    const a = target?.closest?.('a[href], area[href]') as HTMLAnchorElement | HTMLAreaElement | null;
    if (!a) return;
    // A fragment of this page (a footnote) only scrolls, in this window.
    if ((a.getAttribute('href') ?? '').startsWith('#') && !a.hasAttribute('target') && e.type === 'click') return;
    e.preventDefault();
    if (e.type === 'auxclick' && e.button !== 1) return;
    open(a.href);
  }
  doc.addEventListener('click', onClick, true);
  doc.addEventListener('auxclick', onClick, true);
  const original = win.open;
  win.open = (url?: string | URL) => {
    if (url === undefined || url === '') return null;
    let href: string;
    try {
      href = new URL(String(url), doc.baseURI).href;
    } catch {
      return null; // not an address
    }
    open(href);
    return null;
  };
  return () => {
    doc.removeEventListener('click', onClick, true);
    doc.removeEventListener('auxclick', onClick, true);
    win.open = original;
  };
}
