import { describe, expect, it } from 'vitest';
import { relativeTime } from './when';

describe('relativeTime', () => {
  const now = new Date(2026, 10, 23, 15, 0, 0);
  const ago = (ms: number) => new Date(now.getTime() - ms);
  it('says how long ago, then the date', () => {
    expect(relativeTime(ago(10_000), now)).toBe('just now');
    expect(relativeTime(ago(60_000), now)).toBe('a minute ago');
    expect(relativeTime(ago(25 * 60_000), now)).toBe('25 minutes ago');
    expect(relativeTime(ago(3 * 3_600_000), now)).toBe('3 hours ago');
    expect(relativeTime(new Date(2026, 10, 22, 23, 0), now)).toBe('yesterday');
    expect(relativeTime(new Date(2026, 10, 19, 9, 0), now)).toBe('4 days ago');
    expect(relativeTime(new Date(2026, 9, 3), now)).toBe('Oct 3');
    expect(relativeTime(new Date(2025, 0, 5), now)).toBe('Jan 5, 2025');
    expect(relativeTime('not a date', now)).toBe('');
  });
});
