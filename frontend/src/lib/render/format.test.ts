import { describe, expect, it } from 'vitest';
import { formatTokens, formatUSD } from './format';

describe('format', () => {
  it('writes dollars as the Go side does', () => {
    const cases: [number, string][] = [
      [0, '$0.00'],
      [12.3456, '$12.35'],
      [1.5, '$1.50'],
      [0.015, '$0.015'],
      [0.0323, '$0.0323'],
      [0.1, '$0.10'],
      [0.00004, '$0.00'],
    ];
    for (const [v, want] of cases) expect(formatUSD(v), String(v)).toBe(want);
  });
  it('shortens token counts', () => {
    expect([950, 1234, 22060, 1_048_576].map(formatTokens)).toEqual(['950', '1.2k', '22k', '1.05M']);
  });
});
