import { afterEach, describe, expect, it, vi } from 'vitest';
import { render } from '@testing-library/svelte';
import { guardLinks } from './links';
import TextBlock from '../components/conversation/TextBlock.svelte';

let off: (() => void) | undefined;
afterEach(() => {
  off?.();
  off = undefined;
  document.body.innerHTML = '';
});

/** Dispatches a cancellable mouse event of type on node; returns it. */
function fire(node: Element, type: 'click' | 'auxclick', button = 0): MouseEvent {
  const e = new MouseEvent(type, { bubbles: true, cancelable: true, button });
  node.dispatchEvent(e);
  return e;
}

describe('guardLinks', () => {
  it('hands a link in a rendered answer to openInBrowser and keeps the window where it is', () => {
    const open = vi.fn();
    off = guardLinks(window, open);
    const { getByRole } = render(TextBlock, {
      props: { item: { kind: 'response', text: 'See [the page](https://evil.example/p?x=1).', done: true } as never },
    });
    const link = getByRole('link', { name: 'the page' });
    const e = fire(link, 'click');
    expect(e.defaultPrevented).toBe(true);
    expect(open).toHaveBeenCalledTimes(1);
    expect(open).toHaveBeenCalledWith('https://evil.example/p?x=1');
  });

  it('takes a click on what is inside a link, a middle click, and any address', () => {
    const open = vi.fn();
    off = guardLinks(window, open);
    document.body.innerHTML = '<div class="markdown"><a href="file:///etc/passwd"><em>x</em></a><a href="http://a.example/">y</a></div>';
    const [file, web] = [...document.querySelectorAll('a')] as [HTMLAnchorElement, HTMLAnchorElement];
    expect(fire(file.querySelector('em') as Element, 'click').defaultPrevented).toBe(true);
    expect(fire(web, 'auxclick', 1).defaultPrevented).toBe(true);
    expect(open.mock.calls).toEqual([['file:///etc/passwd'], ['http://a.example/']]);
  });

  it('runs before the page own handlers, which cannot let the navigation through', () => {
    const open = vi.fn();
    off = guardLinks(window, open);
    document.body.innerHTML = '<a href="https://a.example/">x</a>';
    const a = document.querySelector('a') as HTMLAnchorElement;
    let seenPrevented = false;
    a.addEventListener('click', (e) => (seenPrevented = e.defaultPrevented));
    fire(a, 'click');
    expect(seenPrevented).toBe(true);
  });

  it('lets a link to a fragment of the page scroll, and opens nothing for it', () => {
    const open = vi.fn();
    off = guardLinks(window, open);
    document.body.innerHTML = '<a href="#fn-1">1</a><a href="#fn-2" target="_blank">2</a><p id="fn-1">note</p>';
    const [plain, blank] = [...document.querySelectorAll('a')] as [HTMLAnchorElement, HTMLAnchorElement];
    expect(fire(plain, 'click').defaultPrevented).toBe(false);
    expect(fire(blank, 'click').defaultPrevented).toBe(true);
    expect(fire(plain, 'auxclick', 1).defaultPrevented).toBe(true);
    expect(open).toHaveBeenCalledTimes(2);
  });

  it('leaves clicks that are not on links alone', () => {
    const open = vi.fn();
    off = guardLinks(window, open);
    document.body.innerHTML = '<button>b</button>';
    const e = fire(document.querySelector('button') as Element, 'click');
    expect(e.defaultPrevented).toBe(false);
    expect(open).not.toHaveBeenCalled();
  });

  it('sends window.open to the browser and opens no window', () => {
    const open = vi.fn();
    off = guardLinks(window, open);
    expect(window.open('https://b.example/x')).toBeNull();
    expect(open).toHaveBeenCalledWith('https://b.example/x');
  });

  it('removes its handlers when asked', () => {
    const open = vi.fn();
    guardLinks(window, open)();
    document.body.innerHTML = '<a href="https://a.example/">x</a>';
    const a = document.querySelector('a') as HTMLAnchorElement;
    let prevented = true;
    a.addEventListener('click', (e) => {
      prevented = e.defaultPrevented;
      e.preventDefault(); // jsdom cannot navigate
    });
    fire(a, 'click');
    expect(prevented).toBe(false);
    expect(open).not.toHaveBeenCalled();
  });
});
