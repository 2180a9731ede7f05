import { describe, expect, it } from 'vitest';
import { windowTitle } from './title';

describe('windowTitle', () => {
  it('names the conversation and the workspace, shortened to one line', () => {
    expect(windowTitle('', '')).toBe('freeact');
    expect(windowTitle('project', '')).toBe('project — freeact');
    expect(windowTitle('project', 'Plot\n  sin(x)')).toBe('Plot sin(x) — project — freeact');
    const t = windowTitle('p', 'x'.repeat(100));
    expect(t.startsWith('x'.repeat(59) + '…')).toBe(true);
  });
});
