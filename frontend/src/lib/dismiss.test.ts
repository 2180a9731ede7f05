import { describe, expect, it } from 'vitest';
import { dismiss } from './dismiss';

describe('dismiss', () => {
  it('closes on a click outside the node or on Escape, not on a click inside', () => {
    const node = document.createElement('div');
    const inside = node.appendChild(document.createElement('button'));
    const outside = document.createElement('button');
    document.body.append(node, outside);
    let closed = 0;
    const action = dismiss(node, () => closed++);

    inside.click();
    expect(closed).toBe(0);
    outside.click();
    expect(closed).toBe(1);
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    expect(closed).toBe(1);
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    expect(closed).toBe(2);

    action.destroy();
    outside.click();
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    expect(closed).toBe(2);
    node.remove();
    outside.remove();
  });

  it('does not close on a click inside whose target the click removed', () => {
    const node = document.createElement('div');
    const button = node.appendChild(document.createElement('button'));
    const label = button.appendChild(document.createElement('span'));
    label.addEventListener('click', () => label.remove());
    document.body.append(node);
    let closed = 0;
    const action = dismiss(node, () => closed++);
    label.click();
    expect(closed).toBe(0);
    action.destroy();
    node.remove();
  });
});
