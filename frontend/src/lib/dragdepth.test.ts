import { describe, expect, it } from 'vitest';
import { DragDepth } from './dragdepth';

describe('DragDepth', () => {
  it('stays over the window while the drag moves between elements and rests, and leaves with the last element', () => {
    const d = new DragDepth();
    d.enter(); // the body
    d.moved();
    d.enter(); // a child: its dragenter comes first…
    d.leave(); // …then the body's dragleave
    expect(d.over).toBe(true);
    // Held still: no events at all, and still over the window.
    expect(d.over).toBe(true);
    d.leave(); // out of the window
    expect(d.over).toBe(false);
  });

  it('counts a drag that began inside (no dragenter), and resets on the drop', () => {
    const d = new DragDepth();
    d.moved();
    expect(d.over).toBe(true);
    d.enter();
    d.reset();
    expect(d.over).toBe(false);
  });
});
