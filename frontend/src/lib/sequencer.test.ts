import { afterEach, describe, expect, it, vi } from 'vitest';
import { Sequencer } from './sequencer';

describe('Sequencer', () => {
  afterEach(() => vi.useRealTimers());

  it('delivers in order what arrives out of order', () => {
    const got: string[] = [];
    const s = new Sequencer<string>((d) => got.push(d));
    s.push({ seq: 2, data: 'b' });
    expect(got).toEqual([]);
    s.push({ seq: 1, data: 'a' });
    s.push({ seq: 4, data: 'd' });
    expect(got).toEqual(['a', 'b']);
    s.push({ seq: 3, data: 'c' });
    expect(got).toEqual(['a', 'b', 'c', 'd']);
  });

  it('delivers a late message at once and skips a gap that never fills', () => {
    vi.useFakeTimers();
    const got: string[] = [];
    const s = new Sequencer<string>((d) => got.push(d), 100);
    s.push({ seq: 5, data: 'e' }); // after a page reload
    vi.advanceTimersByTime(150);
    s.push({ seq: 4, data: 'late' });
    s.push({ seq: 7, data: 'g' });
    expect(got).toEqual(['e', 'late']);
    vi.advanceTimersByTime(150);
    expect(got).toEqual(['e', 'late', 'g']);
    s.push({ seq: 8, data: 'h' });
    expect(got).toEqual(['e', 'late', 'g', 'h']);
  });
});
