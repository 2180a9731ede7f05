import { describe, expect, it } from 'vitest';
import { reserve } from './reserve';

// jsdom lays nothing out: the node's height is what the test says.
function box(height: { h: number }) {
  const node = document.createElement('div');
  node.getBoundingClientRect = () => ({ height: Math.max(height.h, parseFloat(node.style.minHeight) || 0) }) as DOMRect;
  return node;
}

describe('reserve', () => {
  it('keeps the area above the list as tall as it was while the pointer is below, and lets it go after', () => {
    const height = { h: 120 }; // a notice and the kernel's progress
    const node = box(height);
    const r = reserve(node, false);
    expect(node.style.minHeight).toBe('');
    r.update(true); // the pointer rests on the session list
    height.h = 0; // the notice expired, the kernel is ready
    expect(node.getBoundingClientRect().height).toBe(120);
    r.update(false); // the pointer left: the area may shrink now
    expect(node.style.minHeight).toBe('');
    expect(node.getBoundingClientRect().height).toBe(0);
    r.destroy();
  });

  it('keeps the tallest height it had while held, when it grew meanwhile', () => {
    const height = { h: 40 };
    const node = box(height);
    const r = reserve(node, true);
    height.h = 100;
    r.update(true); // what the resize observer does when it grows
    height.h = 10;
    expect(node.getBoundingClientRect().height).toBe(100);
    r.destroy();
  });
});
