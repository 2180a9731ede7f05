import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { escapeChar, isHidden, visible, visibleLine } from './visible';

// The Go side's test data: the same cases and the same escaped characters.
const goTestdata = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../internal/visible/testdata');
const testdata = (name: string): unknown => JSON.parse(readFileSync(resolve(goTestdata, name), 'utf8'));

describe('visible', () => {
  const cases = testdata('cases.json') as { name: string; in: string; out: string }[];
  it.each(cases.map((c) => [c.name, c.in, c.out]))('%s', (_name, input, output) => {
    expect(visible(input)).toBe(output);
  });

  it('escapes exactly the characters the Go side escapes', () => {
    const ranges: [number, number][] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue; // no characters in Go strings
      if (!isHidden(String.fromCodePoint(cp))) continue;
      const last = ranges[ranges.length - 1];
      if (last && last[1] === cp - 1) last[1] = cp;
      else ranges.push([cp, cp]);
    }
    expect(ranges).toEqual(testdata('escaped.json'));
  });

  it('shows a lone surrogate', () => {
    expect(visible('a\uD800b')).toBe('a\\ud800b');
    expect(escapeChar('\uDC00')).toBe('\\udc00');
  });

  it('leaves nothing that moves the cursor', () => {
    const out = visible('touch x\r\x1b[2K$ ls -la\u202e\u2028');
    expect(out).not.toMatch(/[\r\x1b\u202e\u2028]/);
    expect(out).toBe('touch x\\r\\x1b[2K$ ls -la\\u202e\\u2028');
  });
});

describe('visibleLine', () => {
  it.each([
    ['bidi override', 'ok\u202etxt.exe', 'ok\\u202etxt.exe'],
    ['bidi isolates and marks', '\u2066a\u2069\u200e\u200f', '\\u2066a\\u2069\\u200e\\u200f'],
    ['zero-width and BOM', 'a\u200bb\u200cc\u200dd\ufeff', 'a\\u200bb\\u200cc\\u200dd\\ufeff'],
    ['newlines and tabs collapse', 'Line one\n\nLine two\tend', 'Line one Line two end'],
    ['carriage return and escape stay visible', 'a\r\x1b[2Jb', 'a\\r\\x1b[2Jb'],
    ['line separator', 'a\u2028b', 'a\\u2028b'],
  ])('%s', (_name, input, output) => {
    expect(visibleLine(input)).toBe(output);
  });
});
